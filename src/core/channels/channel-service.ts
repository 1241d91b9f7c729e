// Switchboard's own chat: channels, DMs and threads of a workspace, as a
// signed-in person (a Viewer) uses them. Who may see and write what, creating
// and joining channels, posting through the one inbound pipeline, editing and
// deleting one's own messages (their mirrors and platform posts follow), and
// reading what a person may read. It returns stored shapes; the web chat
// (src/surfaces/web/pages) turns them into what its page shows.
import type { AgentService } from '../agents/agent-service.ts';
import type { Bridge } from '../bridges/bridge.ts';
import { queueMirrorChanges } from '../bridges/mirror-out.ts';
import { queuePostChange } from '../delivery/post-change.ts';
import { invalidInput, notFound, notPermitted, SwitchboardError } from '../errors.ts';
import { parseMentions } from '../format/mentions.ts';
import { followChatEdit } from '../intake/intake-service.ts';
import type { RecipientResult } from '../messaging/messaging-service.ts';
import { label } from '../messaging/rules.ts';
import type { Conversation, Message } from '../messaging/message.ts';
import type { OrgService } from '../organizations/org-service.ts';
import { historyCutoff, planLimits } from '../organizations/plans.ts';
import type { Clock, Notifier, Store } from '../ports.ts';
import type { DeliverKnown, SurfacePort } from '../surfaces/inbound.ts';
import { type Agent, WEB_CHAT } from '../entities.ts';
import { ChatAccess, channelKey, GENERAL, type Viewer } from './access.ts';
import { announceChange, chatPersonTopic, chatWorkspaceTopic } from './changes.ts';
import { type SurfaceLabelOf, type ViaOf, viaFrom } from './origin.ts';
import type { Channel, InboxEntry, Reaction, ThreadSummary } from './channel-ports.ts';
import { ChatReactions } from './reactions.ts';
import { threadOf } from './thread-of.ts';
import { threadRoot } from './threads.ts';

const CHANNEL_NAME = /^[a-z0-9][a-z0-9_-]{0,39}$/;
/** How many pages of matches a search reads at most to find a full page the viewer may see. */
const SEARCH_PAGES = 10;

/** What a post did: the stored message (null when nothing was stored), who got it, and mentions that reached nobody. */
export interface Posted {
  message: Message | null;
  recipients: RecipientResult[];
  /** Mentions that reached nobody, each with why (typo, ambiguous name…). */
  notices: string[];
}

/** A search hit the viewer may read: the message, the words around the match, and its conversation. */
export interface ChannelSearchHit {
  message: Message;
  snippet: string;
  conversation: Conversation;
}

/** What a person has in a workspace: channels they may see, their DMs and linked threads, and unread counts. */
export interface Overview {
  channels: Array<Channel & { member: boolean; unread: number }>;
  conversations: Array<Conversation & { lastMessageAt: Date | null; unread: number }>;
  /** Unread deliveries to the viewer (mentions, DMs, replies). */
  inboxUnread: number;
}

/** Channels, DMs and threads of Switchboard's own chat, for a signed-in person. */
export class ChannelService {
  /** Who may see and write what; a conversation one may not see is reported as absent. */
  readonly access: ChatAccess;
  /** Where a message was written ("Slack"; null for the web chat and agents). */
  readonly via: ViaOf;
  private readonly reactions: ChatReactions;

  constructor(
    private readonly store: Store,
    orgs: OrgService,
    private readonly agents: AgentService,
    private readonly notifier: Notifier,
    private readonly clock: Clock,
    /** The one inbound pipeline, which routes and delivers what people post (InboundService). */
    private readonly inbound: { deliverKnown: DeliverKnown },
    /** Each chat app's name as its surface registered it, for "written in Slack" refusals and views. */
    labelOf: SurfaceLabelOf,
  ) {
    this.via = viaFrom(labelOf);
    this.access = new ChatAccess(store, orgs, clock);
    this.reactions = new ChatReactions(store, this.access, notifier);
  }

