import { notFound } from '../errors.ts';
import type { Conversation, InboxItem } from '../messaging/message.ts';
import { atLeast, workspaceRole } from '../organizations/access.ts';
import { GUEST_HANDLE, SYSTEM_HANDLE } from '../organizations/org-service.ts';
import type { Clock, Store } from '../ports.ts';
import type { ExternalSurface } from '../surfaces/surface-ports.ts';
import type { Agent, Workspace, WorkspaceRole } from '../entities.ts';
import {
  atLeastLevel,
  audienceOf,
  changeRefused,
  isWider,
  postRefused,
  publicAudience,
  READ_WINDOW_MS,
  readRefused,
  type Audience,
  type AudienceMember,
} from './audience.ts';
import type { AudienceRead, ChatChannel, ListState, SurfaceAudience } from './audience-ports.ts';

/**
 * Where an agent is about to post: a conversation (with the agents the post brings into it, if any), or the DM `send`
 * will open with these agents.
 */
export type PostTarget = { conversation: Conversation; joining?: Agent[] } | { agents: Agent[] };

/** A chat user with no linked person. */
const UNLINKED: AudienceMember = Object.freeze({ personId: null, role: null });

/** An owner of an agent in a conversation, as the audience counts them. */
type Owner = { ownerId: string; ownerHandle: string };

/**
 * Roles of people in one workspace, looked up once per request and only for
 * the people an audience needs (everyone only for an open web channel), and
 * the chat channels' members the request counted.
 */
class RoleBook {
  private readonly known = new Map<string, WorkspaceRole | null>();
  private all: Promise<Map<string, WorkspaceRole>> | null = null;
  private readonly channels = new Map<string, Promise<AudienceMember[] | null>>();

  constructor(
    private readonly store: Store,
    private readonly ws: Workspace,
  ) {}

  async of(personIds: string[]): Promise<Map<string, WorkspaceRole | null>> {
    const missing = [...new Set(personIds)].filter((id) => !this.known.has(id));
    if (missing.length) {
      const rows = await this.store.audiences.memberships(this.ws.orgId, this.ws.id, missing);
      for (const id of missing) this.known.set(id, null);
      for (const r of rows) this.known.set(r.personId, workspaceRole(this.ws, r.orgRole, r.directRole));
    }
    return this.known;
  }

  everyone(): Promise<Map<string, WorkspaceRole>> {
    return (this.all ??= this.store.workspaces
      .reachablePeople(this.ws)
      .then((people) => new Map(people.map((p) => [p.person.id, p.role]))));
  }

  /** Chat channels' members, each worked out once per request: those not asked for yet, all by one `find`. */
  channelsOf(
    keys: string[],
    find: (missing: string[]) => Promise<Array<AudienceMember[] | null>>,
  ): Promise<Array<AudienceMember[] | null>> {
    const missing = [...new Set(keys)].filter((k) => !this.channels.has(k));
    if (missing.length) {
      const found = find(missing);
      missing.forEach((k, i) =>
        this.channels.set(
          k,
          found.then((all) => all[i]),
        ),
      );
    }
    return Promise.all(keys.map((k) => this.channels.get(k)!));
  }

  async members(personIds: Array<string | null>): Promise<AudienceMember[]> {
    const roles = await this.of(personIds.filter((p): p is string => p !== null));
    return personIds.map((personId) => ({ personId, role: personId ? (roles.get(personId) ?? null) : null }));
  }
}

/**
 * The audience of every conversation, and the rules that follow from it: an
 * agent reads for a conversation only what everyone in it may read, changes
 * only what the person who asked may change, and never posts private content
 * it took in (a document, a restricted channel) where a wider audience reads.
 */
export class AudienceService {
  private readonly surfaces = new Map<ExternalSurface, SurfaceAudience>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** Lets a chat surface say where its conversations live and who is in its channels. */
  register(surface: ExternalSurface, provider: SurfaceAudience): void {
    this.surfaces.set(surface, provider);
  }

  /**
   * The stored copies of chat channels' member lists (and tenants' rosters), in the order asked; null for a list not
   * kept yet. Marks are read only for lists asking for them. A surface's cache of who reads its channels starts here.
   */
  channelStates(
    surface: ExternalSurface,
    lists: Array<ChatChannel & { marks: boolean }>,
  ): Promise<Array<ListState | null>> {
    return this.store.audiences.channelStates(surface, lists);
  }

  /** Keeps a fresh read of a chat channel's members (or a tenant's roster) from the platform, in place of the old copy. */
  putChannelMembers(
    surface: ExternalSurface,
    tenantId: string,
    channelId: string,
    userIds: string[],
    at: Date,
  ): Promise<void> {
    return this.store.audiences.putChannelMembers(surface, tenantId, channelId, userIds, at);
  }

