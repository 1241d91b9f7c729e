import { notFound } from '../errors.ts';
import type { InboxItem } from '../messaging/types.ts';
import type { Conversation } from '../messaging/types.ts';
import { atLeast, workspaceRole } from '../organizations/access.ts';
import { GUEST_HANDLE, SYSTEM_HANDLE } from '../organizations/org-service.ts';
import type { Clock, Store } from '../ports.ts';
import type { ExternalSurface } from '../surfaces/ports.ts';
import type { Agent, Workspace, WorkspaceRole } from '../types.ts';
import {
  atLeastLevel, audienceOf, changeRefused, isWider, postRefused, publicAudience, READ_WINDOW_MS, readRefused,
  type Audience, type AudienceMember,
} from './audience.ts';
import type { SurfaceAudience } from './ports.ts';

/** Where an agent is about to post: a conversation, or the DM `send` will open with these agents. */
export type PostTarget = { conversation: Conversation } | { agents: Agent[] };

const EXTERNAL = new Set<string>(['slack', 'teams']);
const NOBODY = audienceOf([]);

/**
 * The audience of every conversation, and the rules that follow from it: an
 * agent reads for a conversation only what everyone in it may read, changes
 * only what the person who asked may change, and never posts private content
 * it took in (a document, a restricted channel) where a wider audience reads.
 */
export class AudienceService {
  private readonly surfaces = new Map<ExternalSurface, SurfaceAudience>();

  constructor(private readonly store: Store, private readonly clock: Clock) {}

  /** Lets a chat surface say where its conversations live and who is in its channels. */
  register(surface: ExternalSurface, provider: SurfaceAudience): void {
    this.surfaces.set(surface, provider);
  }

  /** Everyone who reads the conversation, and the least access they hold in its workspace. */
  async of(ws: Workspace, c: Conversation): Promise<Audience> {
    return this.audience(ws, c, await this.roles(ws));
  }

  private async audience(ws: Workspace, c: Conversation, roles: Map<string, WorkspaceRole>, depth = 0): Promise<Audience> {
    const member = (personId: string | null): AudienceMember => ({ personId, role: personId ? roles.get(personId) ?? null : null });
    if (EXTERNAL.has(c.surface)) {
      const provider = this.surfaces.get(c.surface as ExternalSurface);
      const place = provider?.locate(c);
      if (!provider || !place) return audienceOf([], false);
      if (place.kind === 'dm') return audienceOf((await this.askers(ws, c)).map(member));
      const userIds = await provider.members(place.tenantId, place.channelId);
      if (!userIds) return audienceOf([], false);
      const linked = new Map((await this.store.identities.findMany(c.surface as ExternalSurface, place.tenantId, userIds)).map((i) => [i.externalUserId, i.personId]));
      return audienceOf(userIds.map((u) => member(linked.get(u) ?? null)));
    }
    if (c.kind === 'channel') {
      const channel = await this.store.chat.channel(ws.id, c.id);
      if (channel?.restricted) return audienceOf((await this.store.audiences.webChannelMembers(c.id)).map(member));
      return audienceOf([...roles.keys()].map(member));
    }
    if (c.kind === 'thread' && c.parentId && depth < 2) {
      const parent = await this.store.messages.getConversation(ws.id, c.parentId);
      if (parent) return this.audience(ws, parent, roles, depth + 1);
    }
    return this.ofAgents(await Promise.all((await this.store.messages.participants(c.id)).map((id) => this.store.agents.get(id))), roles);
  }

  /** Adds each conversation's audience to inbox items, and notes what an agent took in from restricted channels. */
  async annotate(agent: Agent, ws: Workspace, items: InboxItem[]): Promise<InboxItem[]> {
    if (!items.length) return items;
    const byConversation = new Map<string, Promise<{ audience: Audience; restricted: string | null }>>();
    const roles = await this.roles(ws);
    const audienceFor = (id: string) => {
      let found = byConversation.get(id);
      if (!found) {
        byConversation.set(id, found = (async () => {
          const c = await this.store.messages.getConversation(ws.id, id);
          if (!c) return { audience: NOBODY, restricted: null };
          return { audience: await this.audience(ws, c, roles), restricted: agent.kind === 'agent' ? await this.restrictedChannel(ws, c) : null };
        })());
      }
      return found;
    };
    const out = await Promise.all(items.map(async (i) => ({ ...i, audience: publicAudience((await audienceFor(i.conversation.id)).audience) })));
    const now = this.clock.now();
    for (const [id, found] of byConversation) {
      const { restricted } = await found;
      if (restricted) {
        await this.store.audiences.recordRead({ agentId: agent.id, workspaceId: ws.id, source: 'conversation', sourceId: id, label: `#${restricted}`, forConversationId: null, readAt: now });
      }
    }
    return out;
  }

  /**
   * Records that an agent read a document; with `conversationId` (the conversation
   * it reads for), refuses when someone in that conversation's audience could not read it.
   */
  async documentRead(agent: Agent, ws: Workspace, doc: { id: string; identifier: string }, conversationId?: string): Promise<void> {
    if (conversationId) {
      const c = await this.conversationOf(agent, ws, conversationId);
      const audience = await this.of(ws, c);
      if (!atLeastLevel(audience.level, 'viewer')) throw readRefused(doc.identifier, audience);
    }
    const now = this.clock.now();
    await this.store.audiences.recordRead({
      agentId: agent.id, workspaceId: ws.id, source: 'document', sourceId: doc.id, label: doc.identifier, forConversationId: conversationId ?? null, readAt: now,
    });
  }

