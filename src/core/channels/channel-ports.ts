import type { Conversation, Message, Sender } from '../messaging/message.ts';
import type { SurfaceName } from '../entities.ts';

/** A web chat channel: the settings kept next to its conversation (kind 'channel'). */
export interface Channel {
  conversationId: string;
  workspaceId: string;
  name: string;
  /** When true, only its members see it; otherwise everyone who reaches the workspace may read and join. */
  restricted: boolean;
  description: string;
  createdBy: string | null;
  createdAt: Date;
}

/** A thread hanging off a message: its conversation and how many replies it holds. */
export interface ThreadSummary {
  rootMessageId: string;
  conversationId: string;
  replies: number;
  lastReplyAt: Date | null;
}

/** One message delivered to a person agent, as the web inbox lists it. */
export interface InboxEntry {
  message: Message;
  sender: Sender;
  conversation: Pick<Conversation, 'id' | 'kind' | 'title' | 'surface' | 'parentId'>;
  readAt: Date | null;
}

/** Channels, channel membership, read markers and the web inbox. */
export interface ChatRepo {
  /** Throws CONFLICT when the workspace already has a channel with that name. */
  createChannel(c: Omit<Channel, 'createdAt'>): Promise<Channel>;
  /** Null when absent or in another workspace. */
  channel(workspaceId: string, conversationId: string): Promise<Channel | null>;
  /** Null when the workspace has no channel of that name. */
  channelByName(workspaceId: string, name: string): Promise<Channel | null>;
  /** Every channel of the workspace, with whether the person joined it. */
  listChannels(workspaceId: string, personId: string): Promise<Array<Channel & { member: boolean }>>;
  /** Idempotent. */
  addChannelMember(conversationId: string, personId: string): Promise<void>;
  removeChannelMember(conversationId: string, personId: string): Promise<void>;
  isChannelMember(conversationId: string, personId: string): Promise<boolean>;
  /** Conversations of `kinds` in the workspace the agent takes part in, newest activity first. */
  conversationsOf(
    agentId: string,
    workspaceId: string,
    kinds: Conversation['kind'][],
  ): Promise<Array<Conversation & { lastMessageAt: Date | null }>>;
  /** Threads started from any of these messages (by root message id). */
  threads(workspaceId: string, rootMessageIds: string[]): Promise<ThreadSummary[]>;
  /** Ids of the thread conversations hanging off any of these conversations. */
  threadsUnder(workspaceId: string, parentIds: string[]): Promise<string[]>;
  /** Moves the person's read marker forward to `at` (never back). */
  markRead(conversationId: string, personId: string, at: Date): Promise<void>;
  /** Messages by others after the person's read marker, per conversation (absent = 0). */
  unreadCounts(personId: string, ownAgentId: string, conversationIds: string[]): Promise<Map<string, number>>;
  /** The agent's deliveries in the workspace, newest first, after skipping the `offset` newest. */
  inbox(agentId: string, workspaceId: string, limit: number, offset?: number): Promise<InboxEntry[]>;
  /** Marks deliveries to the agent read: those of one conversation (or the whole workspace), and of `messageIds` only when given. */
  markDeliveriesRead(
    agentId: string,
    workspaceId: string,
    at: Date,
    conversationId?: string,
    messageIds?: readonly string[],
  ): Promise<void>;
}

/** A reaction on a message, from whichever side it was given. */
export interface Reaction {
  messageId: string;
  /** Short name without colons (`thumbsup`). */
  emoji: string;
  /** `agent:<id>` for a person in the web chat, `identity:<id>` for a Slack or Teams user. */
  reactor: string;
  reactorName: string;
  /** Where it was given. */
  surface: SurfaceName;
}

/** Reactions, kept per message, emoji and reactor (each at most once). */
export interface ReactionRepo {
  /** Adds a reaction; false when it was there already. */
  add(workspaceId: string, r: Reaction): Promise<boolean>;
  /** Removes a reaction; false when it was not there. */
  remove(workspaceId: string, messageId: string, emoji: string, reactor: string): Promise<boolean>;
  /** The reactions of these messages, oldest first. */
  of(workspaceId: string, messageIds: string[]): Promise<Reaction[]>;
}
