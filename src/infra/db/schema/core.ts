// The organization and its people, workspaces and agents, and the conversations, messages and deliveries between them.
import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { id, ts, tsvector } from './columns.ts';

export const organizations = pgTable('organizations', {
  id: id(),
  name: text('name').notNull(),
  slug: text('slug').notNull().unique(),
  plan: text('plan', { enum: ['free', 'team'] })
    .notNull()
    .default('free'),
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

export const orgMembers = pgTable(
  'org_members',
  {
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    personId: uuid('person_id')
      .notNull()
      .references(() => people.id, { onDelete: 'cascade' }),
    role: text('role', { enum: ['admin', 'member'] }).notNull(),
    hasSeat: boolean('has_seat').notNull().default(false),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.personId] })],
);

export const workspaces = pgTable(
  'workspaces',
  {
    id: id(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    slug: text('slug').notNull().unique(),
    restricted: boolean('restricted').notNull().default(false),
    kind: text('kind', { enum: ['simplified', 'structured'] })
      .notNull()
      .default('structured'),
    description: text('description').notNull().default(''),
    instructions: text('instructions').notNull().default(''),
    requireLinking: boolean('require_linking').notNull().default(false),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('workspaces_org_idx').on(t.orgId)],
);

export const workspaceMembers = pgTable(
  'workspace_members',
  {
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    personId: uuid('person_id')
      .notNull()
      .references(() => people.id, { onDelete: 'cascade' }),
    role: text('role', { enum: ['owner', 'editor', 'viewer'] }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.personId] })],
);

export const agents = pgTable(
  'agents',
  {
    id: id(),
    ownerId: uuid('owner_id')
      .notNull()
      .references(() => people.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    displayName: text('display_name').notNull(),
    avatarUrl: text('avatar_url'),
    roleLine: text('role_line').notNull().default(''),
    kind: text('kind', { enum: ['agent', 'person'] })
      .notNull()
      .default('agent'),
    /** SHA-256 of the token; never selected by default. */
    tokenHash: text('token_hash').unique(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('agents_owner_name_uq').on(t.ownerId, t.name)],
);

export const agentMemberships = pgTable(
  'agent_memberships',
  {
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    send: boolean('send').notNull().default(true),
    receive: boolean('receive').notNull().default(true),
    canMessage: jsonb('can_message').$type<string[]>().notNull().default([]),
    takesMessagesFrom: jsonb('takes_messages_from').$type<string[]>().notNull().default([]),
    monitor: boolean('monitor').notNull().default(false),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.workspaceId] }), index('agent_memberships_ws_idx').on(t.workspaceId)],
);

export const conversations = pgTable(
  'conversations',
  {
    id: id(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
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
  },
  (t) => [
    uniqueIndex('conversations_ws_key_uq').on(t.workspaceId, t.key),
    // A conversation's threads (the web chat's live stream reads them when it connects).
    index('conversations_parent_idx').on(t.parentId).where(sql`${t.parentId} is not null`),
  ],
);

export const conversationParticipants = pgTable(
  'conversation_participants',
  {
    conversationId: uuid('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
  },
  (t) => [
    primaryKey({ columns: [t.conversationId, t.agentId] }),
    // An agent's conversations (the web chat's sidebar), and what goes when an agent is deleted.
    index('conversation_participants_agent_idx').on(t.agentId),
  ],
);

export const messages = pgTable(
  'messages',
  {
    id: id(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    conversationId: uuid('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    senderId: uuid('sender_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
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
  },
  (t) => [
    index('messages_conv_idx').on(t.conversationId, t.createdAt),
    index('messages_ws_created_idx').on(t.workspaceId, t.createdAt),
    index('messages_sender_idx').on(t.senderId, t.conversationId, t.createdAt),
    // A platform message is looked up by its id in its conversation (redeliveries, edits, deletions, reactions).
    index('messages_external_idx').on(t.conversationId, t.externalId).where(sql`${t.externalId} is not null`),
    index('messages_search_idx').using('gin', t.search),
  ],
);

export const deliveries = pgTable(
  'deliveries',
  {
    messageId: uuid('message_id')
      .notNull()
      .references(() => messages.id, { onDelete: 'cascade' }),
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    workspaceId: uuid('workspace_id').notNull(),
    /**
     * The message's conversation, copied by the statement that stores the message, so the latest message addressed to
     * an agent in a conversation is found by the deliveries' own index. No foreign key: the message's already ties the
     * delivery to the conversation (deleting a conversation deletes its messages, and they their deliveries), and a second
     * one would be checked on every delivery stored and would scan deliveries on every conversation deleted.
     */
    conversationId: uuid('conversation_id').notNull(),
    /**
     * The message's time, copied with its conversation by the same statement, so the deliveries' index holds the
     * addressed ones in the messages' order and the latest is its first entry. The copy stays right: nothing changes a
     * message's created_at once it is stored.
     */
    messageCreatedAt: ts('message_created_at').notNull(),
    readAt: ts('read_at'),
    /** True when the agent only listens to the channel: it heard the message, nobody addressed it. */
    overheard: boolean('overheard').notNull().default(false),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.messageId, t.agentId] }),
    index('deliveries_unread_idx').on(t.agentId, t.workspaceId, t.createdAt).where(sql`read_at is null`),
    // In inbox order too (the web chat's inbox page reads the newest first, a page at a time).
    index('deliveries_agent_idx').on(t.agentId, t.workspaceId, t.createdAt, t.messageId),
    // The messages addressed to an agent in a conversation, newest first as latestReceived orders them (by the message's
    // time, then the delivery's), without those it only overheard: in a busy channel it listens to, those are nearly all.
    // Nulls first (there are none) only so the index's order is a plain `desc`, the order the statement asks for.
    index('deliveries_addressed_idx')
      .on(t.agentId, t.conversationId, t.messageCreatedAt.desc().nullsFirst(), t.createdAt.desc().nullsFirst())
      .where(sql`not overheard`),
  ],
);

export const usage = pgTable(
  'usage',
  {
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    month: text('month').notNull(),
    messages: integer('messages').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.month] })],
);

export const audit = pgTable(
  'audit',
  {
    id: id(),
    workspaceId: uuid('workspace_id'),
    agentId: uuid('agent_id'),
    onBehalfOf: uuid('on_behalf_of'),
    action: text('action').notNull(),
    target: text('target'),
    result: text('result').notNull(),
    details: jsonb('details').$type<Record<string, unknown>>(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('audit_ws_idx').on(t.workspaceId, t.createdAt)],
);
