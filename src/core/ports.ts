import type { PlanName } from './organizations/plans.ts';
import type {
  Agent,
  AgentMembership,
  Organization,
  OrgMember,
  OrgRole,
  Person,
  SurfaceName,
  Workspace,
  WorkspaceKind,
  WorkspaceRole,
} from './entities.ts';
import type { Approval, ApprovalView } from './approvals/approval.ts';
import type {
  Conversation,
  ConversationKind,
  InboxItem,
  Message,
  NewMessage,
  SearchHit,
  SearchQuery,
} from './messaging/message.ts';
import type { Collection, Document, DocumentPatch, DocumentSummary, NewDocument } from './documents/document.ts';
import type { PresenceRepo } from './agents/presence.ts';
import type { ChatRepo, ReactionRepo } from './channels/channel-ports.ts';
import type { SessionRepo } from './organizations/sessions.ts';
import type { AudienceRepo } from './linking/audience-ports.ts';
import type { DefaultAgentRepo, ExternalIdentityRepo, SurfaceTenantRepo } from './surfaces/surface-ports.ts';
import type { BridgeRepo } from './bridges/bridge.ts';
import type { ListeningRepo } from './listening/listen-ports.ts';
import type { IntakeRepo } from './intake/intake-item.ts';
import type { InboundEventRepo, OutboxRepo, SurfacePostRepo } from './job-ports.ts';

/** Organizations, their members, seats and monthly usage. */
export interface OrgRepo {
  /** Throws CONFLICT when the slug is taken. */
  create(o: {
    name: string;
    slug: string;
    plan: PlanName;
    licensedMessages?: number;
    personalFor?: string | null;
  }): Promise<Organization>;
  /** By id or slug; null when absent. */
  get(idOrSlug: string): Promise<Organization | null>;
  setPlan(orgId: string, plan: PlanName, licensedMessages: number): Promise<void>;
  /** Throws CONFLICT when the person is already a member. */
  addMember(orgId: string, personId: string, role: OrgRole): Promise<void>;
  /** Changes a member's role (their seat stays); nothing happens when they are not a member. */
  setRole(orgId: string, personId: string, role: OrgRole): Promise<void>;
  /** Null when the person is not a member. */
  member(orgId: string, personId: string): Promise<OrgMember | null>;
  /** Organizations the person belongs to, with their role. */
  listForPerson(personId: string): Promise<Array<Organization & { role: OrgRole }>>;
  /** The members of an organization with their role and seat, by handle. */
  listMembers(orgId: string): Promise<Array<{ person: Person } & Omit<OrgMember, 'orgId' | 'personId'>>>;
  /** Takes a person out of the organization; nothing happens when they were not in it. */
  removeMember(orgId: string, personId: string): Promise<void>;
  setSeat(orgId: string, personId: string, hasSeat: boolean): Promise<void>;
  /**
   * Locks the organization's row until the surrounding transaction ends and returns it as it is now (null when absent),
   * so count-then-insert plan checks run one at a time per organization. Call it only inside `Store.transaction`.
   */
  lockForLimits(orgId: string): Promise<Organization | null>;
  countWorkspaces(orgId: string): Promise<number>;
  /** Distinct agents with a valid token that are in the organization (joined to one of its workspaces, or homed there). */
  countAgents(orgId: string): Promise<number>;
  /** Every organization (for scheduled work such as the history purge). */
  listAll(): Promise<Organization[]>;
  usage(orgId: string, month: string): Promise<number>;
  /** Adds to the month's count and returns the new total. */
  addUsage(orgId: string, month: string, n: number): Promise<number>;
}

export interface PeopleRepo {
  /** Throws CONFLICT when the handle or email is taken. */
  create(p: { handle: string; displayName: string; email?: string | null }): Promise<Person>;
  /** By id or handle; null when absent. */
  get(idOrHandle: string): Promise<Person | null>;
  /** Everyone, by handle. */
  list(): Promise<Person[]>;
  setPasswordHash(personId: string, hash: string): Promise<void>;
  /** The stored password hash; null when the person has none. */
  passwordHash(personId: string): Promise<string | null>;
}

