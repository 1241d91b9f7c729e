import type { Store } from '../ports.ts';
import { isChatApp, qualifiedName, type Agent, type SurfaceName } from '../types.ts';
import type { Approval } from '../approvals/types.ts';
import type { IntakeKind, IntakeStatus } from '../intake/types.ts';
import type { Conversation, Message, Sender } from '../messaging/types.ts';
import type { Channel, Reaction, RenderMessage, ThreadSummary } from './ports.ts';
import { httpUrlOrNull } from '../safe-text.ts';
import type { ExternalIdentity, ExternalSurface } from '../surfaces/surface-ports.ts';

/** Who wrote a message, as the web chat shows them. */
export interface SenderView {
  id: string;
  /** `@handle` for a person, `owner/name` for an agent. */
  label: string;
  /** What to type after `@` to mention them. */
  mention: string;
  displayName: string;
  avatarUrl: string | null;
  kind: Agent['kind'];
}

export interface ChatMessage {
  id: string;
  conversationId: string;
  /** The Markdown as written. */
  body: string;
  /** The body as sanitised HTML, ready to insert. */
  html: string;
  createdAt: Date;
  surface: Message['surface'];
  /** Where it was written when that was a chat app ("Slack", "Teams"); null for the web chat and agents. */
  via: string | null;
  permalink: string | null;
  sender: SenderView;
  /** Set on a message that started a thread. */
  thread: { conversationId: string; replies: number; lastReplyAt: Date | null } | null;
  /** When its author last changed it; null when never. */
  editedAt: Date | null;
  /** Its reactions, as the viewer sees them (`mine`). */
  reactions: ReactionView[];
}

export interface ConversationView {
  id: string;
  kind: Conversation['kind'];
  title: string;
  surface: Conversation['surface'];
  permalink: string | null;
  /** For a thread: the conversation it hangs off and the message it started from. */
  parentId: string | null;
  rootMessageId: string | null;
  channel: {
    name: string;
    restricted: boolean;
    description: string;
    member: boolean;
    /** The Slack or Teams channels it is bridged with: everyone there reads it too. */
    bridges: Array<{ surface: string; title: string }>;
  } | null;
}

const THREAD_PREFIX = 'thread:';
/** The key of the thread conversation started from a message. */
export const threadKey = (rootMessageId: string) => `${THREAD_PREFIX}${rootMessageId}`;
/** The root message id of a thread conversation; null for other conversations. */
export const threadRoot = (c: Pick<Conversation, 'kind' | 'key'>) =>
  c.kind === 'thread' && c.key.startsWith(THREAD_PREFIX) ? c.key.slice(THREAD_PREFIX.length) : null;

export function senderView(
  a: Pick<Agent, 'id' | 'name' | 'ownerHandle' | 'displayName' | 'avatarUrl' | 'kind'>,
): SenderView {
  const person = a.kind === 'person';
  return {
    id: a.id,
    label: person ? `@${a.name}` : qualifiedName(a),
    mention: person ? a.name : qualifiedName(a),
    displayName: a.displayName,
    avatarUrl: a.avatarUrl,
    kind: a.kind,
  };
}

/** The same view from the sender columns an inbox row carries. */
export const senderViewOf = (s: Sender) => senderView({ ...s, ownerHandle: s.person });

/** A chat app's name in sentences ("Slack"), as its surface registered it (SurfaceOutbound.label); undefined when this process has none. */
export type SurfaceLabelOf = (surface: ExternalSurface) => string | undefined;
/** Where a message was written, as views show it: a chat app's name, or null for the web chat and agents. */
export type ViaOf = (surface: SurfaceName) => string | null;

/** `ViaOf` over the registered labels; a chat app this process does not know is named by its surface. */
export const viaFrom =
  (labelOf: SurfaceLabelOf): ViaOf =>
  (surface) =>
    isChatApp(surface) ? (labelOf(surface) ?? surface) : null;

/** A message a chat user wrote without a linked account: its sender is the guest agent, its author the identity. */
export const writtenByGuest = (m: Message): m is Message & { askerIdentityId: string } =>
  Boolean(m.askerIdentityId) && m.askerPersonId === null && isChatApp(m.surface);

/** One emoji under a message, as one viewer sees it. */
export interface ReactionView {
  emoji: string;
  count: number;
  /** Whether the viewer gave it (so clicking it takes it back). */
  mine: boolean;
  /** Who gave it, oldest first. */
  names: string[];
}

/** How a person in the web chat is named as a reactor. */
export const webReactor = (agentId: string) => `agent:${agentId}`;