  /** The person in the workspace (by id or slug); NOT_FOUND when either is absent or they cannot reach it. */
  viewer(personId: string, workspace: string): Promise<Viewer> {
    return this.access.viewer(personId, workspace);
  }

  /** Channels the viewer may see (#general created on first use), their DMs and linked threads, with unread counts. */
  async overview(v: Viewer): Promise<Overview> {
    await this.access.ensureGeneral(v.workspace);
    const [all, convs, inboxUnread] = await Promise.all([
      this.store.chat.listChannels(v.workspace.id, v.person.id),
      this.store.chat.conversationsOf(v.agent.id, v.workspace.id, ['dm', 'external']),
      this.store.messages.unreadCount(v.agent.id, v.workspace.id),
    ]);
    const channels = all
      .map((c) => ({ ...c, member: c.member || c.name === GENERAL }))
      .filter((c) => !c.restricted || c.member);
    const unread = await this.store.chat.unreadCounts(v.person.id, v.agent.id, [
      ...channels.filter((c) => c.member).map((c) => c.conversationId),
      ...convs.map((c) => c.id),
    ]);
    return {
      channels: channels.map((c) => ({ ...c, unread: c.member ? (unread.get(c.conversationId) ?? 0) : 0 })),
      conversations: convs.map((c) => ({ ...c, unread: unread.get(c.id) ?? 0 })),
      inboxUnread,
    };
  }

  /** Every conversation whose live updates the viewer should get: visible channels, their DMs, and threads under those. */
  async watched(v: Viewer): Promise<string[]> {
    const [channels, convs] = await Promise.all([
      this.store.chat.listChannels(v.workspace.id, v.person.id),
      this.store.chat.conversationsOf(v.agent.id, v.workspace.id, ['dm', 'external', 'thread']),
    ]);
    const visible = channels.filter((c) => !c.restricted || c.member).map((c) => c.conversationId);
    const mine = convs.map((c) => c.id);
    const threads = await this.store.chat.threadsUnder(v.workspace.id, [...visible, ...mine]);
    return [...new Set([...visible, ...mine, ...threads])];
  }

