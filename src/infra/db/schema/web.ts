// The web chat: sign-in links and sessions, channels, read markers, presence.
import { boolean, index, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { id, ts } from './columns.ts';
import { agents, conversations, people, workspaces } from './core.ts';

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
export const webSessions = pgTable(
  'web_sessions',
  {
    id: id(),
    tokenHash: text('token_hash').notNull().unique(),
    personId: uuid('person_id')
      .notNull()
      .references(() => people.id, { onDelete: 'cascade' }),
    createdAt: ts('created_at').notNull().defaultNow(),
    lastSeenAt: ts('last_seen_at').notNull().defaultNow(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [index('web_sessions_person_idx').on(t.personId)],
);

/** A web chat channel: the settings of a conversation of kind 'channel'. */
export const channels = pgTable(
  'channels',
  {
    conversationId: uuid('conversation_id')
      .primaryKey()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    restricted: boolean('restricted').notNull().default(false),
    description: text('description').notNull().default(''),
    createdBy: uuid('created_by'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('channels_ws_name_uq').on(t.workspaceId, t.name)],
);

export const channelMembers = pgTable(
  'channel_members',
  {
    conversationId: uuid('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    personId: uuid('person_id')
      .notNull()
      .references(() => people.id, { onDelete: 'cascade' }),
    joinedAt: ts('joined_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.personId] }), index('channel_members_person_idx').on(t.personId)],
);

/** How far a person has read a conversation (unread counts in the web chat). */
export const readMarkers = pgTable(
  'read_markers',
  {
    conversationId: uuid('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    personId: uuid('person_id')
      .notNull()
      .references(() => people.id, { onDelete: 'cascade' }),
    readAt: ts('read_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.personId] })],
);

/** When an agent last used its token (the agents page shows who is connected now). */
export const agentPresence = pgTable('agent_presence', {
  agentId: uuid('agent_id')
    .primaryKey()
    .references(() => agents.id, { onDelete: 'cascade' }),
  lastSeenAt: ts('last_seen_at').notNull(),
});
