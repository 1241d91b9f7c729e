// Which workspace and agent each address of ours names, checked when a mail
// arrives (at RCPT TO, or for the webhook's recipients) and again when it is
// handled: an address outside the domain, a workspace not connected to email
// or a name nobody has is refused with a sentence for the sender. A name that
// is no agent's or person's is a shared address while agents listen to it, and
// postmaster@<domain> is always taken.
import { resolveOne, type WorkspaceAgent } from '../../core/agents/agent-service.ts';
import { SwitchboardError } from '../../core/errors.ts';
import type { Workspace } from '../../core/entities.ts';
import { DEFAULT_TENANT, isPostmaster, parseOurAddress } from './addresses.ts';
import { workspaceOfTenant, type EmailRuntime } from './runtime.ts';
import { isListenedTo, sharedName } from './shared-addresses.ts';

/** An address of ours that reaches someone, as it was written to (lowercased). */
export type Recipient =
  /** An agent or a person of the workspace, by the name the address gives (`reviewer`, `alice/builder`). */
  | { kind: 'agent'; address: string; workspace: Workspace; name: string; entry: WorkspaceAgent }
  /** A shared address of the workspace (`feedback`): the agents listening to it overhear the mail. */
  | { kind: 'shared'; address: string; workspace: Workspace; name: string }
  /** postmaster@<domain>: the mail is logged for the operator (handlers.ts). */
  | { kind: 'postmaster'; address: string };

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

  private readonly listened = new Map<string, Promise<boolean>>();

  constructor(private readonly rt: Pick<EmailRuntime, 'core' | 'settings'>) {}

  async check(raw: string): Promise<RecipientCheck> {
    const address = raw.trim().toLowerCase();
    const domain = this.rt.settings.domain;
    if (isPostmaster(address, domain)) return { ok: true, recipient: { kind: 'postmaster', address } };
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
          recipient: { kind: 'agent', address, workspace, name: ours.name, entry: resolveOne(directory, ours.name) },
        };
      } catch (e) {
        if (!(e instanceof SwitchboardError)) throw e;
        const shared = e.code === 'NOT_FOUND' ? sharedName(ours.name) : null;
        if (shared && (await this.isListened(workspace, shared)))
          return { ok: true, recipient: { kind: 'shared', address, workspace, name: shared } };
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

  private isListened(workspace: Workspace, name: string): Promise<boolean> {
    const key = `${workspace.id}:${name}`;
    let found = this.listened.get(key);
    if (!found) this.listened.set(key, (found = isListenedTo(this.rt, workspace, name)));
    return found;
  }

  private directoryOf(workspace: Workspace): Promise<WorkspaceAgent[]> {
    let found = this.directories.get(workspace.id);
    if (!found) this.directories.set(workspace.id, (found = this.rt.core.agents.directory(workspace)));
    return found;
  }
}
