// The shapes the chat's JSON API and event stream send, taken from the
// server's own view types so the two cannot drift apart.
import type {
  AgentCard,
  ApprovalCard,
  ChannelSettings,
  ChatMessage,
  ConversationView,
  InboxItem,
  InboxPage,
  IntakeListing,
  LiveEvent,
  PersonCard,
  SearchResult,
  Sidebar,
} from '../pages/views.ts';
import type { McpClientConfig } from '../mcp-config.ts';

/** A server value after JSON: dates arrive as ISO strings. */
export type Json<T> = T extends Date
  ? string
  : T extends ReadonlyArray<infer U>
    ? Json<U>[]
    : T extends object
      ? { [K in keyof T]: Json<T[K]> }
      : T;

/** A message; `html` is its Markdown body rendered and sanitised by the server, when the server sends it. */
export type MessageView = Json<ChatMessage> & { html?: string };
export type ConversationInfo = Json<ConversationView>;
export type SidebarView = Json<Sidebar>;
export type Approval = Json<ApprovalCard>;
export type InboxEntry = Json<InboxItem> & { message: MessageView };
export type InboxListing = Json<InboxPage> & { items: InboxEntry[] };
export type SearchHit = Json<SearchResult> & { html?: string };
export type AgentInfo = Json<AgentCard>;
export type PersonInfo = Json<PersonCard>;
export type ChannelSettingsView = Json<ChannelSettings>;
export type IntakeView = Json<IntakeListing>;
export type IntakeItemView = IntakeView['items'][number];

export interface Me {
  person: { id: string; handle: string; displayName: string };
  hasPassword: boolean;
  workspaces: Array<{ slug: string; name: string; role: string }>;
}

export interface History {
  conversation: ConversationInfo;
  messages: MessageView[];
  root: MessageView | null;
}
/** What posting a message answers (PostResult on the server), the parts the page uses. */
export interface Posted {
  message: MessageView | null;
  notices: string[];
}
export interface AgentsList {
  agents: AgentInfo[];
  people: PersonInfo[];
  elsewhere: Array<{ id: string; name: string; displayName: string }>;
  mcpUrl: string;
}
export interface TokenResult {
  agent: { id: string; name: string; displayName: string };
  token: string;
  config: McpClientConfig;
}

/** Someone to @mention or message directly. */
export interface Mentionable {
  id: string;
  kind: 'agent' | 'person';
  displayName: string;
  roleLine?: string;
  mention: string;
}

/** What the event stream sends, by event name. */
export interface LiveEvents {
  message: { message: MessageView; conversation: ConversationInfo };
  /** A message shown before changed (its text or reactions): as the viewer sees it now. */
  changed: { message: MessageView; conversation: ConversationInfo };
  deleted: { id: string; conversationId: string };
  sidebar: unknown;
  inbox: unknown;
  approval: Approval;
  /** A channel's listeners or bridges changed. */
  channel: { id: string };
  live: LiveActivity;
  /** Wake-ups may have been missed (the server lost its notification connection): reload what the page shows. */
  resync: unknown;
}

/** An agent at work in a conversation: its status line and the message it is streaming (see core/live). */
export type LiveActivity = LiveEvent;
