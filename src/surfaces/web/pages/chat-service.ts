// The web chat's page API: what its JSON routes and event stream send, built
// from the core's ChannelService (which decides who may see and do what) as
// views for one viewer: messages with their senders, rendered HTML, threads and
// reactions; conversations with their titles and channel settings; the sidebar,
// the inbox and search results.
import type { ChatAccess, Viewer } from '../../../core/channels/access.ts';
import type { ChannelService } from '../../../core/channels/channel-service.ts';
import type { ViaOf } from '../../../core/channels/origin.ts';
import type { Channel } from '../../../core/channels/channel-ports.ts';
import { webReactor } from '../../../core/channels/reactions.ts';
import { markedSnippet } from '../../../core/format/markdown.ts';
import type { RecipientResult } from '../../../core/messaging/messaging-service.ts';
import type { Conversation } from '../../../core/messaging/message.ts';
import { httpUrlOrNull } from '../../../core/safe-text.ts';
import type { SurfacePort } from '../../../core/surfaces/inbound.ts';
import type { Workspace } from '../../../core/entities.ts';
import { type Sidebar, sidebarView } from './sidebar.ts';
import {
  conversationView,
  reactionViews,
  type RenderMessage,
  SenderCache,
  type SenderSources,
  senderViewOf,
} from './view-builders.ts';
import type { ChatMessage, ConversationView, InboxPage, ReactionView, SearchResult } from './views.ts';

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

export interface PostResult {
  message: ChatMessage | null;
  recipients: RecipientResult[];
  /** Mentions that reached nobody, each with why (typo, ambiguous name…). */
  notices: string[];
}

/** The web chat: channels, DMs, threads, posting with @mentions, reading and searching what a person can see. */
export class ChatService {
  /** Who may see what (the core's rules). */
  readonly access: ChatAccess;
  /** Where a message was written, as the web chat shows it ("Slack"; null for the web chat and agents). */
  readonly via: ViaOf;
  /** Reactions a person gives or takes back, returned as they see them. */
  readonly reactions: {
    set(v: Viewer, messageId: string, emoji: string, on: boolean): Promise<ReactionView[]>;
  };

  constructor(
    private readonly channels: ChannelService,
    private readonly sources: SenderSources,
    private readonly render: RenderMessage,
    /** The web chat's surface port for a workspace (../port.ts). */
    private readonly port: (ws: Workspace) => SurfacePort,
  ) {
    this.access = channels.access;
    this.via = channels.via;
    this.reactions = {
      set: async (v, messageId, emoji, on) => {
        const list = await channels.react(v, messageId, emoji, on);
        return reactionViews(list, webReactor(v.agent.id)).get(messageId) ?? [];
      },
    };
  }

  /** Sender views for one viewer (whose reactions count as `mine`). */
  private senders(v: Viewer): SenderCache {
    return new SenderCache(this.sources, this.render, this.via, v.agent.id);
  }

  viewer(personId: string, workspace: string) {
    return this.channels.viewer(personId, workspace);
  }

  /** Channels, DMs and unread counts for the left column. */
  async sidebar(v: Viewer): Promise<Sidebar> {
    return sidebarView(await this.channels.overview(v), (viewer, c) => this.title(viewer, c), v);
  }

  /** Conversations whose live updates the viewer should receive. */
  watched(v: Viewer): Promise<string[]> {
    return this.channels.watched(v);
  }

  createChannel(v: Viewer, input: { name: string; restricted?: boolean; description?: string }): Promise<Channel> {
    return this.channels.createChannel(v, input);
  }

  /** Joins an open channel (restricted ones take members only when a member adds them). */
  join(v: Viewer, conversationId: string) {
    return this.channels.join(v, conversationId);
  }

  leave(v: Viewer, conversationId: string) {
    return this.channels.leave(v, conversationId);
  }

  /** Adds someone who can reach the workspace to a channel the viewer is in. */
  addMember(v: Viewer, conversationId: string, handle: string) {
    return this.channels.addMember(v, conversationId, handle);
  }

  /** The DM between the viewer and another agent or person of the workspace (created on first use). */
  openDm(v: Viewer, agentId: string): Promise<Conversation> {
    return this.channels.openDm(v, agentId);
  }