export interface WorkspaceRepo {
  /** Throws CONFLICT when the slug is taken. */
  create(w: {
    orgId: string;
    name: string;
    slug: string;
    restricted: boolean;
    kind: WorkspaceKind;
  }): Promise<Workspace>;
  /** By id or slug; null when absent. */
  get(idOrSlug: string): Promise<Workspace | null>;
  update(
    id: string,
    patch: Partial<Pick<Workspace, 'description' | 'instructions' | 'requireLinking' | 'name'>>,
  ): Promise<void>;
  /** Sets (or replaces) a person's direct role. */
  setMember(workspaceId: string, personId: string, role: WorkspaceRole): Promise<void>;
  /** The direct role; null when the person was not added directly. */
  directRole(workspaceId: string, personId: string): Promise<WorkspaceRole | null>;
  /** Every person who can reach the workspace (as the caller read it: its organization and `restricted`), with their effective role. */
  reachablePeople(
    ws: Pick<Workspace, 'id' | 'orgId' | 'restricted'>,
  ): Promise<Array<{ person: Person; role: WorkspaceRole }>>;
  /** Workspaces a person can reach, with their effective role. */
  listForPerson(personId: string): Promise<Array<Workspace & { role: WorkspaceRole }>>;
  /** The workspaces of one organization, or of all when `orgId` is null, by slug. */
  list(orgId: string | null): Promise<Workspace[]>;
  /** Removes a person's direct role in these workspaces. */
  removeMember(workspaceIds: string[], personId: string): Promise<void>;
  /** Deletes the workspace with its conversations, messages, documents and memberships. */
  delete(id: string): Promise<void>;
}

/** What decides an agent's place in a workspace (AgentService.member), read together. */
export interface AgentStanding {
  agent: Agent;
  membership: AgentMembership | null;
  orgRole: OrgRole | null;
  directRole: WorkspaceRole | null;
}

export interface AgentRepo {
  /** Throws CONFLICT when the owner already has an agent with that name. */
  create(a: {
    ownerId: string;
    name: string;
    displayName: string;
    avatarUrl?: string | null;
    roleLine?: string;
    kind: Agent['kind'];
    tokenHash?: string | null;
  }): Promise<Agent>;
  /** Null when absent. */
  get(id: string): Promise<Agent | null>;
  /** `ownerHandle/name`; null when absent. */
  byQualifiedName(ownerHandle: string, name: string): Promise<Agent | null>;
  /** The agent whose current token hashes to `hash`; null when none (e.g. after rotation). */
  byTokenHash(hash: string): Promise<Agent | null>;
  /** The person agent of a person; null when absent. */
  personAgent(personId: string): Promise<Agent | null>;
  /** The person agents of these people, in one query; people without one are left out. */
  personAgents(personIds: string[]): Promise<Agent[]>;
  setTokenHash(agentId: string, hash: string | null): Promise<void>;
  /** Inserts or replaces the agent's membership in a workspace. */
  putMembership(m: AgentMembership): Promise<void>;
  /** Null when the agent has not joined the workspace. */
  membership(agentId: string, workspaceId: string): Promise<AgentMembership | null>;
  /**
   * In one query: the agent as stored now, its membership in the workspace, and its owner's role in the
   * workspace's organization and direct role in the workspace (each null when absent). Null when the agent is gone.
   */
  standing(agentId: string, workspaceId: string, orgId: string): Promise<AgentStanding | null>;
  /** Agents that joined the workspace explicitly, with their memberships. */
  listMembers(workspaceId: string): Promise<Array<{ agent: Agent; membership: AgentMembership }>>;
  listOwnedBy(ownerId: string): Promise<Agent[]>;
  /** Every agent (person agents included), by owner handle and name. */
  listAll(): Promise<Agent[]>;
  /** Takes the agents out of these workspaces (every workspace when `workspaceIds` is null). */
  removeMemberships(agentIds: string[], workspaceIds: string[] | null): Promise<void>;
}

/** Who a posted message reaches (see MessageRepo.post). */
export interface PostTargets {
  participants: string[];
  deliverTo: string[];
  overheard?: string[];
}

/**
 * What a sender's message must pass, checked where it is stored: it is not a redelivery (no message of the
 * conversation has its platform id `externalId`), the sender wrote fewer than `rateMax` messages there since
 * `since`, and counting it `n` times keeps the organization's usage of `month` within `limit` (null: no limit).
 * A message that passes is counted by the same statement, which locks the organization's usage row until its
 * transaction ends.
 */
export interface SendGate {
  externalId: string | null;
  since: Date;
  rateMax: number;
  count: { orgId: string; month: string; n: number; limit: number | null };
}