  /** Someone joined or left a chat channel (a platform event); false, and nothing kept, when its members are not kept. */
  memberChanged(
    surface: ExternalSurface,
    tenantId: string,
    channelId: string,
    userId: string,
    joined: boolean,
  ): Promise<boolean> {
    return this.store.audiences.memberChanged(surface, tenantId, channelId, userId, joined);
  }

  /** Forgets a chat channel's kept members (the app left it): its next use reads them again. */
  forgetChannel(surface: ExternalSurface, tenantId: string, channelId: string): Promise<void> {
    return this.store.audiences.forgetChannel(surface, tenantId, channelId);
  }

  /** Forgets the kept members of every chat channel of a tenant (a change that names no channel, such as a team's roster). */
  forgetTenantChannels(surface: ExternalSurface, tenantId: string): Promise<void> {
    return this.store.audiences.forgetTenantChannels(surface, tenantId);
  }

  /** Everyone who reads the conversation, and the least access they hold in its workspace. */
  async of(ws: Workspace, c: Conversation): Promise<Audience> {
    return this.audience(ws, c, new RoleBook(this.store, ws), new Map());
  }

  /**
   * Everyone who reads a chat channel of a surface, with their access in this workspace: its members (a public
   * channel's whole team); unknown (counted as guests) when the surface cannot say.
   */
  async ofChatChannel(ws: Workspace, surface: ExternalSurface, channel: ChatChannel): Promise<Audience> {
    const book = new RoleBook(this.store, ws);
    const members = await this.chatChannelMembers(surface, channel.tenantId, channel.channelId, book);
    return members ? audienceOf(members) : audienceOf([], false);
  }

  /** These people as an audience (null: a chat user with no linked person), with their access in this workspace. */
  async ofPeople(ws: Workspace, personIds: Array<string | null>): Promise<Audience> {
    return audienceOf(await new RoleBook(this.store, ws).members(personIds));
  }

  /** Adds each conversation's audience to inbox items, and notes what an agent took in from restricted channels. */
  async annotate(agent: Agent, ws: Workspace, items: InboxItem[]): Promise<InboxItem[]> {
    if (!items.length) return items;
    const ids = [...new Set(items.map((i) => i.conversation.id))];
    const book = new RoleBook(this.store, ws);
    const [conversations, owners] = await Promise.all([
      this.store.audiences.conversations(ws.id, ids),
      this.ownersOf(ids),
    ]);
    // Every DM's people in one lookup, rather than one per conversation.
    await book.of([...owners.values()].flat().map((o) => o.ownerId));
    // Every chat channel's members at once: a handful of statements however many channels the inbox holds.
    await this.chatChannelsOf(conversations, book);
    const found = new Map<string, Audience>();
    for (const c of conversations) found.set(c.id, await this.audience(ws, c, book, owners));
    await this.noteRestrictedReads(agent, ws, conversations);
    return items.map((i) => ({
      ...i,
      audience: publicAudience(found.get(i.conversation.id) ?? audienceOf([], false)),
    }));
  }

  /** Notes that an agent read messages of these conversations (a search's hits): those of restricted channels count against where it posts. */
  async messagesRead(agent: Agent, ws: Workspace, conversationIds: string[]): Promise<void> {
    if (agent.kind !== 'agent' || !conversationIds.length) return;
    await this.noteRestrictedReads(
      agent,
      ws,
      await this.store.audiences.conversations(ws.id, [...new Set(conversationIds)]),
    );
  }

  private async noteRestrictedReads(agent: Agent, ws: Workspace, conversations: Conversation[]): Promise<void> {
    if (agent.kind !== 'agent') return;
    const now = this.clock.now();
    for (const c of conversations) {
      const restricted = await this.restrictedChannel(ws, c);
      if (restricted) {
        await this.store.audiences.recordRead({
          agentId: agent.id,
          workspaceId: ws.id,
          source: 'conversation',
          sourceId: c.id,
          label: `#${restricted}`,
          forConversationId: null,
          readAt: now,
        });
      }
    }
  }

  /**
   * Records that an agent read a document; with `conversationId` (the conversation
   * it reads for), refuses when someone in that conversation's audience could not read it.
   */
  async documentRead(
    agent: Agent,
    ws: Workspace,
    doc: { id: string; identifier: string },
    conversationId?: string,
  ): Promise<void> {
    if (conversationId) {
      const audience = await this.of(ws, await this.conversationOf(agent, ws, conversationId));
      if (!atLeastLevel(audience.level, 'viewer')) throw readRefused(doc.identifier, audience);
    }
    await this.store.audiences.recordRead({
      agentId: agent.id,
      workspaceId: ws.id,
      source: 'document',
      sourceId: doc.id,
      label: doc.identifier,
      forConversationId: conversationId ?? null,
      readAt: this.clock.now(),
    });
  }

