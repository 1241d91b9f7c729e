// Which workspace and agent each address of ours names, checked when a mail
// arrives (at RCPT TO, or for the webhook's recipients) and again when it is
// handled: an address outside the domain, a workspace not connected to email
// or a name nobody has is refused with a sentence for the sender.
import { resolveOne, type WorkspaceAgent } from '../../core/agents/agent-service.ts';
import { SwitchboardError } from '../../core/errors.ts';
import type { Workspace } from '../../core/entities.ts';
import { DEFAULT_TENANT, parseOurAddress } from './addresses.ts';
import { workspaceOfTenant, type EmailRuntime } from './runtime.ts';

/** An address of ours that names someone: the workspace, and the agent or person in its directory. */
export interface Recipient {
  /** The address as it was written to, lowercased. */
  address: string;
  workspace: Workspace;
  /** The name the address gives (`reviewer`, `alice/builder`). */
  name: string;
  entry: WorkspaceAgent;
}

export type RecipientCheck =
  | { ok: true; recipient: Recipient }
  /** `permanent`: the same address is refused again (SMTP 550); otherwise it may be taken later (451). */
  | { ok: false; permanent: boolean; reason: string };

/**
 * Checks addresses against the workspaces connected to email, reading each workspace and directory once (one mail
 * may be written to many agents of one workspace).
 */
export class RecipientBook {
  private readonly workspaces = new Map<string, Promise<Workspace | null>>();
  private readonly directories = new Map<string, Promise<WorkspaceAgent[]>>();

  constructor(private readonly rt: Pick<EmailRuntime, 'core' | 'settings'>) {}

  async check(raw: string): Promise<RecipientCheck> {
    const address = raw.trim().toLowerCase();
    const domain = this.rt.settings.domain;
    const ours = parseOurAddress(address, domain);
    if (!ours) {
      const inDomain = address.endsWith(`@${domain}`);
      return {
        ok: false,
        permanent: true,
        reason: inDomain
          ? `<${address}> names no agent: write to <agent@${domain}> or <workspace+agent@${domain}>.`
          : `This server takes mail for ${domain} only; it does not relay to <${address}>.`,
      };
    }
    try {
      const tenant = ours.label ?? DEFAULT_TENANT;
      const workspace = await this.workspaceOf(tenant);
      if (!workspace)
        return {
          ok: false,
          permanent: true,
          reason: ours.label
            ? `No workspace "${ours.label}" takes mail here; check the part before the "+" in <${address}>.`
            : `No workspace takes mail at plain addresses of ${domain}; write to <workspace+${ours.name}@${domain}>.`,
        };
      const directory = await this.directoryOf(workspace);
      try {
        return {
          ok: true,
          recipient: { address, workspace, name: ours.name, entry: resolveOne(directory, ours.name) },
        };
      } catch (e) {
        if (!(e instanceof SwitchboardError)) throw e;
        return { ok: false, permanent: true, reason: `<${address}>: ${e.message}` };
      }
    } catch (e) {
      return {
        ok: false,
        permanent: false,
        reason: `Switchboard could not look up <${address}> just now (${(e as Error).message ?? 'unknown error'}); try again later.`,
      };
    }
  }

  private workspaceOf(tenant: string): Promise<Workspace | null> {
    let found = this.workspaces.get(tenant);
    if (!found) this.workspaces.set(tenant, (found = workspaceOfTenant(this.rt, tenant)));
    return found;
  }

  private directoryOf(workspace: Workspace): Promise<WorkspaceAgent[]> {
    let found = this.directories.get(workspace.id);
    if (!found) this.directories.set(workspace.id, (found = this.rt.core.agents.directory(workspace)));
    return found;
  }
}