/** What a gated post did: stored and counted (`total`: the month's new usage), or not (when the plan refused it, every reading here passed). */
export interface Posted {
  message: Message | null;
  /** The message stored already with the same platform id (a redelivery), else null. */
  earlier: Message | null;
  /** The sender's messages in the conversation since the gate's `since`, counted up to `rateMax` (all a refusal needs). */
  sentSince: number;
  total: number | null;
}

export interface MessageRepo {
  /** Finds the conversation with this key in the workspace, or creates it. */
  conversation(c: {
    workspaceId: string;
    kind: ConversationKind;
    key: string;
    title?: string;
    surface?: SurfaceName;
    externalRef?: Record<string, string> | null;
    permalink?: string | null;
    parentId?: string | null;
  }): Promise<Conversation>;
  /** The conversation with this key in the workspace; null when there is none yet (nothing is created). */
  findConversation(workspaceId: string, key: string): Promise<Conversation | null>;
  /** Null when absent or in another workspace. */
  getConversation(workspaceId: string, id: string): Promise<Conversation | null>;
  setConversationPermalink(id: string, permalink: string): Promise<void>;
  /** Replaces `from` with `to` where a chat conversation's title ends quoting it (`…: from`, an edited opening message); false when it does not. */
  requoteTitle(id: string, from: string, to: string): Promise<boolean>;
  addParticipants(conversationId: string, agentIds: string[]): Promise<void>;
  participants(conversationId: string): Promise<string[]>;
  insert(m: NewMessage): Promise<Message>;
  /**
   * Stores a message with its conversation's new participants and its deliveries (`overheard`: to listeners it was
   * not addressed to; an agent in `deliverTo` keeps its addressed delivery), in one statement. With a `gate`, the
   * same statement first checks and counts the sender's message (see SendGate) and stores nothing when a check
   * fails; `message` is then null and the rest says which.
   */
  post(m: NewMessage, to: PostTargets): Promise<{ message: Message }>;
  post(m: NewMessage, to: PostTargets, gate: SendGate): Promise<Posted>;
  /** Null when absent or in another workspace. */
  get(workspaceId: string, id: string): Promise<Message | null>;
  /** The message of the conversation with this platform id (a Slack ts, a Teams activity id); null when none. */
  byExternalId(workspaceId: string, conversationId: string, externalId: string): Promise<Message | null>;
  /** Replaces the body (its author changed it) and records when; false when absent. */
  edit(workspaceId: string, id: string, body: string, at: Date): Promise<boolean>;
  /** Deletes the message for good (its author deleted it); returns it as deleted (with any platform id recorded by then), null when absent. */
  remove(workspaceId: string, id: string): Promise<Message | null>;
  /** Records where the message was posted; false when it is gone (deleted meanwhile). */
  setPermalink(messageId: string, permalink: string, externalId?: string): Promise<boolean>;
  /**
   * Records that posting the message to its chat platform starts at `at`, before the call is made;
   * returns when an earlier attempt started (its outcome unknown unless externalId is set), else null.
   */
  notePostAttempt(messageId: string, at: Date): Promise<Date | null>;
  /** Whether the agent overheard (as a listener) any message of the conversation. */
  overheardIn(agentId: string, conversationId: string): Promise<boolean>;
  /** How many messages the agent wrote in the conversation since `since`, counted up to `max` (what the rate limit counts, as SendGate does). */
  sentSince(agentId: string, conversationId: string, since: Date, max: number): Promise<number>;
  /** The newest message addressed to `agentId` in the conversation (overheard ones left out); null when none. */
  latestReceived(agentId: string, conversationId: string): Promise<Message | null>;
  /** The newest message addressed to `agentId` anywhere in the workspace since `since` (overheard ones left out); null when none. */
  latestReceivedSince(agentId: string, workspaceId: string, since: Date): Promise<Message | null>;
  /** Whether a message was delivered to (or sent by) the agent. */
  involves(agentId: string, messageId: string): Promise<boolean>;
  /** Which of these messages were delivered to (or sent by) the agent, in one statement. */
  involvedIn(agentId: string, messageIds: string[]): Promise<Set<string>>;
  /** Unread messages, addressed ones before overheard ones, each oldest first, marked read as they are returned. */
  takeUnread(agentId: string, workspaceId: string, limit: number): Promise<{ items: InboxItem[]; remaining: number }>;
  /** Marks these messages unread again for the agent (taken, but the answer carrying them never left); returns how many. */
  returnUnread(agentId: string, workspaceId: string, messageIds: string[]): Promise<number>;
  unreadCount(agentId: string, workspaceId: string): Promise<number>;
  /** Unread messages counted apart: addressed to the agent, and overheard as a listener. */
  unreadCounts(agentId: string, workspaceId: string): Promise<{ addressed: number; overheard: number }>;
  search(q: SearchQuery): Promise<SearchHit[]>;
  /** Messages of a conversation, oldest first. */
  listConversation(workspaceId: string, conversationId: string, limit: number): Promise<Message[]>;
  /** Deletes messages of the organization older than `cutoff`; returns how many. */
  purgeOlderThan(orgId: string, cutoff: Date): Promise<number>;
}