  /** Refuses a change made for a conversation when the person who asked there could not make it themselves (a guest never can). */
  async assertAskerMay(
    agent: Agent,
    ws: Workspace,
    conversationId: string,
    what: string,
    needed: WorkspaceRole = 'editor',
  ): Promise<void> {
    const c = await this.conversationOf(agent, ws, conversationId);
    const last = await this.store.messages.latestReceived(agent.id, c.id);
    const personId = last ? last.askerPersonId : agent.ownerId;
    // No person behind the request (an unlinked guest): nothing is changed on their behalf.
    if (!personId) throw changeRefused(what, { handle: null, role: null, guest: true });
    const [person, roles] = await Promise.all([
      this.store.people.get(personId),
      new RoleBook(this.store, ws).of([personId]),
    ]);
    const role = roles.get(personId) ?? null;
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
    const reads = await this.store.audiences.readsSince(
      sender.id,
      ws.id,
      new Date(this.clock.now().getTime() - READ_WINDOW_MS),
    );
    if (!reads.length) return;
    const book = new RoleBook(this.store, ws);
    const ofAgents = async (agents: Agent[]) =>
      audienceOf(
        await book.members(this.peopleOf(agents.map((a) => ({ ownerId: a.ownerId, ownerHandle: a.ownerHandle })))),
      );
    if ('agents' in target) return this.refuseWider(ws, book, reads, () => ofAgents(target.agents));
    // What was read of the conversation itself, its readers saw already; agents it brings in did not.
    const targetId = target.conversation.id;
    await this.refuseWider(
      ws,
      book,
      reads.filter((r) => !(r.source === 'conversation' && r.sourceId === targetId)),
      () => this.audience(ws, target.conversation, book, new Map()),
    );
    const joining = target.joining ?? [];
    if (joining.length) await this.refuseWider(ws, book, reads, () => ofAgents([sender, ...joining]));
  }

  /** Refuses a post whose audience (worked out only when something was read) is wider than who may see what was read. */
  private async refuseWider(
    ws: Workspace,
    book: RoleBook,
    reads: AudienceRead[],
    audienceFor: () => Promise<Audience>,
  ): Promise<void> {
    if (!reads.length) return;
    const audience = await audienceFor();
    const sources = new Set<string>();
    if (!atLeastLevel(audience.level, 'viewer'))
      for (const r of reads) if (r.source === 'document') sources.add(r.label);
    const channels = new Map(reads.filter((r) => r.source === 'conversation').map((r) => [r.sourceId, r.label]));
    for (const c of await this.store.audiences.conversations(ws.id, [...channels.keys()])) {
      if (isWider(audience, await this.audience(ws, c, book, new Map()))) sources.add(channels.get(c.id)!);
    }
    if (sources.size) throw postRefused([...sources], audience);
  }

  /** Deletes read records too old to matter. */
  forgetOldReads(): Promise<number> {
    return this.store.audiences.forgetReadsBefore(new Date(this.clock.now().getTime() - READ_WINDOW_MS));
  }

  private async audience(
    ws: Workspace,
    c: Conversation,
    book: RoleBook,
    owners: Map<string, Owner[]>,
    depth = 0,
  ): Promise<Audience> {
    if (c.kind === 'external') {
      const surface = c.surface as ExternalSurface;
      const provider = this.surfaces.get(surface);
      const place = provider?.locate(c);
      if (!provider || !place) return audienceOf([], false);
      if (place.kind === 'dm') return audienceOf(await book.members(await this.askers(ws, c)));
      const members = await this.chatChannelMembers(surface, place.tenantId, place.channelId, book);
      return members ? audienceOf(members) : audienceOf([], false);
    }
    if (c.kind === 'channel') {
      const channel = await this.store.chat.channel(ws.id, c.id);
      const web = channel?.restricted
        ? await book.members(await this.store.audiences.webChannelMembers(c.id))
        : [...(await book.everyone()).entries()].map(([personId, role]) => ({ personId, role }));
      // A bridged channel is read on every side: the outside channels' members count too, unless an owner allowed private content there.
      const outside: AudienceMember[] = [];
      for (const b of await this.store.bridges.forChannel(ws.id, c.id)) {
        if (b.allowPrivate) continue;
        const members = await this.chatChannelMembers(b.surface, b.tenantId, b.externalChannelId, book);
        if (!members) return audienceOf([], false);
        outside.push(...members);
      }
      return audienceOf([...web, ...outside]);
    }
    if (c.kind === 'thread' && c.parentId && depth < 2) {
      const parent = await this.store.messages.getConversation(ws.id, c.parentId);
      if (parent) return this.audience(ws, parent, book, owners, depth + 1);
    }
    const list = owners.get(c.id) ?? (await this.ownersOf([c.id])).get(c.id) ?? [];
    return audienceOf(await book.members(this.peopleOf(list)));
  }

