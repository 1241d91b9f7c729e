// What the web chat's pages show, as its JSON API and event stream send it.
// Types only: the browser code (../client) takes its types from here, and
// view-builders.ts builds them from what the core's services return.
import type { Approval } from '../../../core/approvals/approval.ts';
import type { IntakeKind, IntakeStatus } from '../../../core/intake/intake-item.ts';
import type { Conversation, Message } from '../../../core/messaging/message.ts';
import type { Agent, SurfaceName } from '../../../core/entities.ts';

export type { LiveEvent } from '../../../core/live/live-event.ts';

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

/** One emoji under a message, as one viewer sees it. */
export interface ReactionView {
  emoji: string;
  count: number;
  /** Whether the viewer gave it (so clicking it takes it back). */
  mine: boolean;
  /** Who gave it, oldest first. */
  names: string[];
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
  /** Notes written while triaging it, oldest first, with who wrote them. */
  notes: Array<{ body: string; author: string; at: Date }>;
}

export interface IntakeListing {
  items: IntakeItemView[];
  /** Over every item the viewer may see, whatever the filter: per source surface (an item with sources on two counts on both) and per status. */
  counts: { total: number; bySource: Record<string, number>; byStatus: Record<string, number> };
}