/** The reactions of each message (by id), grouped by emoji in the order each emoji first came; `mine` for `reactor`. */
export function reactionViews(list: Reaction[], reactor: string | null): Map<string, ReactionView[]> {
  const out = new Map<string, ReactionView[]>();
  for (const r of list) {
    let views = out.get(r.messageId);
    if (!views) out.set(r.messageId, (views = []));
    let view = views.find((x) => x.emoji === r.emoji);
    if (!view) views.push((view = { emoji: r.emoji, count: 0, mine: false, names: [] }));
    view.count += 1;
    view.names.push(r.reactorName);
    if (r.reactor === reactor) view.mine = true;
  }
  return out;
}

/** Loads each sender (and each chat user behind a guest's message) once per request. */
export class SenderCache {
  private readonly cache = new Map<string, Promise<Agent | null>>();
  private readonly identities = new Map<string, Promise<ExternalIdentity | null>>();
  /** `viewerAgentId`: whose reactions count as `mine`. */
  constructor(
    private readonly store: Store,
    private readonly render: RenderMessage,
    private readonly via: ViaOf,
    private readonly viewerAgentId: string | null = null,
  ) {}

  get(id: string) {
    let p = this.cache.get(id);
    if (!p) this.cache.set(id, (p = this.store.agents.get(id)));
    return p;
  }

  /** The chat user who wrote a guest's message (a Slack or Teams user who has not linked an account); null otherwise. */
  private async chatAuthor(m: Message): Promise<SenderView | null> {
    if (!writtenByGuest(m)) return null;
    let p = this.identities.get(m.askerIdentityId);
    if (!p) this.identities.set(m.askerIdentityId, (p = this.store.identities.get(m.askerIdentityId)));
    const identity = await p;
    if (!identity) return null;
    return {
      id: `identity:${identity.id}`,
      label: '',
      mention: '',
      displayName: identity.displayName || 'Someone',
      avatarUrl: httpUrlOrNull(identity.avatarUrl),
      kind: 'person',
    };
  }

  async views(messages: Message[], threads: ThreadSummary[] = []): Promise<ChatMessage[]> {
    const byRoot = new Map(threads.map((t) => [t.rootMessageId, t]));
    const reactions = messages.length
      ? reactionViews(
          await this.store.reactions.of(
            messages[0].workspaceId,
            messages.map((m) => m.id),
          ),
          this.viewerAgentId && webReactor(this.viewerAgentId),
        )
      : new Map<string, ReactionView[]>();
    return Promise.all(
      messages.map(async (m) => {
        const agent = await this.get(m.senderId);
        const t = byRoot.get(m.id);
        const author = await this.chatAuthor(m);
        return {
          id: m.id,
          conversationId: m.conversationId,
          body: m.body,
          html: this.render(m.body),
          createdAt: m.createdAt,
          surface: m.surface,
          via: this.via(m.surface),
          permalink: httpUrlOrNull(m.permalink),
          sender:
            author ??
            (agent
              ? senderView(agent)
              : {
                  id: m.senderId,
                  label: 'unknown',
                  mention: '',
                  displayName: 'Unknown sender',
                  avatarUrl: null,
                  kind: 'agent' as const,
                }),
          thread:
            t && t.replies > 0
              ? { conversationId: t.conversationId, replies: t.replies, lastReplyAt: t.lastReplyAt }
              : null,
          editedAt: m.editedAt ?? null,
          reactions: reactions.get(m.id) ?? [],
        };
      }),
    );
  }
}

export function conversationView(
  c: Conversation,
  title: string,
  channel: (Channel & { member: boolean; bridges?: Array<{ surface: string; title: string }> }) | null,
): ConversationView {
  return {
    id: c.id,
    kind: c.kind,
    title,
    surface: c.surface,
    permalink: httpUrlOrNull(c.permalink),
    parentId: c.parentId,
    rootMessageId: threadRoot(c),
    channel: channel
      ? {
          name: channel.name,
          restricted: channel.restricted,
          description: channel.description,
          member: channel.member,
          bridges: channel.bridges ?? [],
        }
      : null,
  };
}

/** One approval as a card shows it to one person (the web chat's approval cards). */
export interface ApprovalCard {
  id: string;
  title: string;
  details: string;
  status: Approval['status'];
  /** "Approved by @alice in Slack at 14:02 UTC", or "Waiting for a decision". */
  outcome: string;
  agent: { id: string; label: string; displayName: string; avatarUrl: string | null };
  conversationId: string | null;
  /** Handles of the people who may decide. */
  approvers: string[];
  decidedBy: string | null;
  via: Approval['decidedVia'];
  decidedAt: Date | null;
  reason: string | null;
  expiresAt: Date | null;
  createdAt: Date;
  /** Whether this person may decide it now (pending, and theirs to decide). */
  canDecide: boolean;
}

