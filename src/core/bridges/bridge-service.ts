// Making and unmaking bridges: only a workspace's owners (or the operator at
// the CLI) link a web channel to a Slack or Teams channel, and only after the
// surface confirmed it reaches that channel from this workspace.
import type { Actor } from '../actor.ts';
import { ChatAccess } from '../channels/access.ts';
import { conflict, invalidInput, notFound, notPermitted, SwitchboardError } from '../errors.ts';
import type { OrgService } from '../organizations/org-service.ts';
import type { Clock, Store } from '../ports.ts';
import type { ExternalSurface } from '../surfaces/surface-ports.ts';
import type { Workspace } from '../entities.ts';
import type { BridgePort } from './bridge-port.ts';
import type { Bridge } from './bridge.ts';
import { addressFor, bridgeableChannel } from './mirror-out.ts';
import type { Conversation } from '../messaging/message.ts';

/** A bridge with the name of its web channel and of its surface ("Slack"), as lists show it. */
export type BridgeListing = Bridge & { channelName: string; label: string };

/** One outside channel to bridge: the surface's name and its channel id there. */
export interface BridgeRequest {
  surface: ExternalSurface;
  channel: string;
}

export class BridgeService {
  private readonly ports = new Map<ExternalSurface, BridgePort>();
  private readonly access: ChatAccess;
  private readonly changeListeners: Array<(ws: Workspace, channelId: string) => void> = [];

  constructor(
    private readonly store: Store,
    private readonly orgs: OrgService,
    clock: Clock,
  ) {
    this.access = new ChatAccess(store, orgs, clock);
  }

  /** Called by each surface module that can be bridged. */
  register(port: BridgePort): void {
    this.ports.set(port.surface, port);
  }

  /** The port of a bridged surface; undefined when this process did not register one. */
  port(surface: ExternalSurface): BridgePort | undefined {
    return this.ports.get(surface);
  }

  /** The surfaces a channel can be bridged with in this process, as forms offer them: name, label and a channel id's look. */
  surfaces(): Array<{ surface: ExternalSurface; label: string; example: string }> {
    return [...this.ports.values()].map((p) => ({ surface: p.surface, label: p.label, example: p.channelExample }));
  }

  /** Calls `fn` after a web channel was bridged or unbridged (the web chat updates its header). */
  onChange(fn: (ws: Workspace, channelId: string) => void): void {
    this.changeListeners.push(fn);
  }

