import type { AgentService } from '../agents/agent-service.ts';
import { invalidInput, notFound, notPermitted, SwitchboardError } from '../errors.ts';
import { label } from '../messaging/rules.ts';
import type { RecipientResult } from '../messaging/messaging-service.ts';
import type { Conversation, Message } from '../messaging/types.ts';
import type { OrgService } from '../organizations/org-service.ts';
import { historyCutoff, planLimits } from '../organizations/plans.ts';
import type { Clock, Notifier, Store } from '../ports.ts';
import type { DeliverKnown, SurfacePort } from '../surfaces/inbound.ts';
import type { Workspace } from '../types.ts';
import { ChatAccess, channelKey, GENERAL, type Viewer } from './access.ts';
import { excerpt, markedSnippet } from '../format/markdown.ts';
import { parseMentions } from '../format/mentions.ts';
import type { Channel, RenderMessage } from './ports.ts';
import { sidebar, watchedConversations, type Sidebar } from './sidebar.ts';
import {
  conversationView,
  SenderCache,
  senderViewOf,
  threadKey,
  threadRoot,
  viaFrom,
  type ChatMessage,
  type ConversationView,
  type InboxPage,
  type SearchResult,
  type SurfaceLabelOf,
  type ViaOf,
} from './views.ts';
import { httpUrlOrNull } from '../safe-text.ts';
import { announceChange } from './changes.ts';
import { ChatReactions } from './reactions.ts';
import { queueMirrorChanges } from '../bridges/mirror-out.ts';
import { queuePostChange } from '../delivery/post-change.ts';
import { followChatEdit } from '../intake/intake-service.ts';

const CHANNEL_NAME = /^[a-z0-9][a-z0-9_-]{0,39}$/;

/**
 * Whether a search snippet leaves out words before or after it. The database
 * drops the message's markup from the snippet (tags, and markedSnippet its
 * Markdown), so the message is compared the same way, as plain words.
 */
export function snippetCut(body: string, snippet: string): { before: boolean; after: boolean } {
  const words = (s: string) =>
    s
      .replace(/<[^>]*>/g, ' ')
      .replace(/\*\*/g, '')
      .replace(/\s+/g, ' ')
      .trim();
  const whole = words(markedSnippet(body));
  const part = words(snippet);
  return { before: !whole.startsWith(part), after: !whole.endsWith(part) };
}
export const HISTORY_PAGE = 200;
/** How many items a page of the web inbox holds. */
export const INBOX_PAGE = 50;

/** Structural changes of a workspace's web chat (a channel or thread appeared); the payload is `kind:id`. */
export const chatWorkspaceTopic = (workspaceId: string) => `web:workspace:${workspaceId}`;
/** How many pages of matches a web search reads at most to find a full page the viewer may see. */
const SEARCH_PAGES = 10;

/** Changes that concern one person only (they joined a channel or opened a DM); the payload is a conversation id. */
export const chatPersonTopic = (personId: string) => `web:person:${personId}`;
/** Published on a person's topic when their web sessions ended (signed out, password changed): open event streams check theirs. */
export const SESSIONS_CHANGED = 'sessions-changed';

/** The web thread under a message (created on first use, announced so open web chats follow it). */
export async function threadOf(
  store: Store,
  notifier: Notifier,
  root: Message,
  parent: Conversation,
): Promise<Conversation> {
  const existing = await store.messages.findConversation(root.workspaceId, threadKey(root.id));
  if (existing) return existing;
  const conv = await store.messages.conversation({
    workspaceId: root.workspaceId,
    kind: 'thread',
    key: threadKey(root.id),
    title: excerpt(root.body, 60),
    surface: 'web',
    parentId: parent.id,
  });
  await notifier.publish(chatWorkspaceTopic(root.workspaceId), `thread:${conv.id}`);
  return conv;
}

export interface PostResult {
  message: ChatMessage | null;
  recipients: RecipientResult[];
  /** Mentions that reached nobody, each with why (typo, ambiguous name…). */
  notices: string[];
}

/** The web chat: channels, DMs, threads, posting with @mentions, reading and searching what a person can see. */
export class ChatService {
  readonly access: ChatAccess;
  readonly reactions: ChatReactions;
  /** Where a message was written, as the web chat shows it ("Slack"; null for the web chat and agents). */
  readonly via: ViaOf;

