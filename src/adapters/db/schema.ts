import { sql } from 'drizzle-orm';
import {
  boolean, customType, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid,
} from 'drizzle-orm/pg-core';

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });
const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const id = () => uuid('id').primaryKey().defaultRandom();

export const organizations = pgTable('organizations', {
  id: id(),
  name: text('name').notNull(),
  slug: text('slug').notNull().unique(),
  plan: text('plan', { enum: ['free', 'team'] }).notNull().default('free'),
  licensedMessages: integer('licensed_messages').notNull().default(0),
  personalFor: uuid('personal_for').unique(),
  createdAt: ts('created_at').notNull().defaultNow(),
});

export const people = pgTable('people', {
  id: id(),
  handle: text('handle').notNull().unique(),
  displayName: text('display_name').notNull(),
  email: text('email').unique(),
  passwordHash: text('password_hash'),
  createdAt: ts('created_at').notNull().defaultNow(),
});

export const orgMembers = pgTable('org_members', {
  orgId: uuid('org_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  personId: uuid('person_id').notNull().references(() => people.id, { onDelete: 'cascade' }),
  role: text('role', { enum: ['admin', 'member'] }).notNull(),
  hasSeat: boolean('has_seat').notNull().default(false),
}, (t) => [primaryKey({ columns: [t.orgId, t.personId] })]);

export const workspaces = pgTable('workspaces', {
  id: id(),
  orgId: uuid('org_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  slug: text('slug').notNull().unique(),
  restricted: boolean('restricted').notNull().default(false),
  kind: text('kind', { enum: ['simplified', 'structured'] }).notNull().default('structured'),
  description: text('description').notNull().default(''),
  instructions: text('instructions').notNull().default(''),
  requireLinking: boolean('require_linking').notNull().default(false),
  createdAt: ts('created_at').notNull().defaultNow(),
}, (t) => [index('workspaces_org_idx').on(t.orgId)]);

export const workspaceMembers = pgTable('workspace_members', {
  workspaceId: uuid('workspace_id').notNull().references(() => workspaces.id, { onDelete: 'cascade' }),
  personId: uuid('person_id').notNull().references(() => people.id, { onDelete: 'cascade' }),
  role: text('role', { enum: ['owner', 'editor', 'viewer'] }).notNull(),
}, (t) => [primaryKey({ columns: [t.workspaceId, t.personId] })]);

export const agents = pgTable('agents', {
  id: id(),
  ownerId: uuid('owner_id').notNull().references(() => people.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  displayName: text('display_name').notNull(),
  avatarUrl: text('avatar_url'),
  roleLine: text('role_line').notNull().default(''),
  kind: text('kind', { enum: ['agent', 'person'] }).notNull().default('agent'),
  /** SHA-256 of the token; never selected by default. */
  tokenHash: text('token_hash').unique(),
  createdAt: ts('created_at').notNull().defaultNow(),
}, (t) => [uniqueIndex('agents_owner_name_uq').on(t.ownerId, t.name)]);

export const agentMemberships = pgTable('agent_memberships', {
  agentId: uuid('agent_id').notNull().references(() => agents.id, { onDelete: 'cascade' }),
  workspaceId: uuid('workspace_id').notNull().references(() => workspaces.id, { onDelete: 'cascade' }),
  send: boolean('send').notNull().default(true),
  receive: boolean('receive').notNull().default(true),
  canMessage: jsonb('can_message').$type<string[]>().notNull().default([]),
  takesMessagesFrom: jsonb('takes_messages_from').$type<string[]>().notNull().default([]),
  monitor: boolean('monitor').notNull().default(false),
}, (t) => [primaryKey({ columns: [t.agentId, t.workspaceId] }), index('agent_memberships_ws_idx').on(t.workspaceId)]);

export const conversations = pgTable('conversations', {
  id: id(),
  workspaceId: uuid('workspace_id').notNull().references(() => workspaces.id, { onDelete: 'cascade' }),
  kind: text('kind', { enum: ['dm', 'channel', 'thread', 'external'] }).notNull(),
  /** Stable identity used to find the conversation again (participants, channel name, external thread). */
  key: text('key').notNull(),
  title: text('title').notNull().default(''),
  surface: text('surface').notNull().default('mcp'),
  /** Surface-specific address (e.g. Slack team/channel/thread_ts) as JSON. */
  externalRef: jsonb('external_ref').$type<Record<string, string>>(),
  permalink: text('permalink'),
  parentId: uuid('parent_id'),
  createdAt: ts('created_at').notNull().defaultNow(),
}, (t) => [
  uniqueIndex('conversations_ws_key_uq').on(t.workspaceId, t.key),
  // A conversation's threads (the web chat's live stream reads them when it connects).
  index('conversations_parent_idx').on(t.parentId).where(sql`${t.parentId} is not null`),
]);

export const conversationParticipants = pgTable('conversation_participants', {
  conversationId: uuid('conversation_id').notNull().references(() => conversations.id, { onDelete: 'cascade' }),
  agentId: uuid('agent_id').notNull().references(() => agents.id, { onDelete: 'cascade' }),
}, (t) => [
  primaryKey({ columns: [t.conversationId, t.agentId] }),
  // An agent's conversations (the web chat's sidebar), and what goes when an agent is deleted.
  index('conversation_participants_agent_idx').on(t.agentId),
]);

export const messages = pgTable('messages', {
  id: id(),
  workspaceId: uuid('workspace_id').notNull().references(() => workspaces.id, { onDelete: 'cascade' }),
  conversationId: uuid('conversation_id').notNull().references(() => conversations.id, { onDelete: 'cascade' }),
  senderId: uuid('sender_id').notNull().references(() => agents.id, { onDelete: 'cascade' }),
  body: text('body').notNull(),
  replyTo: uuid('reply_to'),
  /** The human request this message descends from; agent-to-agent hops are counted per chain. */
  chainId: uuid('chain_id').notNull(),
  hop: integer('hop').notNull().default(0),
  askerPersonId: uuid('asker_person_id'),
  askerIdentityId: uuid('asker_identity_id'),
  surface: text('surface').notNull().default('mcp'),
  permalink: text('permalink'),
  externalId: text('external_id'),
  /** When the first attempt to post it to its chat platform started; with no external_id, a retry looks for that post first. */
  postStartedAt: ts('post_started_at'),
  /** When its author last changed it (null when never); edits are mirrored to bridged channels. */
  editedAt: ts('edited_at'),
  search: tsvector('search').generatedAlwaysAs(sql`to_tsvector('english', body)`),
  createdAt: ts('created_at').notNull().defaultNow(),
}, (t) => [
  index('messages_conv_idx').on(t.conversationId, t.createdAt),
  index('messages_ws_created_idx').on(t.workspaceId, t.createdAt),
  index('messages_sender_idx').on(t.senderId, t.conversationId, t.createdAt),
  // A platform message is looked up by its id in its conversation (redeliveries, edits, deletions, reactions).
  index('messages_external_idx').on(t.conversationId, t.externalId).where(sql`${t.externalId} is not null`),
  index('messages_search_idx').using('gin', t.search),
]);

export const deliveries = pgTable('deliveries', {
  messageId: uuid('message_id').notNull().references(() => messages.id, { onDelete: 'cascade' }),
  agentId: uuid('agent_id').notNull().references(() => agents.id, { onDelete: 'cascade' }),
  workspaceId: uuid('workspace_id').notNull(),
  readAt: ts('read_at'),
  /** True when the agent only listens to the channel: it heard the message, nobody addressed it. */
  overheard: boolean('overheard').notNull().default(false),
  createdAt: ts('created_at').notNull().defaultNow(),
}, (t) => [
  primaryKey({ columns: [t.messageId, t.agentId] }),
  index('deliveries_unread_idx').on(t.agentId, t.workspaceId, t.createdAt).where(sql`read_at is null`),
  // In inbox order too (the web chat's inbox page reads the newest first, a page at a time).
  index('deliveries_agent_idx').on(t.agentId, t.workspaceId, t.createdAt, t.messageId),
]);

export const usage = pgTable('usage', {
  orgId: uuid('org_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  month: text('month').notNull(),
  messages: integer('messages').notNull().default(0),
}, (t) => [primaryKey({ columns: [t.orgId, t.month] })]);

export const outbox = pgTable('outbox', {
  id: id(),
  topic: text('topic').notNull(),
  payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
  /** Jobs sharing a key are delivered in order and paced together (e.g. one Slack channel). */
  orderingKey: text('ordering_key'),
  status: text('status', { enum: ['pending', 'queued', 'done', 'failed'] }).notNull().default('pending'),
  attempts: integer('attempts').notNull().default(0),
  runAt: ts('run_at').notNull().defaultNow(),
  lastError: text('last_error'),
  createdAt: ts('created_at').notNull().defaultNow(),
  finishedAt: ts('finished_at'),
}, (t) => [
  index('outbox_due_idx').on(t.status, t.runAt),
  /** An ordering key's unfinished entries in order: the newest for a new entry's created_at, the ones ahead for a claim. */
  index('outbox_key_idx').on(t.orderingKey, t.createdAt).where(sql`status in ('pending', 'queued')`),
]);

export const audit = pgTable('audit', {
  id: id(),
  workspaceId: uuid('workspace_id'),
  agentId: uuid('agent_id'),
  onBehalfOf: uuid('on_behalf_of'),
  action: text('action').notNull(),
  target: text('target'),
  result: text('result').notNull(),
  details: jsonb('details').$type<Record<string, unknown>>(),
  createdAt: ts('created_at').notNull().defaultNow(),
}, (t) => [index('audit_ws_idx').on(t.workspaceId, t.createdAt)]);

export const processedEvents = pgTable('processed_events', {
  source: text('source').notNull(),
  eventId: text('event_id').notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
}, (t) => [primaryKey({ columns: [t.source, t.eventId] })]);

/**
 * Posts made outside an agent's message (approval cards, link confirmations,
 * a slash command's request post), one row per post `key`: the attempt is
 * counted before the platform is called and the platform's id kept after, so
 * a retry after a crash looks for the earlier post instead of posting again.
 */
export const surfacePosts = pgTable('surface_posts', {
  surface: text('surface').notNull(),
  key: text('key').notNull(),
  attempts: integer('attempts').notNull().default(1),
  externalId: text('external_id'),
  createdAt: ts('created_at').notNull().defaultNow(),
}, (t) => [primaryKey({ columns: [t.surface, t.key] }), index('surface_posts_created_idx').on(t.createdAt)]);

/**
 * Every Slack and Teams request Switchboard acknowledged, stored before the
 * acknowledgement so a crash cannot lose it. `key` makes a redelivery (Slack's
 * retry, Teams' resend, a replayed signed request) the same row; the linked
 * outbox entry carries the processing status, attempts and last error.
 */
export const inboundEvents = pgTable('inbound_events', {
  id: id(),
  surface: text('surface').notNull(),
  key: text('key').notNull(),
  kind: text('kind').notNull(),
  payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
  outboxId: uuid('outbox_id'),
  receivedAt: ts('received_at').notNull().defaultNow(),
}, (t) => [uniqueIndex('inbound_events_key_uq').on(t.surface, t.key), index('inbound_events_received_idx').on(t.receivedAt)]);

/** Single-use, expiring secrets (sign-in links, account-link nonces); only their hash is kept. */
export const oneTimeTokens = pgTable('one_time_tokens', {
  id: id(),
  purpose: text('purpose', { enum: ['signin', 'link'] }).notNull(),
  tokenHash: text('token_hash').notNull().unique(),
  personId: uuid('person_id').references(() => people.id, { onDelete: 'cascade' }),
  subject: jsonb('subject').$type<Record<string, string>>(),
  expiresAt: ts('expires_at').notNull(),
  usedAt: ts('used_at'),
  createdAt: ts('created_at').notNull().defaultNow(),
});

/** Web chat sign-in sessions; the cookie holds a random token, only its hash is kept. */
export const webSessions = pgTable('web_sessions', {
  id: id(),
  tokenHash: text('token_hash').notNull().unique(),
  personId: uuid('person_id').notNull().references(() => people.id, { onDelete: 'cascade' }),
  createdAt: ts('created_at').notNull().defaultNow(),
  lastSeenAt: ts('last_seen_at').notNull().defaultNow(),
  expiresAt: ts('expires_at').notNull(),
}, (t) => [index('web_sessions_person_idx').on(t.personId)]);

/** A web chat channel: the settings of a conversation of kind 'channel'. */
export const channels = pgTable('channels', {
  conversationId: uuid('conversation_id').primaryKey().references(() => conversations.id, { onDelete: 'cascade' }),
  workspaceId: uuid('workspace_id').notNull().references(() => workspaces.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  restricted: boolean('restricted').notNull().default(false),
  description: text('description').notNull().default(''),
  createdBy: uuid('created_by'),
  createdAt: ts('created_at').notNull().defaultNow(),
}, (t) => [uniqueIndex('channels_ws_name_uq').on(t.workspaceId, t.name)]);

export const channelMembers = pgTable('channel_members', {
  conversationId: uuid('conversation_id').notNull().references(() => conversations.id, { onDelete: 'cascade' }),
  personId: uuid('person_id').notNull().references(() => people.id, { onDelete: 'cascade' }),
  joinedAt: ts('joined_at').notNull().defaultNow(),
}, (t) => [primaryKey({ columns: [t.conversationId, t.personId] }), index('channel_members_person_idx').on(t.personId)]);

/** How far a person has read a conversation (unread counts in the web chat). */
export const readMarkers = pgTable('read_markers', {
  conversationId: uuid('conversation_id').notNull().references(() => conversations.id, { onDelete: 'cascade' }),
  personId: uuid('person_id').notNull().references(() => people.id, { onDelete: 'cascade' }),
  readAt: ts('read_at').notNull(),
}, (t) => [primaryKey({ columns: [t.conversationId, t.personId] })]);

/** When an agent last used its token (the agents page shows who is connected now). */
export const agentPresence = pgTable('agent_presence', {
  agentId: uuid('agent_id').primaryKey().references(() => agents.id, { onDelete: 'cascade' }),
  lastSeenAt: ts('last_seen_at').notNull(),
});

/**
 * A person as a chat platform knows them (a Slack user in a team, a Teams user
 * in a tenant), with the profile last read from the platform. `person_id` is
 * set once the account is linked; until then they talk to agents as a guest.
 */
export const externalIdentities = pgTable('external_identities', {
  id: id(),
  surface: text('surface').notNull(),
  tenantId: text('tenant_id').notNull(),
  externalUserId: text('external_user_id').notNull(),
  personId: uuid('person_id').references(() => people.id, { onDelete: 'set null' }),
  displayName: text('display_name').notNull().default(''),
  email: text('email'),
  avatarUrl: text('avatar_url'),
  profile: jsonb('profile').$type<Record<string, unknown>>(),
  profileFetchedAt: ts('profile_fetched_at'),
  linkedAt: ts('linked_at'),
  /** When the app first asked them to link (a DM with a link); it asks unprompted only once. */
  linkPromptedAt: ts('link_prompted_at'),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [
  uniqueIndex('external_identities_uq').on(t.surface, t.tenantId, t.externalUserId),
  index('external_identities_person_idx').on(t.personId),
]);

/**
 * A Slack team the app is installed in (the workspace it maps to is in
 * `surface_tenants`). The bot token is sealed with SWITCHBOARD_SECRET;
 * null means the single-workspace token from SLACK_BOT_TOKEN is used.
 */
export const slackInstallations = pgTable('slack_installations', {
  teamId: text('team_id').primaryKey(),
  enterpriseId: text('enterprise_id'),
  teamName: text('team_name').notNull().default(''),
  botTokenSealed: text('bot_token_sealed'),
  botUserId: text('bot_user_id').notNull(),
  botId: text('bot_id').notNull(),
  appId: text('app_id'),
  scopes: text('scopes').notNull().default(''),
  installedBy: text('installed_by'),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

/**
 * Which Switchboard workspace a chat team or tenant maps to (a Slack team, a
 * Teams tenant): one shape for every surface. No row: not connected.
 */
export const surfaceTenants = pgTable('surface_tenants', {
  surface: text('surface').notNull(),
  tenantId: text('tenant_id').notNull(),
  workspaceId: uuid('workspace_id').notNull().references(() => workspaces.id, { onDelete: 'cascade' }),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [primaryKey({ columns: [t.surface, t.tenantId] }), index('surface_tenants_ws_idx').on(t.workspaceId)]);

/**
 * The agent a chat user's DMs with the app go to (scope 'user') and a
 * channel's mentions that name nobody (scope 'channel'), for every surface.
 */
export const defaultAgents = pgTable('default_agents', {
  surface: text('surface').notNull(),
  tenantId: text('tenant_id').notNull(),
  scope: text('scope', { enum: ['user', 'channel'] }).notNull(),
  scopeId: text('scope_id').notNull(),
  agentId: uuid('agent_id').notNull().references(() => agents.id, { onDelete: 'cascade' }),
  setBy: text('set_by'),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [primaryKey({ columns: [t.surface, t.tenantId, t.scope, t.scopeId] })]);

/** Millisecond timestamps: `updated_at` is handed to agents and compared back exactly, so it must survive a JS Date. */
const tsMs = (name: string) => timestamp(name, { withTimezone: true, mode: 'date', precision: 3 });

/** A workspace's document collections (one hidden collection in a Simplified workspace). */
export const collections = pgTable('collections', {
  id: id(),
  workspaceId: uuid('workspace_id').notNull().references(() => workspaces.id, { onDelete: 'cascade' }),
  key: text('key').notNull(),
  type: text('type').notNull(),
  name: text('name').notNull(),
  statuses: jsonb('statuses').$type<string[]>().notNull(),
  instructions: text('instructions').notNull().default(''),
  active: boolean('active').notNull().default(true),
  hidden: boolean('hidden').notNull().default(false),
  createdAt: tsMs('created_at').notNull().defaultNow(),
  updatedAt: tsMs('updated_at').notNull().defaultNow(),
}, (t) => [uniqueIndex('collections_ws_key_uq').on(t.workspaceId, t.key)]);

/**
 * Documents. `number` makes the identifier unique in the workspace; `search`
 * covers the identifier, title and summary only: content is never searched.
 */
export const documents = pgTable('documents', {
  id: id(),
  workspaceId: uuid('workspace_id').notNull().references(() => workspaces.id, { onDelete: 'cascade' }),
  collectionId: uuid('collection_id').notNull().references(() => collections.id),
  number: integer('number').notNull(),
  identifier: text('identifier').notNull(),
  title: text('title').notNull(),
  summary: text('summary').notNull().default(''),
  content: text('content').notNull().default(''),
  status: text('status').notNull(),
  archived: boolean('archived').notNull().default(false),
  createdBy: uuid('created_by').references(() => agents.id, { onDelete: 'set null' }),
  updatedBy: uuid('updated_by').references(() => agents.id, { onDelete: 'set null' }),
  search: tsvector('search').generatedAlwaysAs(sql`setweight(to_tsvector('english', identifier || ' ' || title), 'A') || setweight(to_tsvector('english', summary), 'B')`),
  createdAt: tsMs('created_at').notNull().defaultNow(),
  updatedAt: tsMs('updated_at').notNull().defaultNow(),
}, (t) => [
  uniqueIndex('documents_ws_number_uq').on(t.workspaceId, t.number),
  uniqueIndex('documents_ws_identifier_uq').on(t.workspaceId, t.identifier),
  // Identifiers are looked up whatever their case.
  index('documents_ws_identifier_upper_idx').on(t.workspaceId, sql`upper(${t.identifier})`),
  index('documents_collection_idx').on(t.collectionId, t.updatedAt),
  index('documents_search_idx').using('gin', t.search),
]);

/** Approvals an agent asked for; settled once by a conditional update from `pending`. */
export const approvals = pgTable('approvals', {
  id: id(),
  workspaceId: uuid('workspace_id').notNull().references(() => workspaces.id, { onDelete: 'cascade' }),
  agentId: uuid('agent_id').notNull().references(() => agents.id, { onDelete: 'cascade' }),
  conversationId: uuid('conversation_id').references(() => conversations.id, { onDelete: 'set null' }),
  title: text('title').notNull(),
  details: text('details').notNull().default(''),
  approvers: jsonb('approvers').$type<string[]>().notNull().default([]),
  status: text('status', { enum: ['pending', 'approved', 'rejected', 'expired', 'cancelled'] }).notNull().default('pending'),
  decidedBy: uuid('decided_by').references(() => people.id, { onDelete: 'set null' }),
  decidedVia: text('decided_via'),
  decidedAt: ts('decided_at'),
  reason: text('reason'),
  askerPersonId: uuid('asker_person_id'),
  askerIdentityId: uuid('asker_identity_id'),
  expiresAt: ts('expires_at'),
  createdAt: ts('created_at').notNull().defaultNow(),
}, (t) => [index('approvals_ws_status_idx').on(t.workspaceId, t.status), index('approvals_conv_idx').on(t.conversationId)]);

/** Each place an approval is shown on a surface (Slack message, Teams card), to update it when settled. */
export const approvalViews = pgTable('approval_views', {
  approvalId: uuid('approval_id').notNull().references(() => approvals.id, { onDelete: 'cascade' }),
  surface: text('surface').notNull(),
  key: text('key').notNull(),
  ref: jsonb('ref').$type<Record<string, string>>().notNull(),
}, (t) => [primaryKey({ columns: [t.approvalId, t.surface, t.key] })]);

/**
 * A Teams user as the bot sees them: their Bot Framework id (`29:…`, needed for
 * card refresh and proactive chats), their personal chat with the bot once
 * there is one (the agent it talks to is in `default_agents`).
 */
export const teamsUsers = pgTable('teams_users', {
  tenantId: text('tenant_id').notNull(),
  aadObjectId: text('aad_object_id').notNull(),
  userId: text('user_id').notNull(),
  name: text('name').notNull().default(''),
  personalConversationId: text('personal_conversation_id'),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [primaryKey({ columns: [t.tenantId, t.aadObjectId] })]);

/** The last Bot Framework conversation reference seen for each Teams conversation, for proactive posts. */
export const teamsConversationReferences = pgTable('teams_conversation_references', {
  conversationId: text('conversation_id').primaryKey(),
  tenantId: text('tenant_id').notNull(),
  conversationType: text('conversation_type').notNull(),
  reference: jsonb('reference').$type<Record<string, unknown>>().notNull(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [index('teams_conversation_references_tenant_idx').on(t.tenantId)]);

/**
 * Who is in a chat channel (a Slack channel, later a Teams channel), cached
 * from the platform (`conversations.members`) so every conversation's audience
 * can be computed without asking the platform each time. A row in
 * `surface_channels` says the member list is complete as of `fetched_at`;
 * join and leave events keep it current in between.
 */
export const surfaceChannels = pgTable('surface_channels', {
  surface: text('surface').notNull(),
  tenantId: text('tenant_id').notNull(),
  channelId: text('channel_id').notNull(),
  fetchedAt: ts('fetched_at').notNull(),
}, (t) => [primaryKey({ columns: [t.surface, t.tenantId, t.channelId] })]);

export const surfaceChannelMembers = pgTable('surface_channel_members', {
  surface: text('surface').notNull(),
  tenantId: text('tenant_id').notNull(),
  channelId: text('channel_id').notNull(),
  externalUserId: text('external_user_id').notNull(),
}, (t) => [primaryKey({ columns: [t.surface, t.tenantId, t.channelId, t.externalUserId] })]);

/**
 * Private content an agent took in (a document it read, messages from a
 * restricted channel), kept briefly so a later post into a conversation with a
 * wider audience can be refused. `for_conversation_id` is the conversation the
 * agent named when reading, if any.
 */
export const audienceReads = pgTable('audience_reads', {
  id: id(),
  agentId: uuid('agent_id').notNull().references(() => agents.id, { onDelete: 'cascade' }),
  workspaceId: uuid('workspace_id').notNull().references(() => workspaces.id, { onDelete: 'cascade' }),
  source: text('source', { enum: ['document', 'conversation'] }).notNull(),
  sourceId: text('source_id').notNull(),
  label: text('label').notNull(),
  forConversationId: uuid('for_conversation_id'),
  readAt: ts('read_at').notNull(),
}, (t) => [index('audience_reads_agent_idx').on(t.agentId, t.workspaceId, t.readAt)]);

/**
 * A web chat channel linked to a Slack or a Teams channel: every side mirrors
 * the others. One bridge per surface per web channel, and an outside channel
 * is bridged to one web channel at most. `external_ref` is the address the
 * surface posts to; `allow_private` is the owner's consent to mirror a
 * restricted web channel into a wider audience.
 */
export const bridges = pgTable('bridges', {
  id: id(),
  workspaceId: uuid('workspace_id').notNull().references(() => workspaces.id, { onDelete: 'cascade' }),
  channelId: uuid('channel_id').notNull().references(() => conversations.id, { onDelete: 'cascade' }),
  surface: text('surface').notNull(),
  tenantId: text('tenant_id').notNull(),
  externalChannelId: text('external_channel_id').notNull(),
  externalRef: jsonb('external_ref').$type<Record<string, string>>().notNull(),
  title: text('title').notNull().default(''),
  allowPrivate: boolean('allow_private').notNull().default(false),
  createdBy: uuid('created_by').references(() => people.id, { onDelete: 'set null' }),
  createdAt: ts('created_at').notNull().defaultNow(),
}, (t) => [
  uniqueIndex('bridges_external_uq').on(t.surface, t.tenantId, t.externalChannelId),
  uniqueIndex('bridges_channel_surface_uq').on(t.channelId, t.surface),
  index('bridges_ws_idx').on(t.workspaceId),
]);

/**
 * The persistent message map of a bridge: a web message and its counterpart on
 * the bridged side (a Slack ts, a Teams activity id), unique both ways, so
 * threads, edits, deletes and reactions map after any restart. `inbound` rows
 * record messages written on that side; the others are our mirrors, whose
 * `post_started_at` makes the post exactly-once (see bridges/mirror-out.ts).
 */
export const bridgeMessages = pgTable('bridge_messages', {
  bridgeId: uuid('bridge_id').notNull().references(() => bridges.id, { onDelete: 'cascade' }),
  messageId: uuid('message_id').notNull().references(() => messages.id, { onDelete: 'cascade' }),
  externalId: text('external_id'),
  inbound: boolean('inbound').notNull(),
  postStartedAt: ts('post_started_at'),
  createdAt: ts('created_at').notNull().defaultNow(),
}, (t) => [
  primaryKey({ columns: [t.bridgeId, t.messageId] }),
  uniqueIndex('bridge_messages_external_uq').on(t.bridgeId, t.externalId),
  // A message's mirrors (its edits, deletions and reactions follow them), and what goes when it is deleted.
  index('bridge_messages_message_idx').on(t.messageId),
]);

/**
 * Reactions to messages, from any side: `reactor` is `agent:<id>` for a person
 * in the web chat, `identity:<id>` for a Slack or Teams user; `emoji` is a
 * short name (`thumbsup`).
 */
export const messageReactions = pgTable('message_reactions', {
  messageId: uuid('message_id').notNull().references(() => messages.id, { onDelete: 'cascade' }),
  workspaceId: uuid('workspace_id').notNull().references(() => workspaces.id, { onDelete: 'cascade' }),
  emoji: text('emoji').notNull(),
  reactor: text('reactor').notNull(),
  reactorName: text('reactor_name').notNull().default(''),
  surface: text('surface').notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
}, (t) => [primaryKey({ columns: [t.messageId, t.emoji, t.reactor] })]);

/**
 * Agents a channel lets listen (off until an owner turns it on): each hears
 * every message of the channel, flagged overheard. `channel_id` is the web
 * channel's conversation id, or the Slack or Teams channel id.
 */
export const channelListeners = pgTable('channel_listeners', {
  workspaceId: uuid('workspace_id').notNull().references(() => workspaces.id, { onDelete: 'cascade' }),
  surface: text('surface').notNull(),
  channelId: text('channel_id').notNull(),
  agentId: uuid('agent_id').notNull().references(() => agents.id, { onDelete: 'cascade' }),
  addedBy: uuid('added_by'),
  createdAt: ts('created_at').notNull().defaultNow(),
}, (t) => [
  primaryKey({ columns: [t.workspaceId, t.surface, t.channelId, t.agentId] }),
  index('channel_listeners_agent_idx').on(t.agentId),
  // Whether anyone listens in a channel, asked for every top-level message there.
  index('channel_listeners_channel_idx').on(t.surface, t.channelId),
]);

/** What people asked for (complaints, bugs, feature requests, questions), filed by agents or from unlinked people's requests. */
export const intakeItems = pgTable('intake_items', {
  id: id(),
  workspaceId: uuid('workspace_id').notNull().references(() => workspaces.id, { onDelete: 'cascade' }),
  title: text('title').notNull(),
  kind: text('kind', { enum: ['complaint', 'bug', 'feature request', 'question'] }).notNull(),
  summary: text('summary').notNull().default(''),
  status: text('status', { enum: ['new', 'triaged', 'in progress', 'done', "won't do"] }).notNull().default('new'),
  /** The agent that filed it; null when Switchboard filed it from a request. */
  filedBy: uuid('filed_by').references(() => agents.id, { onDelete: 'set null' }),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [index('intake_items_ws_idx').on(t.workspaceId, t.status, t.createdAt)]);

/**
 * A message an intake item came from. What identifies the asker and the place
 * is copied here, so the link and the done notice outlive the message's history.
 */
export const intakeSources = pgTable('intake_sources', {
  itemId: uuid('item_id').notNull().references(() => intakeItems.id, { onDelete: 'cascade' }),
  messageId: uuid('message_id').notNull(),
  workspaceId: uuid('workspace_id').notNull().references(() => workspaces.id, { onDelete: 'cascade' }),
  conversationId: uuid('conversation_id').notNull(),
  surface: text('surface').notNull(),
  permalink: text('permalink'),
  excerpt: text('excerpt').notNull().default(''),
  /** Who wrote it: their agent (a person agent, or the guest) and, from a chat app, their identity. */
  authorAgentId: uuid('author_agent_id'),
  authorPersonId: uuid('author_person_id'),
  authorIdentityId: uuid('author_identity_id'),
  /** When the author was told the item is done (once per source). */
  notifiedAt: ts('notified_at'),
  addedAt: ts('added_at').notNull().defaultNow(),
}, (t) => [
  primaryKey({ columns: [t.itemId, t.messageId] }),
  index('intake_sources_msg_idx').on(t.workspaceId, t.messageId),
  // The automatic item a conversation already has (asked for every guest's request).
  index('intake_sources_conv_idx').on(t.conversationId),
]);

export const intakeNotes = pgTable('intake_notes', {
  id: id(),
  itemId: uuid('item_id').notNull().references(() => intakeItems.id, { onDelete: 'cascade' }),
  authorAgentId: uuid('author_agent_id'),
  body: text('body').notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
}, (t) => [index('intake_notes_item_idx').on(t.itemId, t.createdAt)]);

/** People (or, unlinked, chat identities) who do not want to be told when what they asked for is done. `subject` is `person:<id>` or `identity:<id>`. */
export const intakeOptOuts = pgTable('intake_opt_outs', {
  subject: text('subject').primaryKey(),
  createdAt: ts('created_at').notNull().defaultNow(),
});
