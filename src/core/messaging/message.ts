import type { AudienceLevel } from '../linking/audience.ts';
import type { AgentKind, SurfaceName } from '../entities.ts';

export type ConversationKind = 'dm' | 'channel' | 'thread' | 'external';

export interface Conversation {
  id: string;
  workspaceId: string;
  kind: ConversationKind;
  key: string;
  title: string;
  surface: SurfaceName;
  externalRef: Record<string, string> | null;
  permalink: string | null;
  parentId: string | null;
  createdAt: Date;
}

export interface Message {
  id: string;
  workspaceId: string;
  conversationId: string;
  senderId: string;
  body: string;
  replyTo: string | null;
  chainId: string;
  hop: number;
  askerPersonId: string | null;
  askerIdentityId: string | null;
  surface: SurfaceName;
  permalink: string | null;
  externalId: string | null;
  createdAt: Date;
  /** When its author last changed it; null (or absent) when never. */
  editedAt?: Date | null;
}

export type NewMessage = Omit<Message, 'id' | 'createdAt' | 'permalink' | 'externalId' | 'editedAt'> & {
  /** Set when the id was chosen before the message was stored (a streamed message); otherwise generated. */
  id?: string;
  permalink?: string | null;
  externalId?: string | null;
  createdAt?: Date;
};

/** A post a stream made on a chat platform before its message was stored: the post job finishes it rather than posting again. */
export interface LivePost {
  /** `stream`: the platform's own streaming (to be stopped); `post`: a post kept up to date with chat updates. */
  kind: 'stream' | 'post';
  externalId: string;
  permalink: string | null;
}

export interface Sender {
  id: string;
  name: string;
  person: string;
  displayName: string;
  avatarUrl: string | null;
  kind: AgentKind;
}

/** One message as an agent's inbox shows it. */
export interface InboxItem {
  message: Message;
  sender: Sender;
  conversation: { id: string; kind: ConversationKind; title: string; surface: SurfaceName; permalink: string | null };
  asker: { personId: string | null; handle: string | null; identityId: string | null };
  /** True when the agent only heard it as a listener of the channel: nobody addressed it. */
  overheard: boolean;
  /** Who reads the conversation (see linking/audience.ts); added by MessagingService when it hands items out. */
  audience?: { level: AudienceLevel; members: number; unlinked: number };
}

export interface SearchQuery {
  workspaceId: string;
  text: string;
  /** Restrict to messages this agent sent or received; null for every message (monitor). */
  agentId: string | null;
  fromAgentId?: string;
  conversationId?: string;
  since: Date;
  limit: number;
  /** Skip this many of the best matches (the next page). */
  offset?: number;
}

export interface SearchHit {
  message: Message;
  sender: Sender;
  rank: number;
  snippet: string;
}