  /** Refuses a change made for a conversation when the person who asked there could not make it themselves (a guest never can). */
  async assertAskerMay(agent: Agent, ws: Workspace, conversationId: string, what: string, needed: WorkspaceRole = 'editor'): Promise<void> {
    const c = await this.conversationOf(agent, ws, conversationId);
    const last = await this.store.messages.latestReceived(agent.id, c.id);
    const asker = last ? { personId: last.askerPersonId, identityId: last.askerIdentityId } : { personId: agent.ownerId, identityId: null };
    // No person behind the request (an unlinked guest): nothing is changed on their behalf.
    if (!asker.personId) throw changeRefused(what, { handle: null, role: null, guest: true });
    const [person, role] = await Promise.all([this.store.people.get(asker.personId), this.roleOf(ws, asker.personId)]);
    if (!atLeast(role, needed)) throw changeRefused(what, { handle: person?.handle ?? null, role, guest: false });
  }

  /**
   * Refuses an agent's post when, in the last few minutes, it read something
   * whose audience is narrower than where the post goes: documents into a
   * conversation where someone could not read them, a restricted channel's
   * messages into a conversation with people outside that channel.
   */
  async checkPost(sender: Agent, ws: Workspace, target: PostTarget): Promise<void> {
    if (sender.kind !== 'agent') return;
    const now = this.clock.now();
    const targetId = 'conversation' in target ? target.conversation.id : null;
    const reads = (await this.store.audiences.readsSince(sender.id, ws.id, new Date(now.getTime() - READ_WINDOW_MS)))
      .filter((r) => !(r.source === 'conversation' && r.sourceId === targetId));
    if (!reads.length) return;
    const roles = await this.roles(ws);
    const audience = 'conversation' in target ? await this.audience(ws, target.conversation, roles) : this.ofAgents(target.agents, roles);
    const sources = new Set<string>();
    if (!atLeastLevel(audience.level, 'viewer')) for (const r of reads) if (r.source === 'document') sources.add(r.label);
    const channels = new Map(reads.filter((r) => r.source === 'conversation').map((r) => [r.sourceId, r.label]));
    for (const [id, label] of channels) {
      const c = await this.store.messages.getConversation(ws.id, id);
      if (c && isWider(audience, await this.audience(ws, c, roles))) sources.add(label);
    }
    if (sources.size) throw postRefused([...sources], audience);
  }

  /** Deletes read records too old to matter. */
  forgetOldReads(): Promise<number> {
    return this.store.audiences.forgetReadsBefore(new Date(this.clock.now().getTime() - READ_WINDOW_MS));
  }

  /** The owners of agents in a conversation among agents; the guest agent is an unlinked member, Switchboard's own agent nobody. */
  private ofAgents(agents: Array<Agent | null>, roles: Map<string, WorkspaceRole>): Audience {
    const members = new Map<string, AudienceMember>();
    let guests = 0;
    for (const a of agents) {
      if (!a || a.ownerHandle === SYSTEM_HANDLE) continue;
      if (a.ownerHandle === GUEST_HANDLE) guests += 1;
      else members.set(a.ownerId, { personId: a.ownerId, role: roles.get(a.ownerId) ?? null });
    }
    return audienceOf([...members.values(), ...Array.from({ length: guests }, () => ({ personId: null, role: null }))]);
  }

  /** The chat users who wrote in a DM with the app (normally one), as their linked people. */
  private async askers(ws: Workspace, c: Conversation): Promise<Array<string | null>> {
    const messages = await this.store.messages.listConversation(ws.id, c.id, 200);
    const identityIds = [...new Set(messages.map((m) => m.askerIdentityId).filter((id): id is string => Boolean(id)))];
    const identities = await Promise.all(identityIds.map((id) => this.store.identities.get(id)));
    return identities.map((i) => i?.personId ?? null);
  }

  /** The restricted web channel a conversation is (or hangs off); null otherwise. */
  private async restrictedChannel(ws: Workspace, c: Conversation): Promise<string | null> {
    const channelId = c.kind === 'channel' ? c.id : c.kind === 'thread' ? c.parentId : null;
    const channel = channelId ? await this.store.chat.channel(ws.id, channelId) : null;
    return channel?.restricted ? channel.name : null;
  }

  private async conversationOf(agent: Agent, ws: Workspace, id: string): Promise<Conversation> {
    const c = await this.store.messages.getConversation(ws.id, id);
    if (!c || !(await this.store.messages.participants(c.id)).includes(agent.id)) {
      throw notFound(`The conversation ${id}`, 'Name a conversation you received a message in (its id is on every inbox item), or leave `conversation` out.');
    }
    return c;
  }

  private async roleOf(ws: Workspace, personId: string): Promise<WorkspaceRole | null> {
    const [m, direct] = await Promise.all([this.store.orgs.member(ws.orgId, personId), this.store.workspaces.directRole(ws.id, personId)]);
    return workspaceRole(ws, m?.role ?? null, direct);
  }

  private async roles(ws: Workspace): Promise<Map<string, WorkspaceRole>> {
    return new Map((await this.store.workspaces.reachablePeople(ws.id)).map((p) => [p.person.id, p.role]));
  }
}