  constructor(
    private readonly store: Store,
    orgs: OrgService,
    private readonly agents: AgentService,
    private readonly notifier: Notifier,
    private readonly clock: Clock,
    private readonly render: RenderMessage,
    /** The one inbound pipeline, which routes and delivers what people post (InboundService). */
    private readonly inbound: { deliverKnown: DeliverKnown },
    /** The web chat's surface port for a workspace (src/surfaces/web/port.ts). */
    private readonly port: (ws: Workspace) => SurfacePort,
    /** Each chat app's name as its surface registered it, for "via Slack" on its messages. */
    labelOf: SurfaceLabelOf,
  ) {
    this.via = viaFrom(labelOf);
    this.access = new ChatAccess(store, orgs, clock);
    this.reactions = new ChatReactions(store, this.access, notifier);
  }

  /** Sender views for one viewer (whose reactions count as `mine`). */
  private senders(v: Viewer): SenderCache {
    return new SenderCache(this.store, this.render, this.via, v.agent.id);
  }

  viewer(personId: string, workspace: string) {
    return this.access.viewer(personId, workspace);
  }

  /** Channels, DMs and unread counts for the left column. */
  sidebar(v: Viewer): Promise<Sidebar> {
    return sidebar(this.store, this.access, (viewer, c) => this.title(viewer, c), v);
  }

  /** Conversations whose live updates the viewer should receive. */
  watched(v: Viewer): Promise<string[]> {
    return watchedConversations(this.store, v);
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
        surface: 'web',
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
      surface: 'web',
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

  /** A conversation's recent messages (oldest first) with thread counts; marks it read. */
  async history(
    v: Viewer,
    conversationId: string,
    limit = HISTORY_PAGE,
  ): Promise<{ conversation: ConversationView; messages: ChatMessage[]; root: ChatMessage | null }> {
    const c = await this.access.conversation(v, conversationId);
    const senders = this.senders(v);
    const list = await this.store.messages.listConversation(v.workspace.id, c.id, limit);
    const threads =
      c.kind === 'thread'
        ? []
        : await this.store.chat.threads(
            v.workspace.id,
            list.map((m) => m.id),
          );
    const rootId = threadRoot(c);
    const root = rootId ? await this.store.messages.get(v.workspace.id, rootId) : null;
    const [messages, rootView, view] = await Promise.all([
      senders.views(list, threads),
      root ? senders.views([root]).then((r) => r[0]) : null,
      this.view(v, c),
    ]);
    await this.access.markRead(v, c.id);
    return { conversation: view, messages, root: rootView };
  }

  /** One message as the viewer sees it; null when they may not see it (for live updates). */
  async message(
    v: Viewer,
    messageId: string,
  ): Promise<{ message: ChatMessage; conversation: ConversationView } | null> {
    const m = await this.store.messages.get(v.workspace.id, messageId);
    if (!m) return null;
    const c = await this.store.messages.getConversation(v.workspace.id, m.conversationId);
    if (!c || !(await this.access.canSee(v, c))) return null;
    const [message] = await this.senders(v).views([m]);
    return { message, conversation: await this.view(v, c) };
  }

  async view(v: Viewer, c: Conversation): Promise<ConversationView> {
    const ch = c.kind === 'channel' ? await this.store.chat.channel(v.workspace.id, c.id) : null;
    const bridges = ch
      ? (await this.store.bridges.forChannel(v.workspace.id, ch.conversationId)).map((b) => ({
          surface: this.via(b.surface) ?? b.surface,
          title: b.title || b.externalChannelId,
        }))
      : [];
    return conversationView(
      c,
      await this.title(v, c),
      ch ? { ...ch, member: await this.access.isMember(v, ch), bridges } : null,
    );
  }

  /** `#name` for a channel; for a DM, the others in it. */
  async title(v: Viewer, c: Conversation): Promise<string> {
    if (c.kind === 'channel') return `#${c.title}`;
    if (c.kind !== 'dm') return c.title || 'Conversation';
    const ids = (await this.store.messages.participants(c.id)).filter((id) => id !== v.agent.id);
    const names = await Promise.all(ids.map(async (id) => (await this.store.agents.get(id))?.displayName ?? 'someone'));
    return names.join(', ') || 'Just you';
  }

  /**
   * Posts as the viewer's person agent, through the one inbound pipeline: in a
   * channel or thread, `@name` mentions deliver the message to those agents and
   * people; in a DM it goes to the others in it.
   */
  async post(v: Viewer, conversationId: string, body: string): Promise<PostResult> {
    const c = await this.access.writable(v, conversationId);
    const { result: sent, notices } = await this.inbound.deliverKnown(this.port(v.workspace), {
      workspace: v.workspace,
      sender: v.agent,
      conversation: c,
      text: body,
      names: parseMentions(body),
    });
    await this.access.markRead(v, c.id);
    const [message] = sent.message ? await this.senders(v).views([sent.message]) : [null];
    return { message, recipients: sent.recipients, notices };
  }

  /**
   * Replaces the text of one of the viewer's own messages written here. Who
   * got it keeps it (with the new text); mentions added by the edit reach nobody.
   */
  async edit(v: Viewer, messageId: string, body: string): Promise<ChatMessage> {
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
    const [view] = await this.senders(v).views([(await this.store.messages.get(v.workspace.id, m.id)) ?? m]);
    return view;
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

  /** Messages the viewer can see that match `text`, best first, within the plan's history (see SEARCH_PAGES). */
  async search(v: Viewer, text: string, limit = 30): Promise<SearchResult[]> {
    const q = text.trim();
    if (!q) throw invalidInput('Type something to search for.');
    const org = (await this.store.orgs.get(v.workspace.orgId))!;
    const since = historyCutoff(planLimits(org.plan, org.licensedMessages), this.clock.now());
    const seen = new Map<string, Promise<ConversationView | null>>();
    const viewOf = (id: string) => {
      if (!seen.has(id)) {
        seen.set(
          id,
          this.store.messages
            .getConversation(v.workspace.id, id)
            .then(async (c) => (c && (await this.access.canSee(v, c)) ? this.view(v, c) : null)),
        );
      }
      return seen.get(id)!;
    };
    const senders = this.senders(v);
    const out: SearchResult[] = [];
    // Matches come best first, a page at a time, and those in conversations the viewer cannot read are skipped: the
    // next page is read while the page was full and too few were visible (at most SEARCH_PAGES pages).
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
        const conversation = await viewOf(h.message.conversationId);
        if (!conversation) continue;
        // A thread is named after its first words; the hit also names the channel or DM it hangs off.
        const parent = conversation.parentId ? await viewOf(conversation.parentId) : null;
        const [m] = await senders.views([h.message]);
        out.push({
          ...m,
          snippet: h.snippet,
          cut: snippetCut(m.body, h.snippet),
          conversation,
          parent: parent && { id: parent.id, kind: parent.kind, title: parent.title },
        });
        if (out.length >= limit) break;
      }
      if (hits.length < page) break;
    }
    return out;
  }