  /** Everyone in a Slack or Teams channel as audience members (unlinked ones as guests); null when the members cannot be read. */
  private async chatChannelMembers(
    surface: ExternalSurface,
    tenantId: string,
    channelId: string,
    book: RoleBook,
  ): Promise<AudienceMember[] | null> {
    return (await this.chatChannels(surface, [{ tenantId, channelId }], book))[0];
  }

  /** Works out the members of the chat channels these conversations live in, a look-up per surface for them all. */
  private async chatChannelsOf(conversations: Conversation[], book: RoleBook): Promise<void> {
    const bySurface = new Map<ExternalSurface, ChatChannel[]>();
    for (const c of conversations) {
      if (c.kind !== 'external') continue;
      const place = this.surfaces.get(c.surface as ExternalSurface)?.locate(c);
      if (place?.kind !== 'channel') continue;
      const surface = c.surface as ExternalSurface;
      bySurface.set(surface, [
        ...(bySurface.get(surface) ?? []),
        { tenantId: place.tenantId, channelId: place.channelId },
      ]);
    }
    await Promise.all([...bySurface].map(([surface, channels]) => this.chatChannels(surface, channels, book)));
  }

  /**
   * Everyone in each of these channels of a surface as audience members (unlinked ones as guests), counted in the
   * store; null for a channel whose members cannot be read. Once per channel and request, however many conversations
   * live there, and in a fixed number of statements however many channels are asked for.
   */
  private chatChannels(
    surface: ExternalSurface,
    channels: ChatChannel[],
    book: RoleBook,
  ): Promise<Array<AudienceMember[] | null>> {
    const keyOf = (c: ChatChannel) => JSON.stringify([surface, c.tenantId, c.channelId]);
    const byKey = new Map(channels.map((c) => [keyOf(c), c]));
    return book.channelsOf(channels.map(keyOf), async (keys) => {
      const missing = keys.map((k) => byKey.get(k)!);
      const stored = (await this.surfaces.get(surface)?.members(missing)) ?? missing.map(() => null);
      const known = stored.flatMap((s, i) => (s ? [{ i, tenantId: missing[i].tenantId, s }] : []));
      const counted = await this.store.audiences.readersOf(
        surface,
        known.map(({ tenantId, s }) => ({ tenantId, channelIds: s.lists })),
      );
      const readers = new Map(known.map(({ i }, j) => [i, counted[j]]));
      // Everyone's roles in one look-up.
      await book.of(counted.flatMap((r) => r.personIds));
      return Promise.all(
        stored.map(async (s, i) => {
          const r = readers.get(i);
          return s && r
            ? [
                ...(await book.members(r.personIds)),
                ...Array.from({ length: r.unlinked + s.outsiders }, () => UNLINKED),
              ]
            : null;
        }),
      );
    });
  }

  /** The people behind a conversation among agents: their owners; the guest agent is one unlinked member, Switchboard's own agent nobody. */
  private peopleOf(owners: Owner[]): Array<string | null> {
    const people = new Set<string>();
    let guests = 0;
    for (const o of owners) {
      if (o.ownerHandle === SYSTEM_HANDLE) continue;
      if (o.ownerHandle === GUEST_HANDLE) guests += 1;
      else people.add(o.ownerId);
    }
    return [...people, ...Array.from({ length: guests }, () => null)];
  }

  /** The owners of each conversation's participants; a conversation without any maps to none, so it is not looked up again. */
  private async ownersOf(conversationIds: string[]): Promise<Map<string, Owner[]>> {
    const out = new Map<string, Owner[]>(conversationIds.map((id) => [id, []]));
    for (const r of await this.store.audiences.participantOwners(conversationIds)) {
      out.set(r.conversationId, [...(out.get(r.conversationId) ?? []), r]);
    }
    return out;
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
      throw notFound(
        `The conversation ${id}`,
        'Name a conversation you received a message in (its id is on every inbox item), or leave `conversation` out.',
      );
    }
    return c;
  }
}