  /** The thread started from a message the viewer can see (created on first use). */
  openThread(v: Viewer, rootMessageId: string): Promise<Conversation> {
    return this.channels.openThread(v, rootMessageId);
  }

  /** A conversation's recent messages (oldest first) with thread counts; marks it read. */
  async history(
    v: Viewer,
    conversationId: string,
    limit = HISTORY_PAGE,
  ): Promise<{ conversation: ConversationView; messages: ChatMessage[]; root: ChatMessage | null }> {
    const h = await this.channels.history(v, conversationId, limit);
    const senders = this.senders(v);
    const [messages, root, conversation] = await Promise.all([
      senders.views(h.messages, h.threads),
      h.root ? senders.views([h.root]).then((r) => r[0]) : null,
      this.view(v, h.conversation),
    ]);
    return { conversation, messages, root };
  }

  /** One message as the viewer sees it; null when they may not see it (for live updates). */
  async message(
    v: Viewer,
    messageId: string,
  ): Promise<{ message: ChatMessage; conversation: ConversationView } | null> {
    const found = await this.channels.visibleMessage(v, messageId);
    if (!found) return null;
    const [message] = await this.senders(v).views([found.message]);
    return { message, conversation: await this.view(v, found.conversation) };
  }

  async view(v: Viewer, c: Conversation): Promise<ConversationView> {
    const ch = await this.channels.channelOf(v, c);
    const bridges = (ch?.bridges ?? []).map((b) => ({
      surface: this.via(b.surface) ?? b.surface,
      title: b.title || b.externalChannelId,
    }));
    return conversationView(c, await this.title(v, c), ch && { ...ch, bridges });
  }

  /** `#name` for a channel; for a DM, the others in it. */
  async title(v: Viewer, c: Conversation): Promise<string> {
    if (c.kind === 'channel') return `#${c.title}`;
    if (c.kind !== 'dm') return c.title || 'Conversation';
    const names = (await this.channels.others(v, c)).map((a) => a?.displayName ?? 'someone');
    return names.join(', ') || 'Just you';
  }

  /**
   * Posts as the viewer's person agent, through the one inbound pipeline: in a
   * channel or thread, `@name` mentions deliver the message to those agents and
   * people; in a DM it goes to the others in it.
   */
  async post(v: Viewer, conversationId: string, body: string): Promise<PostResult> {
    const sent = await this.channels.post(this.port(v.workspace), v, conversationId, body);
    const [message] = sent.message ? await this.senders(v).views([sent.message]) : [null];
    return { message, recipients: sent.recipients, notices: sent.notices };
  }

  /**
   * Replaces the text of one of the viewer's own messages written here. Who
   * got it keeps it (with the new text); mentions added by the edit reach nobody.
   */
  async edit(v: Viewer, messageId: string, body: string): Promise<ChatMessage> {
    const [view] = await this.senders(v).views([await this.channels.edit(v, messageId, body)]);
    return view;
  }

  /** Deletes one of the viewer's own messages written here, with its reactions; its thread, if any, stays. */
  remove(v: Viewer, messageId: string): Promise<void> {
    return this.channels.remove(v, messageId);
  }

  /** Messages the viewer can see that match `text`, best first, within the plan's history. */
  async search(v: Viewer, text: string, limit = 30): Promise<SearchResult[]> {
    const hits = await this.channels.search(v, text, limit);
    const views = new Map<string, Promise<ConversationView | null>>();
    const viewOf = (id: string, c?: Conversation) => {
      let p = views.get(id);
      if (!p) {
        const found = c ? Promise.resolve(c) : this.channels.visibleConversation(v, id);
        views.set(id, (p = found.then((x) => x && this.view(v, x))));
      }
      return p;
    };
    const senders = this.senders(v);
    const out: SearchResult[] = [];
    for (const h of hits) {
      const conversation = (await viewOf(h.conversation.id, h.conversation))!;
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
    }
    return out;
  }

  /**
   * One page of the viewer's inbox in this workspace (the first holds the newest): what was delivered to them
   * (mentions, DMs, replies), newest first, and whether older pages follow. Only what it returns is marked read:
   * unread deliveries on other pages stay counted on the badge until their page is shown.
   */
  async inbox(v: Viewer, page = 1, size = INBOX_PAGE): Promise<InboxPage> {
    const { entries, older } = await this.channels.inbox(v, page, size);
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
    return { items, page, older };
  }
}