export interface AuditEntry {
  workspaceId?: string | null;
  agentId?: string | null;
  onBehalfOf?: string | null;
  action: string;
  target?: string | null;
  result: string;
  details?: Record<string, unknown>;
}

export interface AuditRepo {
  record(e: AuditEntry): Promise<void>;
  list(workspaceId: string, limit: number): Promise<Array<AuditEntry & { createdAt: Date }>>;
}

export interface OneTimeToken {
  id: string;
  purpose: 'signin' | 'link';
  personId: string | null;
  subject: Record<string, string> | null;
  expiresAt: Date;
  usedAt: Date | null;
}

/** Single-use expiring secrets, stored by hash. */
export interface OneTimeTokenRepo {
  create(t: {
    purpose: OneTimeToken['purpose'];
    tokenHash: string;
    personId?: string | null;
    subject?: Record<string, string> | null;
    expiresAt: Date;
  }): Promise<OneTimeToken>;
  /** Null when no token has that hash. */
  peek(tokenHash: string, purpose: OneTimeToken['purpose']): Promise<OneTimeToken | null>;
  /** Marks it used if it is unused and unexpired; null when that failed (used, expired or unknown). */
  consume(tokenHash: string, purpose: OneTimeToken['purpose'], now: Date): Promise<OneTimeToken | null>;
}

/** Collections and documents; every method is scoped to one workspace (the tenant). */
export interface DocumentRepo {
  /** Collections in creation order; deactivated ones only when asked. */
  listCollections(workspaceId: string, opts?: { includeInactive?: boolean }): Promise<Collection[]>;
  /** By id or key, active or not; null when absent. */
  getCollection(workspaceId: string, idOrKey: string): Promise<Collection | null>;
  /** Throws CONFLICT when the key is taken in the workspace. */
  createCollection(c: Omit<Collection, 'id' | 'createdAt' | 'updatedAt'>): Promise<Collection>;
  /** The hidden collection of a Simplified workspace, created on first use. */
  ensureHiddenCollection(
    c: Omit<Collection, 'id' | 'createdAt' | 'updatedAt' | 'hidden' | 'active'>,
  ): Promise<Collection>;
  /** Null when absent; throws CONFLICT when a new key is taken. */
  updateCollection(
    workspaceId: string,
    id: string,
    patch: Partial<Pick<Collection, 'name' | 'key' | 'instructions' | 'active'>>,
  ): Promise<Collection | null>;
  /** Deletes a collection that holds no document (archived ones count); false when it holds some or is absent. */
  deleteEmptyCollection(workspaceId: string, id: string): Promise<boolean>;
  /** Documents in the collection, archived included. */
  countDocuments(workspaceId: string, collectionId: string): Promise<number>;
  /** Allocates the next identifier number of the workspace. */
  createDocument(d: NewDocument): Promise<Document>;
  /** By id or identifier, archived included; null when absent or (unless asked) in a deactivated collection. */
  getDocument(
    workspaceId: string,
    idOrIdentifier: string,
    opts?: { includeInactive?: boolean },
  ): Promise<Document | null>;
  /** One collection's documents, most recently updated first, without content; `total` counts every match. */
  listDocuments(q: {
    workspaceId: string;
    collectionId: string;
    status?: string;
    includeArchived: boolean;
    limit: number;
    offset: number;
  }): Promise<{ items: DocumentSummary[]; total: number }>;
  /** Matches titles, summaries and identifiers only (never content), in active collections, best first. */
  /** Matches in active collections only, unless `includeInactive` (the web app, which shows deactivated ones too). */
  searchDocuments(q: {
    workspaceId: string;
    text: string;
    collectionId?: string;
    includeArchived: boolean;
    includeInactive?: boolean;
    limit: number;
  }): Promise<DocumentSummary[]>;
  /**
   * Writes the change and moves `updated_at` forward, in one conditional
   * statement: only if `updated_at` still equals `readUpdatedAt` (null: unconditionally).
   * Null when it did not (someone wrote since, or the document is absent).
   */
  updateDocument(
    workspaceId: string,
    id: string,
    readUpdatedAt: Date | null,
    change: DocumentPatch & { collectionId?: string },
    byAgentId: string | null,
    now: Date,
  ): Promise<Document | null>;
}