  async createChannel(
    v: Viewer,
    input: { name: string; restricted?: boolean; description?: string },
  ): Promise<Channel> {
    const name = input.name.trim().replace(/^#/, '').toLowerCase();
    if (!CHANNEL_NAME.test(name)) {
      throw invalidInput(
        `"${input.name}" is not a valid channel name: use 1–40 lowercase letters, digits, dashes or underscores.`,
      );
    }
    const ws = v.workspace;
    const channel = await this.store.transaction(async (tx) => {
      if (await tx.chat.channelByName(ws.id, name))
        throw new SwitchboardError(
          'CONFLICT',
          `There is already a channel #${name} in this workspace; join it or pick another name.`,
        );
      const conv = await tx.messages.conversation({
        workspaceId: ws.id,
        kind: 'channel',
        key: channelKey(name),
        title: name,
        surface: WEB_CHAT,
      });
      const ch = await tx.chat.createChannel({
        conversationId: conv.id,
        workspaceId: ws.id,
        name,
        restricted: Boolean(input.restricted),
        description: (input.description ?? '').trim().slice(0, 250),
        createdBy: v.person.id,
      });
      await tx.chat.addChannelMember(conv.id, v.person.id);
      return ch;
    });
    await this.notifier.publish(chatWorkspaceTopic(ws.id), `channel:${channel.conversationId}`);
    return channel;
  }

  /** Joins an open channel (restricted ones take members only when a member adds them). */
  async join(v: Viewer, conversationId: string) {
    const ch = await this.access.channel(v, conversationId);
    await this.store.chat.addChannelMember(ch.conversationId, v.person.id);
    await this.access.markRead(v, ch.conversationId);
    await this.notifier.publish(chatPersonTopic(v.person.id), ch.conversationId);
    return ch;
  }

  async leave(v: Viewer, conversationId: string) {
    const ch = await this.access.channel(v, conversationId);
    if (ch.name === GENERAL)
      throw invalidInput('Everyone in the workspace stays in #general; mute it by not opening it.');
    await this.store.chat.removeChannelMember(ch.conversationId, v.person.id);
  }

  /** Adds someone who can reach the workspace to a channel the viewer is in. */
  async addMember(v: Viewer, conversationId: string, handle: string) {
    const ch = await this.access.channel(v, conversationId);
    if (!ch.member) throw invalidInput(`Join #${ch.name} before adding people to it.`);
    const person = await this.store.people.get(handle.replace(/^@/, ''));
    const role = person
      ? await this.access.viewer(person.id, v.workspace.id).then(
          () => true,
          () => false,
        )
      : false;
    if (!person || !role)
      throw notFound(
        `@${handle.replace(/^@/, '')} in this workspace`,
        'Only people who can reach the workspace can join its channels.',
      );
    await this.store.chat.addChannelMember(ch.conversationId, person.id);
    await this.notifier.publish(chatPersonTopic(person.id), ch.conversationId);
    return { channel: ch, person };
  }

  /** The DM between the viewer and another agent or person of the workspace (created on first use). */
  async openDm(v: Viewer, agentId: string): Promise<Conversation> {
    const directory = await this.agents.directory(v.workspace);
    const other = directory.find((d) => d.agent.id === agentId);
    if (!other)
      throw notFound('That agent or person in this workspace', 'Pick someone from the agents page or the people list.');
    if (other.agent.id === v.agent.id)
      throw invalidInput('A DM needs someone else; write in a channel or start a DM with an agent.');
    const ids = [v.agent.id, other.agent.id].sort();
    const conv = await this.store.messages.conversation({
      workspaceId: v.workspace.id,
      kind: 'dm',
      key: `dm:${ids.join(',')}`,
      title: [v.agent, other.agent].map(label).join(', '),
      surface: WEB_CHAT,
    });
    await this.store.messages.addParticipants(conv.id, ids);
    await this.notifier.publish(chatPersonTopic(v.person.id), conv.id);
    return conv;
  }

  /** The thread started from a message the viewer can see (created on first use). */
  async openThread(v: Viewer, rootMessageId: string): Promise<Conversation> {
    const root = await this.store.messages.get(v.workspace.id, rootMessageId);
    if (!root) throw notFound(`The message ${rootMessageId}`, 'It may have been deleted with old history.');
    const parent = await this.access.conversation(v, root.conversationId);
    if (parent.kind === 'thread') throw invalidInput('Threads do not nest; reply in this thread instead.');
    return threadOf(this.store, this.notifier, root, parent);
  }

  /**
   * A conversation's `limit` newest messages (oldest first), the threads started from them, and for a thread the
   * message it started from; marks the conversation read. NOT_FOUND when the viewer may not read it.
   */
  async history(
    v: Viewer,
    conversationId: string,
    limit: number,
  ): Promise<{ conversation: Conversation; messages: Message[]; threads: ThreadSummary[]; root: Message | null }> {
    const c = await this.access.conversation(v, conversationId);
    const messages = await this.store.messages.listConversation(v.workspace.id, c.id, limit);
    const threads =
      c.kind === 'thread'
        ? []
        : await this.store.chat.threads(
            v.workspace.id,
            messages.map((m) => m.id),
          );
    const rootId = threadRoot(c);
    const root = rootId ? await this.store.messages.get(v.workspace.id, rootId) : null;
    await this.access.markRead(v, c.id);
    return { conversation: c, messages, threads, root };
  }

  /** One message with its conversation; null when it is absent or the viewer may not read it (for live updates). */
  async visibleMessage(v: Viewer, messageId: string): Promise<{ message: Message; conversation: Conversation } | null> {
    const message = await this.store.messages.get(v.workspace.id, messageId);
    if (!message) return null;
    const conversation = await this.visibleConversation(v, message.conversationId);
    return conversation && { message, conversation };
  }

  /** The conversation, when it is in the viewer's workspace and they may read it; null otherwise. */
  async visibleConversation(v: Viewer, conversationId: string): Promise<Conversation | null> {
    const c = await this.store.messages.getConversation(v.workspace.id, conversationId);
    return c && (await this.access.canSee(v, c)) ? c : null;
  }

  /** A conversation of the workspace whoever may read it (callers apply their own rule); null when absent. */
  conversationIn(workspaceId: string, conversationId: string): Promise<Conversation | null> {
    return this.store.messages.getConversation(workspaceId, conversationId);
  }

  /** A message of the workspace whoever may read it (callers apply their own rule); null when absent. */
  messageIn(workspaceId: string, messageId: string): Promise<Message | null> {
    return this.store.messages.get(workspaceId, messageId);
  }

  /** The channel behind a conversation, with whether the viewer is in it and what it is bridged with; null for other conversations. */
  async channelOf(v: Viewer, c: Conversation): Promise<(Channel & { member: boolean; bridges: Bridge[] }) | null> {
    const ch = c.kind === 'channel' ? await this.store.chat.channel(v.workspace.id, c.id) : null;
    if (!ch) return null;
    const [member, bridges] = await Promise.all([
      this.access.isMember(v, ch),
      this.store.bridges.forChannel(v.workspace.id, ch.conversationId),
    ]);
    return { ...ch, member, bridges };
  }

  /** The others in a conversation besides the viewer's person agent, as agents (null for one that is gone). */
  async others(v: Viewer, c: Conversation): Promise<Array<Agent | null>> {
    const ids = (await this.store.messages.participants(c.id)).filter((id) => id !== v.agent.id);
    return Promise.all(ids.map((id) => this.store.agents.get(id)));
  }

  /**
   * Posts as the viewer's person agent through the one inbound pipeline, as `port` (the web chat's) names it: in a
   * channel or thread, `@name` mentions deliver the message to those agents and people; in a DM it goes to the others
   * in it. Marks the conversation read.
   */
  async post(port: SurfacePort, v: Viewer, conversationId: string, body: string): Promise<Posted> {
    const c = await this.access.writable(v, conversationId);
    const { result: sent, notices } = await this.inbound.deliverKnown(port, {
      workspace: v.workspace,
      sender: v.agent,
      conversation: c,
      text: body,
      names: parseMentions(body),
    });
    await this.access.markRead(v, c.id);
    return { message: sent.message, recipients: sent.recipients, notices };
  }

  /**
   * Replaces the text of one of the viewer's own messages written here and returns it. Who got it keeps it (with the
   * new text); mentions added by the edit reach nobody.
   */
  async edit(v: Viewer, messageId: string, body: string): Promise<Message> {
    const { m, c } = await this.ownMessage(v, messageId, 'edit');
    // Our mirrors in bridged channels, and its post in an external thread, follow through the outbox
    // (bridges/mirror-out.ts, delivery/post-change.ts).
    await this.store.transaction(async (tx) => {
      await tx.messages.edit(v.workspace.id, m.id, body, this.clock.now());
      await queueMirrorChanges(tx, m, 'edit');
      await queuePostChange(tx, m, c, 'edit');
      // Intake's copies of it (source excerpts, an automatic item's title and summary) follow.
      await followChatEdit(tx, m, body, this.clock.now());
    });
    await announceChange(this.notifier, m.conversationId, m.id, 'changed');
    return (await this.store.messages.get(v.workspace.id, m.id)) ?? m;
  }

  /** Deletes one of the viewer's own messages written here, with its reactions; its thread, if any, stays. */
  async remove(v: Viewer, messageId: string): Promise<void> {
    const { m, c } = await this.ownMessage(v, messageId, 'delete');
    await this.store.transaction(async (tx) => {
      // Queued before the message and its map rows go.
      await queueMirrorChanges(tx, m, 'delete');
      // With the platform's id as the delete found it: a post job may have recorded it since `m` was read.
      const gone = await tx.messages.remove(v.workspace.id, m.id);
      if (gone) await queuePostChange(tx, gone, c, 'delete');
      await followChatEdit(tx, m, null, this.clock.now());
    });
    await announceChange(this.notifier, m.conversationId, m.id, 'deleted');
  }

  /** A message the viewer wrote in the web chat, with the conversation it is in, which they may still write in. */
  private async ownMessage(v: Viewer, messageId: string, what: 'edit' | 'delete') {
    const m = await this.store.messages.get(v.workspace.id, messageId);
    if (!m) throw notFound(`The message ${messageId}`, 'It may have been deleted already; reload the conversation.');
    const c = await this.access.writable(v, m.conversationId);
    if (m.senderId !== v.agent.id) throw notPermitted(`You can only ${what} your own messages.`);
    const via = this.via(m.surface);
    if (via) throw notPermitted(`This message was written in ${via}; ${what} it there.`);
    return { m, c };
  }

  /**
   * Gives (`on`) or takes back the viewer's `emoji` on a message they may post next to (see ChatReactions); returns
   * the message's reactions, oldest first.
   */
  react(v: Viewer, messageId: string, emoji: string, on: boolean): Promise<Reaction[]> {
    return this.reactions.set(v, messageId, emoji, on);
  }

  /** The reactions of these messages of the workspace, oldest first. */
  reactionsOf(workspaceId: string, messageIds: string[]): Promise<Reaction[]> {
    return messageIds.length ? this.store.reactions.of(workspaceId, messageIds) : Promise.resolve([]);
  }

  /**
   * Up to `limit` messages the viewer may read that match `text`, best first, within the plan's history. Matches are
   * read a page at a time and those in conversations the viewer cannot read skipped: the next page is read while the
   * page was full and too few were visible (at most SEARCH_PAGES pages).
   */
  async search(v: Viewer, text: string, limit: number): Promise<ChannelSearchHit[]> {
    const q = text.trim();
    if (!q) throw invalidInput('Type something to search for.');
    const org = (await this.store.orgs.get(v.workspace.orgId))!;
    const since = historyCutoff(planLimits(org.plan, org.licensedMessages), this.clock.now());
    const seen = new Map<string, Promise<Conversation | null>>();
    const visible = (id: string) => {
      let p = seen.get(id);
      if (!p) seen.set(id, (p = this.visibleConversation(v, id)));
      return p;
    };
    const out: ChannelSearchHit[] = [];
    const page = limit * 4;
    for (let n = 0; n < SEARCH_PAGES && out.length < limit; n++) {
      const hits = await this.store.messages.search({
        workspaceId: v.workspace.id,
        text: q,
        agentId: null,
        since,
        limit: page,
        offset: n * page,
      });
      for (const h of hits) {
        const conversation = await visible(h.message.conversationId);
        if (!conversation) continue;
        out.push({ message: h.message, snippet: h.snippet, conversation });
        if (out.length >= limit) break;
      }
      if (hits.length < page) break;
    }
    return out;
  }

  /**
   * Page `page` (1 holds the newest) of `size` deliveries to the viewer in this workspace (mentions, DMs, replies),
   * newest first, and whether older pages follow. Only what it returns is marked read: unread deliveries on other
   * pages stay counted until their page is read.
   */
  async inbox(v: Viewer, page: number, size: number): Promise<{ entries: InboxEntry[]; older: boolean }> {
    // One more than a page is read to know whether an older page follows.
    const read = await this.store.chat.inbox(v.agent.id, v.workspace.id, size + 1, (page - 1) * size);
    const entries = read.slice(0, size);
    const shown = entries.filter((e) => e.readAt === null).map((e) => e.message.id);
    await this.store.chat.markDeliveriesRead(v.agent.id, v.workspace.id, this.clock.now(), undefined, shown);
    return { entries, older: read.length > size };
  }
}