  /**
   * Links the web channel to each outside channel given; refuses a restricted channel unless `allowPrivate`, saying
   * how to allow it as `howToAllow` puts it where the owner asked (the CLI's flag by default).
   */
  async add(
    actor: Actor,
    input: { workspace: string; channel: string; to: BridgeRequest[]; allowPrivate?: boolean; howToAllow?: string },
  ): Promise<BridgeListing[]> {
    const ws = await this.ownedWorkspace(actor, input.workspace, 'bridge channels');
    const wanted = input.to.map((t) => ({ surface: t.surface, channel: t.channel.trim() })).filter((t) => t.channel);
    if (!wanted.length)
      throw invalidInput(
        `Say which outside channel to bridge to (${[...this.ports.values()].map((p) => p.label).join(' or ') || 'no chat app is configured'}).`,
      );
    const name = input.channel.trim().replace(/^#/, '').toLowerCase();
    const channel =
      name === 'general' ? await this.access.ensureGeneral(ws) : await this.store.chat.channelByName(ws.id, name);
    if (!channel)
      throw notFound(
        `The channel #${name} in ${ws.slug}`,
        'Create it in the web chat first, or pick an existing channel.',
      );
    if (channel.restricted && !input.allowPrivate) {
      throw notPermitted(
        `#${channel.name} is a restricted channel: bridging it would show its messages to everyone in the outside channel. If that is what you mean, say so: ${input.howToAllow ?? 'pass --allow-private to `switchboard bridge add`'}.`,
      );
    }
    const targets = await Promise.all(
      wanted.map(async ({ surface, channel: id }) => {
        const port = this.ports.get(surface);
        if (!port)
          throw new SwitchboardError(
            'UNAVAILABLE',
            `Nothing can be bridged to "${surface}": that chat app is not configured in this Switchboard; configure it and try again.`,
          );
        return { surface, label: port.label, target: await port.resolveChannel(ws, id) };
      }),
    );
    const createdBy = actor.kind === 'person' ? actor.personId : null;
    const made = await this.store.transaction(async (tx) => {
      const out: Bridge[] = [];
      for (const { surface, label, target } of targets) {
        // Checked first for the sentence; the store's unique indexes still decide a race.
        if ((await tx.bridges.forChannel(ws.id, channel.conversationId)).some((b) => b.surface === surface)) {
          throw conflict(
            `That web channel is already bridged to a ${label} channel; remove that bridge first (bridge list shows it).`,
          );
        }
        if (await tx.bridges.byExternal(surface, target.tenantId, target.externalChannelId)) {
          throw conflict(
            `That ${label} channel is already bridged to a web channel; remove that bridge first (bridge list shows it).`,
          );
        }
        out.push(
          await tx.bridges.create({
            workspaceId: ws.id,
            channelId: channel.conversationId,
            surface,
            ...target,
            allowPrivate: Boolean(input.allowPrivate),
            createdBy,
          }),
        );
      }
      return out;
    });
    await this.store.audit.record({
      workspaceId: ws.id,
      action: 'bridge.add',
      target: channel.conversationId,
      result: 'ok',
      details: { surfaces: wanted.map((t) => t.surface), by: createdBy },
    });
    this.changed(ws, channel.conversationId);
    return made.map((b) => this.listing(b, channel.name));
  }

  /** A web channel's bridges, for showing them to whoever may see the channel (callers check that); `list` is the owners'. */
  ofChannel(workspaceId: string, channelId: string): Promise<Bridge[]> {
    return this.store.bridges.forChannel(workspaceId, channelId);
  }

  /** One bridge of the workspace; null when there is none with that id. */
  find(workspaceId: string, id: string): Promise<Bridge | null> {
    return this.store.bridges.get(workspaceId, id);
  }

  /** The workspace's bridges; owners only. */
  async list(actor: Actor, workspace: string, channelId?: string): Promise<BridgeListing[]> {
    const ws = await this.ownedWorkspace(actor, workspace, 'see bridges');
    const all = channelId
      ? await this.store.bridges.forChannel(ws.id, channelId)
      : await this.store.bridges.list(ws.id);
    const names = new Map<string, string>();
    for (const b of all)
      if (!names.has(b.channelId))
        names.set(b.channelId, (await this.store.chat.channel(ws.id, b.channelId))?.name ?? '?');
    return all.map((b) => this.listing(b, names.get(b.channelId)!));
  }

  private listing(b: Bridge, channelName: string): BridgeListing {
    return { ...b, channelName, label: this.ports.get(b.surface)?.label ?? b.surface };
  }

  /** Removes a bridge named by its id or by the outside channel's id; owners only. */
  async remove(actor: Actor, workspace: string, idOrChannel: string): Promise<BridgeListing> {
    const ws = await this.ownedWorkspace(actor, workspace, 'remove bridges');
    const key = idOrChannel.trim();
    const found = (await this.list(actor, ws.id)).find((b) => b.id === key || b.externalChannelId === key);
    if (!found || !(await this.store.bridges.remove(ws.id, found.id))) {
      throw notFound(
        `A bridge "${key}" in ${ws.slug}`,
        'Give a bridge id or outside channel id from `switchboard bridge list`.',
      );
    }
    await this.store.audit.record({
      workspaceId: ws.id,
      action: 'bridge.remove',
      target: found.channelId,
      result: 'ok',
      details: { surface: found.surface, channel: found.externalChannelId },
    });
    this.changed(ws, found.channelId);
    return found;
  }

  /** The bridge of an outside channel; null when it is not bridged. No permission check: surfaces ask it of every message. */
  byExternal(surface: ExternalSurface, tenantId: string, externalChannelId: string): Promise<Bridge | null> {
    return this.store.bridges.byExternal(surface, tenantId, externalChannelId);
  }

  /**
   * Where a web conversation is on `surface`'s side of its bridge (that platform's own address format): a bridged
   * channel's outside channel, or for a thread under one the outside thread of its root (the channel itself when
   * the root was never mirrored there); null for a conversation in no channel bridged with `surface`.
   */
  async placeOn(surface: ExternalSurface, conv: Conversation): Promise<Record<string, string> | null> {
    const channelId = bridgeableChannel(conv);
    const port = this.ports.get(surface);
    const bridge =
      channelId && port
        ? (await this.store.bridges.forChannel(conv.workspaceId, channelId)).find((b) => b.surface === surface)
        : undefined;
    return bridge && port ? addressFor(this.store, port, bridge, conv) : null;
  }

  /** The workspace's bridges to the channels of one team or tenant of a surface (all of them go when the app is uninstalled there), oldest first. */
  async ofTenant(workspaceId: string, surface: ExternalSurface, tenantId: string): Promise<Bridge[]> {
    return (await this.store.bridges.list(workspaceId)).filter((b) => b.surface === surface && b.tenantId === tenantId);
  }

  /**
   * Removes the bridges of outside channels that are gone from the platform (deleted, or the app removed from them),
   * as the surface reports it: no owner asked, so no permission check. Returns the bridges removed; ids not bridged are skipped.
   */
  async outsideChannelsGone(
    surface: ExternalSurface,
    tenantId: string,
    externalChannelIds: string[],
    reason: string,
  ): Promise<Bridge[]> {
    const removed: Bridge[] = [];
    for (const id of new Set(externalChannelIds)) {
      const b = await this.store.bridges.byExternal(surface, tenantId, id);
      // The bridge goes with its audit entry, in one transaction: never one without the other.
      const gone =
        b &&
        (await this.store.transaction(async (tx) => {
          if (!(await tx.bridges.remove(b.workspaceId, b.id))) return false;
          await tx.audit.record({
            workspaceId: b.workspaceId,
            action: 'bridge.remove',
            target: b.channelId,
            result: 'ok',
            details: { surface, channel: id, reason },
          });
          return true;
        }));
      if (!b || !gone) continue;
      removed.push(b);
      const ws = await this.store.workspaces.get(b.workspaceId);
      if (ws) this.changed(ws, b.channelId);
    }
    return removed;
  }

  private changed(ws: Workspace, channelId: string) {
    for (const fn of this.changeListeners) fn(ws, channelId);
  }

  private async ownedWorkspace(actor: Actor, workspace: string, what: string): Promise<Workspace> {
    const ws = await this.store.workspaces.get(workspace);
    if (!ws)
      throw notFound(`The workspace "${workspace}"`, 'See `switchboard workspace list` for the workspaces there are.');
    if (actor.kind === 'person' && (await this.orgs.roleIn(actor.personId, ws)) !== 'owner') {
      throw notPermitted(`Only an owner of ${ws.slug} can ${what}; ask one of its owners.`);
    }
    return ws;
  }
}