/** One entry of a person's inbox: a message delivered to them and where it was said. */
export interface InboxItem {
  kind: 'dm' | 'mention';
  message: ChatMessage;
  conversation: Pick<ConversationView, 'id' | 'kind' | 'title' | 'parentId'>;
  unread: boolean;
}

/** A page of a person's inbox (page 1 is the newest), and whether an older page follows. */
export interface InboxPage {
  items: InboxItem[];
  page: number;
  older: boolean;
}

/**
 * A search hit: the message, the words around the match, its conversation
 * and, for a thread, the channel or DM the thread hangs off.
 */
export type SearchResult = ChatMessage & {
  snippet: string;
  /** Whether the message goes on before or after the snippet. */
  cut: { before: boolean; after: boolean };
  conversation: ConversationView;
  parent: Pick<ConversationView, 'id' | 'kind' | 'title'> | null;
};

/** An agent on the web chat's agents page. */
export interface AgentCard {
  id: string;
  /** `owner/name`: what to mention. */
  name: string;
  displayName: string;
  avatarUrl: string | null;
  roleLine: string;
  owner: { handle: string; displayName: string };
  connected: boolean;
  lastSeenAt: Date | null;
  mine: boolean;
  /** Why its token cannot be rotated here (the server runs it and holds the token), or null. */
  tokenHeld: string | null;
  permissions: { send: boolean; receive: boolean; monitor: boolean };
}

export interface PersonCard {
  /** The person agent's id (what a DM is opened with). */
  id: string;
  handle: string;
  displayName: string;
  role: string;
}

/** The web chat's left column: channels, DMs and unread counts. */
export interface SidebarChannel {
  id: string;
  name: string;
  restricted: boolean;
  description: string;
  member: boolean;
  unread: number;
}

export interface SidebarConversation {
  id: string;
  kind: 'dm' | 'external';
  title: string;
  unread: number;
  lastMessageAt: Date | null;
}

export interface Sidebar {
  channels: SidebarChannel[];
  conversations: SidebarConversation[];
  /** Unread deliveries to the viewer (mentions, DMs, replies). */
  inboxUnread: number;
}

/** What the web chat hears while an agent works in a conversation. */
export interface LiveEvent {
  conversation_id: string;
  agent_id: string;
  /** The agent's address and display name, for the progress line. */
  agent: string;
  display_name: string;
  /** The status line; null when cleared. */
  status: string | null;
  /** The stream being written (its id is the message's id once stored); null when none. */
  stream: { id: string; text: string; truncated: boolean; done: boolean } | null;
}

/** What the settings panel shows; `bridges` carry ids and outside channel ids only for owners (who alone may list them). */
export interface ChannelSettings {
  channel: { id: string; name: string; restricted: boolean };
  canManage: boolean;
  listeners: Array<{ agentId: string; agent: string; displayName: string; since: Date }>;
  bridges: Array<{
    id: string | null;
    surface: string;
    label: string;
    title: string;
    externalChannelId: string | null;
    allowPrivate: boolean;
  }>;
  /** The chat apps an owner may bridge the channel with here (BridgeService.surfaces); empty for others. */
  bridgeTo: Array<{ surface: string; label: string; example: string }>;
  /** Agents of the workspace an owner may let listen (not listening yet); empty for others. */
  candidates: Array<{ id: string; name: string; displayName: string }>;
}

/** The web chat's intake page (see intake-page.ts). */
export interface IntakeSourceView {
  messageId: string;
  surface: SurfaceName;
  /** "Slack", "Teams", or "Web chat". */
  where: string;
  /** The web chat's own route (`#/w/…`) for a web message, else the platform's permalink; null when there is none. */
  href: string | null;
  /** True when `href` leads out of Switchboard (a Slack or Teams permalink). */
  external: boolean;
  excerpt: string;
  author: string;
  notified: boolean;
}

export interface IntakeItemView {
  id: string;
  title: string;
  kind: IntakeKind;
  status: IntakeStatus;
  summary: string;
  filedAutomatically: boolean;
  createdAt: Date;
  updatedAt: Date;
  sources: IntakeSourceView[];
}

export interface IntakeListing {
  items: IntakeItemView[];
  /** Over every item the viewer may see, whatever the filter: per source surface (an item with sources on two counts on both) and per status. */
  counts: { total: number; bySource: Record<string, number>; byStatus: Record<string, number> };
}