/** Approvals and where each is shown. */
export interface ApprovalRepo {
  create(
    a: Pick<
      Approval,
      | 'workspaceId'
      | 'agentId'
      | 'conversationId'
      | 'title'
      | 'details'
      | 'approvers'
      | 'askerPersonId'
      | 'askerIdentityId'
      | 'expiresAt'
    >,
  ): Promise<Approval>;
  /** Null when absent or in another workspace. */
  get(workspaceId: string, id: string): Promise<Approval | null>;
  /** Settles a pending approval; null when it was no longer pending (someone else settled it first). */
  settle(
    id: string,
    change: Pick<Approval, 'status' | 'decidedBy' | 'decidedVia' | 'decidedAt' | 'reason'>,
  ): Promise<Approval | null>;
  /** Approvals asked in a conversation, oldest first (web cards). */
  listForConversation(workspaceId: string, conversationId: string): Promise<Approval[]>;
  /** Pending approvals a person may decide in a workspace (their inbox). */
  listPending(workspaceId: string): Promise<Approval[]>;
  addView(v: ApprovalView): Promise<void>;
  views(approvalId: string, surface?: SurfaceName): Promise<ApprovalView[]>;
}

/** Everything the core keeps. `transaction` runs `fn` atomically against the same repositories. */
export interface Store {
  orgs: OrgRepo;
  people: PeopleRepo;
  workspaces: WorkspaceRepo;
  agents: AgentRepo;
  messages: MessageRepo;
  outbox: OutboxRepo;
  audit: AuditRepo;
  tokens: OneTimeTokenRepo;
  approvals: ApprovalRepo;
  documents: DocumentRepo;
  /** Web chat: channels, read markers, the web inbox. */
  chat: ChatRepo;
  /** Web sign-in sessions. */
  sessions: SessionRepo;
  /** When agents last used their token. */
  presence: PresenceRepo;
  /** Chat users (Slack, Teams) and the person each is linked to. */
  identities: ExternalIdentityRepo;
  /** Which workspace each chat team or tenant maps to. */
  tenants: SurfaceTenantRepo;
  /** The agent a chat user's DMs or a channel's unaddressed mentions go to. */
  defaultAgents: DefaultAgentRepo;
  /** Chat channel members and what agents read, for audiences. */
  audiences: AudienceRepo;
  /** Slack and Teams requests received and acknowledged, with the jobs that handle them. */
  inbound: InboundEventRepo;
  posts: SurfacePostRepo;
  /** Bridged channels and their message map. */
  bridges: BridgeRepo;
  /** Reactions to messages, from every side. */
  reactions: ReactionRepo;
  /** Agents listening to channels. */
  listening: ListeningRepo;
  /** What people asked for, with its source messages and notes. */
  intake: IntakeRepo;
  /** Records an inbound event id; false when it was seen before (so it is processed once). */
  firstSeen(source: string, eventId: string): Promise<boolean>;
  transaction<T>(fn: (tx: Store) => Promise<T>): Promise<T>;
}

// The clock and cross-process wake-ups live in process-ports.ts.
export { RECHECK, systemClock } from './process-ports.ts';
export type { Clock, Notifier } from './process-ports.ts';

// Work done outside the request (the outbox, received requests, posts made once, the queue) lives in job-ports.ts.
export type {
  InboundEvent,
  InboundEventRepo,
  InboundJob,
  JobContext,
  JobHandler,
  JobQueue,
  NewInboundEvent,
  OutboxEntry,
  OutboxRepo,
  PostAttempt,
  SettledAttempt,
  SurfacePostRepo,
} from './job-ports.ts';
