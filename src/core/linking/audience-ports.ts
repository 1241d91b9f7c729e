// Ports for account links and audiences. The identity repository itself is in
// ../surfaces/ports.ts; these are the audience's member cache and read ledger,
// and what a chat surface tells the core about where a conversation lives.
import type { Conversation } from '../messaging/message.ts';
import type { ExternalSurface } from '../surfaces/surface-ports.ts';
import type { OrgRole, WorkspaceRole } from '../entities.ts';

/** Private content an agent took in: a document, or messages of a conversation with a closed audience. */
export interface AudienceRead {
  agentId: string;
  workspaceId: string;
  source: 'document' | 'conversation';
  /** The document id, or the conversation id. */
  sourceId: string;
  /** How refusals name it: `SPEC-12`, `#design`. */
  label: string;
  /** The conversation the agent named when reading, if any. */
  forConversationId: string | null;
  readAt: Date;
}

/** A chat channel, or a cached list kept like one (a tenant's roster), on one surface. */
export interface ChatChannel {
  tenantId: string;
  channelId: string;
}

/** When a cached list was read, and the marks kept with it. */
export interface ListState {
  fetchedAt: Date;
  marks: string[];
}

/** A channel's readers counted against their identities. */
export interface Readers {
  unlinked: number;
  personIds: string[];
}

export interface AudienceRepo {
  /** The cached members of a chat channel and when the list was read; null when it was never read. */
  channelMembers(
    surface: ExternalSurface,
    tenantId: string,
    channelId: string,
  ): Promise<{ userIds: string[]; fetchedAt: Date } | null>;
  /**
   * When a cached list was read, and the marks kept with it (ids starting with `*`, which no person has); null when
   * it was never read. Cheap whatever the list's size.
   */
  channelState(surface: ExternalSurface, tenantId: string, channelId: string): Promise<ListState | null>;
  /** `channelState` of many lists in one statement, in the order asked; marks are read only for lists asking for them. */
  channelStates(
    surface: ExternalSurface,
    lists: Array<ChatChannel & { marks: boolean }>,
  ): Promise<Array<ListState | null>>;
  /**
   * Everyone in any of these cached lists (marks left out), counted in the store against their identities: how many
   * have no linked person, and the distinct linked people. One statement, whatever the lists' size.
   */
  readers(surface: ExternalSurface, tenantId: string, channelIds: string[]): Promise<Readers>;
  /** `readers` of several channels (each the union of its lists) in one statement, in the order asked. */
  readersOf(surface: ExternalSurface, channels: Array<{ tenantId: string; channelIds: string[] }>): Promise<Readers[]>;
  /** Replaces the cached member list with a fresh read from the platform (any size: written in parts, in one transaction). */
  putChannelMembers(
    surface: ExternalSurface,
    tenantId: string,
    channelId: string,
    userIds: string[],
    at: Date,
  ): Promise<void>;
  /** Adds or removes one member of a cached channel; false (and nothing written) when the channel is not cached. */
  memberChanged(
    surface: ExternalSurface,
    tenantId: string,
    channelId: string,
    userId: string,
    joined: boolean,
  ): Promise<boolean>;
  /** Forgets a channel's cached members (the next use reads them again). */
  forgetChannel(surface: ExternalSurface, tenantId: string, channelId: string): Promise<void>;
  /** Forgets the cached members of every channel of a tenant (a change whose channels are not known one by one). */
  forgetTenantChannels(surface: ExternalSurface, tenantId: string): Promise<void>;
  /** Person ids of a web channel's members. */
  webChannelMembers(conversationId: string): Promise<string[]>;
  /** Conversations of the workspace by id, in one query; absent ones are left out. */
  conversations(workspaceId: string, ids: string[]): Promise<Conversation[]>;
  /** The owners of the agents taking part in each conversation (a person agent's owner is the person), in one query. */
  participantOwners(
    conversationIds: string[],
  ): Promise<Array<{ conversationId: string; ownerId: string; ownerHandle: string }>>;
  /** These people's organization role and direct workspace role (nulls when they have none), in one query. */
  memberships(
    orgId: string,
    workspaceId: string,
    personIds: string[],
  ): Promise<Array<{ personId: string; orgRole: OrgRole | null; directRole: WorkspaceRole | null }>>;
  recordRead(r: AudienceRead): Promise<void>;
  /** The agent's reads in the workspace since `since`, newest first. */
  readsSince(agentId: string, workspaceId: string, since: Date): Promise<AudienceRead[]>;
  /** Deletes reads older than `before`; returns how many went. */
  forgetReadsBefore(before: Date): Promise<number>;
}

/** Where a chat conversation lives, as its surface reads it from the conversation's external address. */
export type ChatPlace = { kind: 'dm' } | ({ kind: 'channel' } & ChatChannel);

/** Where a chat channel's readers are kept in the store. */
export interface StoredReaders {
  /** Cached lists (`AudienceRepo.readers`): the channel's own, and its tenant's roster when anyone there may open it. */
  lists: string[];
  /** Readers of another organization, counted as unlinked. */
  outsiders: number;
}

/** What a chat surface tells the core about its conversations' audiences. */
export interface SurfaceAudience {
  /** Where the conversation lives; null when its address is not one of this surface's. */
  locate(c: Conversation): ChatPlace | null;
  /**
   * Where each channel's readers are kept, in the order asked: the cached lists (`AudienceRepo.readers`) whose union
   * reads it, and how many readers of another organization come on top (no identity ever links them). From the cache
   * (one look-up for them all), read again in the background when old; null when the platform would not say, or while
   * a list too big to wait for (a tenant's roster) is read for the first time: the audience then counts as guests.
   */
  members(channels: ChatChannel[]): Promise<Array<StoredReaders | null>>;
}
