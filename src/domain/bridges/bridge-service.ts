// Making and unmaking bridges: only a workspace's owners (or the operator at
// the CLI) link a web channel to a Slack or Teams channel, and only after the
// surface confirmed it reaches that channel from this workspace.
import type { Actor } from '../actor.ts';
import { ChatAccess } from '../chat/access.ts';
import { invalidInput, notFound, notPermitted, SwitchboardError } from '../errors.ts';
import type { OrgService } from '../organizations/org-service.ts';
import type { Clock, Store } from '../ports.ts';
import type { ExternalSurface } from '../surfaces/ports.ts';
import type { Workspace } from '../types.ts';
import type { Bridge } from './types.ts';

/** An outside channel as a surface reaches it from a workspace. */
export interface BridgeTarget {
  tenantId: string;
  externalChannelId: string;
  externalRef: Record<string, string>;
  /** Its name as people know it ("#general"); empty when the platform does not say. */
  title: string;
}

/** What a surface checks before a bridge to one of its channels is made. */
export interface BridgeSurface {
  readonly surface: ExternalSurface;
  /** The platform's name in sentences ("Slack"). */
  readonly label: string;
  /**
   * The channel as the app reaches it from this workspace. Throws a
   * SwitchboardError saying why when it cannot: the workspace is not connected
   * to the platform, the id is malformed, or the app is not in that channel.
   */
  resolveChannel(workspace: Workspace, externalChannelId: string): Promise<BridgeTarget>;
}

/** A bridge with the name of its web channel, as lists show it. */
export type BridgeListing = Bridge & { channelName: string };

export class BridgeService {
  private readonly surfaces = new Map<ExternalSurface, BridgeSurface>();
  private readonly access: ChatAccess;

  constructor(private readonly store: Store, private readonly orgs: OrgService, private readonly clock: Clock) {
    this.access = new ChatAccess(store, orgs, clock);
  }

  /** Called by each surface module that can be bridged. */
  register(s: BridgeSurface): void {
    this.surfaces.set(s.surface, s);
  }

  /** Links the web channel to each outside channel given; refuses a restricted channel unless `allowPrivate`. */
  async add(actor: Actor, input: { workspace: string; channel: string; slack?: string; teams?: string; allowPrivate?: boolean }): Promise<BridgeListing[]> {
    const ws = await this.ownedWorkspace(actor, input.workspace, 'bridge channels');
    const wanted = (['slack', 'teams'] as const).filter((s) => input[s]?.trim());
    if (!wanted.length) throw invalidInput('Say which channel to bridge to: --slack with a Slack channel id (C…) or --teams with a Teams channel id (19:…).');
    const name = input.channel.trim().replace(/^#/, '').toLowerCase();
    const channel = name === 'general' ? await this.access.ensureGeneral(ws) : await this.store.chat.channelByName(ws.id, name);
    if (!channel) throw notFound(`The channel #${name} in ${ws.slug}`, 'Create it in the web chat first, or pick an existing channel.');
    if (channel.restricted && !input.allowPrivate) {
      throw notPermitted(`#${channel.name} is a restricted channel: bridging it would show its messages to everyone in the outside channel. Pass --allow-private if that is what you mean.`);
    }
    const targets = await Promise.all(wanted.map(async (s) => {
      const surface = this.surfaces.get(s);
      if (!surface && s === 'teams') throw new SwitchboardError('UNAVAILABLE', 'Microsoft Teams channels cannot be bridged yet; bridge a Slack channel, or mention Switchboard in Teams to talk to agents there.');
      if (!surface) throw new SwitchboardError('UNAVAILABLE', 'Slack is not configured in this Switchboard, so nothing can be bridged to it; configure it and try again.');
      return { s, target: await surface.resolveChannel(ws, input[s]!.trim()) };
    }));
    const createdBy = actor.kind === 'person' ? actor.personId : null;
    const made = await this.store.transaction(async (tx) => {
      const out: Bridge[] = [];
      for (const { s, target } of targets) {
        out.push(await tx.bridges.create({ workspaceId: ws.id, channelId: channel.conversationId, surface: s, ...target, allowPrivate: Boolean(input.allowPrivate), createdBy }));
      }
      return out;
    });
    await this.store.audit.record({ workspaceId: ws.id, action: 'bridge.add', target: channel.conversationId, result: 'ok', details: { surfaces: wanted, by: createdBy } });
    return made.map((b) => ({ ...b, channelName: channel.name }));
  }

  /** The workspace's bridges; owners only. */
  async list(actor: Actor, workspace: string, channelId?: string): Promise<BridgeListing[]> {
    const ws = await this.ownedWorkspace(actor, workspace, 'see bridges');
    const all = channelId ? await this.store.bridges.forChannel(ws.id, channelId) : await this.store.bridges.list(ws.id);
    const names = new Map<string, string>();
    for (const b of all) if (!names.has(b.channelId)) names.set(b.channelId, (await this.store.chat.channel(ws.id, b.channelId))?.name ?? '?');
    return all.map((b) => ({ ...b, channelName: names.get(b.channelId)! }));
  }

  /** Removes a bridge named by its id or by the outside channel's id; owners only. */
  async remove(actor: Actor, workspace: string, idOrChannel: string): Promise<BridgeListing> {
    const ws = await this.ownedWorkspace(actor, workspace, 'remove bridges');
    const key = idOrChannel.trim();
    const found = (await this.list(actor, ws.id)).find((b) => b.id === key || b.externalChannelId === key);
    if (!found || !(await this.store.bridges.remove(ws.id, found.id))) {
      throw notFound(`A bridge "${key}" in ${ws.slug}`, 'Give a bridge id or outside channel id from `switchboard bridge list`.');
    }
    await this.store.audit.record({ workspaceId: ws.id, action: 'bridge.remove', target: found.channelId, result: 'ok', details: { surface: found.surface, channel: found.externalChannelId } });
    return found;
  }

  private async ownedWorkspace(actor: Actor, workspace: string, what: string): Promise<Workspace> {
    const ws = await this.store.workspaces.get(workspace);
    if (!ws) throw notFound(`The workspace "${workspace}"`, 'See `switchboard workspace list` for the workspaces there are.');
    if (actor.kind === 'person' && (await this.orgs.roleIn(actor.personId, ws)) !== 'owner') {
      throw notPermitted(`Only an owner of ${ws.slug} can ${what}; ask one of its owners.`);
    }
    return ws;
  }
}