  /**
   * One page of the viewer's inbox in this workspace (the first holds the newest): what was delivered to them
   * (mentions, DMs, replies), newest first, and whether older pages follow. Only what it returns is marked read:
   * unread deliveries on other pages stay counted on the badge until their page is shown.
   */
  async inbox(v: Viewer, page = 1, size = INBOX_PAGE): Promise<InboxPage> {
    // One more than a page is read to know whether an older page follows.
    const read = await this.store.chat.inbox(v.agent.id, v.workspace.id, size + 1, (page - 1) * size);
    const entries = read.slice(0, size);
    const items = entries.map((e) => ({
      kind: e.conversation.kind === 'dm' ? ('dm' as const) : ('mention' as const),
      message: {
        id: e.message.id,
        conversationId: e.message.conversationId,
        body: e.message.body,
        html: this.render(e.message.body),
        createdAt: e.message.createdAt,
        surface: e.message.surface,
        via: this.via(e.message.surface),
        permalink: httpUrlOrNull(e.message.permalink),
        thread: null,
        editedAt: e.message.editedAt ?? null,
        reactions: [],
        sender: senderViewOf(e.sender),
      } satisfies ChatMessage,
      conversation: {
        id: e.conversation.id,
        kind: e.conversation.kind,
        title: e.conversation.title,
        parentId: e.conversation.parentId,
      },
      unread: e.readAt === null,
    }));
    const shown = items.filter((i) => i.unread).map((i) => i.message.id);
    await this.store.chat.markDeliveriesRead(v.agent.id, v.workspace.id, this.clock.now(), undefined, shown);
    return { items, page, older: read.length > size };
  }
}
