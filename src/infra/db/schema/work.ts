// What agents and people work on together: documents, approvals, intake.
import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { id, ts, tsMs, tsvector } from './columns.ts';
import { agents, conversations, people, workspaces } from './core.ts';

/** A workspace's document collections (one hidden collection in a Simplified workspace). */
export const collections = pgTable(
  'collections',
  {
    id: id(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    type: text('type').notNull(),
    name: text('name').notNull(),
    statuses: jsonb('statuses').$type<string[]>().notNull(),
    instructions: text('instructions').notNull().default(''),
    active: boolean('active').notNull().default(true),
    hidden: boolean('hidden').notNull().default(false),
    createdAt: tsMs('created_at').notNull().defaultNow(),
    updatedAt: tsMs('updated_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('collections_ws_key_uq').on(t.workspaceId, t.key)],
);

/**
 * Documents. `number` makes the identifier unique in the workspace; `search`
 * covers the identifier, title and summary only: content is never searched.
 */
export const documents = pgTable(
  'documents',
  {
    id: id(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    collectionId: uuid('collection_id')
      .notNull()
      .references(() => collections.id),
    number: integer('number').notNull(),
    identifier: text('identifier').notNull(),
    title: text('title').notNull(),
    summary: text('summary').notNull().default(''),
    content: text('content').notNull().default(''),
    status: text('status').notNull(),
    archived: boolean('archived').notNull().default(false),
    createdBy: uuid('created_by').references(() => agents.id, { onDelete: 'set null' }),
    updatedBy: uuid('updated_by').references(() => agents.id, { onDelete: 'set null' }),
    search: tsvector('search').generatedAlwaysAs(
      sql`setweight(to_tsvector('english', identifier || ' ' || title), 'A') || setweight(to_tsvector('english', summary), 'B')`,
    ),
    createdAt: tsMs('created_at').notNull().defaultNow(),
    updatedAt: tsMs('updated_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('documents_ws_number_uq').on(t.workspaceId, t.number),
    uniqueIndex('documents_ws_identifier_uq').on(t.workspaceId, t.identifier),
    // Identifiers are looked up whatever their case.
    index('documents_ws_identifier_upper_idx').on(t.workspaceId, sql`upper(${t.identifier})`),
    index('documents_collection_idx').on(t.collectionId, t.updatedAt),
    index('documents_search_idx').using('gin', t.search),
  ],
);

/** Approvals an agent asked for; settled once by a conditional update from `pending`. */
export const approvals = pgTable(
  'approvals',
  {
    id: id(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    conversationId: uuid('conversation_id').references(() => conversations.id, { onDelete: 'set null' }),
    title: text('title').notNull(),
    details: text('details').notNull().default(''),
    approvers: jsonb('approvers').$type<string[]>().notNull().default([]),
    status: text('status', { enum: ['pending', 'approved', 'rejected', 'expired', 'cancelled'] })
      .notNull()
      .default('pending'),
    decidedBy: uuid('decided_by').references(() => people.id, { onDelete: 'set null' }),
    decidedVia: text('decided_via'),
    decidedAt: ts('decided_at'),
    reason: text('reason'),
    askerPersonId: uuid('asker_person_id'),
    askerIdentityId: uuid('asker_identity_id'),
    expiresAt: ts('expires_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    index('approvals_ws_status_idx').on(t.workspaceId, t.status),
    index('approvals_conv_idx').on(t.conversationId),
  ],
);

/** Each place an approval is shown on a surface (Slack message, Teams card), to update it when settled. */
export const approvalViews = pgTable(
  'approval_views',
  {
    approvalId: uuid('approval_id')
      .notNull()
      .references(() => approvals.id, { onDelete: 'cascade' }),
    surface: text('surface').notNull(),
    key: text('key').notNull(),
    ref: jsonb('ref').$type<Record<string, string>>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.approvalId, t.surface, t.key] })],
);

/** What people asked for (complaints, bugs, feature requests, questions), filed by agents or from unlinked people's requests. */
export const intakeItems = pgTable(
  'intake_items',
  {
    id: id(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    kind: text('kind', { enum: ['complaint', 'bug', 'feature request', 'question'] }).notNull(),
    summary: text('summary').notNull().default(''),
    status: text('status', { enum: ['new', 'triaged', 'in progress', 'done', "won't do"] })
      .notNull()
      .default('new'),
    /** The agent that filed it; null when Switchboard filed it from a request. */
    filedBy: uuid('filed_by').references(() => agents.id, { onDelete: 'set null' }),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [index('intake_items_ws_idx').on(t.workspaceId, t.status, t.createdAt)],
);

/**
 * A message an intake item came from. What identifies the asker and the place
 * is copied here, so the link and the done notice outlive the message's history.
 */
export const intakeSources = pgTable(
  'intake_sources',
  {
    itemId: uuid('item_id')
      .notNull()
      .references(() => intakeItems.id, { onDelete: 'cascade' }),
    messageId: uuid('message_id').notNull(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
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
  },
  (t) => [
    primaryKey({ columns: [t.itemId, t.messageId] }),
    index('intake_sources_msg_idx').on(t.workspaceId, t.messageId),
    // The automatic item a conversation already has (asked for every guest's request).
    index('intake_sources_conv_idx').on(t.conversationId),
  ],
);

export const intakeNotes = pgTable(
  'intake_notes',
  {
    id: id(),
    itemId: uuid('item_id')
      .notNull()
      .references(() => intakeItems.id, { onDelete: 'cascade' }),
    authorAgentId: uuid('author_agent_id'),
    body: text('body').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('intake_notes_item_idx').on(t.itemId, t.createdAt)],
);

/** People (or, unlinked, chat identities) who do not want to be told when what they asked for is done. `subject` is `person:<id>` or `identity:<id>`. */
export const intakeOptOuts = pgTable('intake_opt_outs', {
  subject: text('subject').primaryKey(),
  createdAt: ts('created_at').notNull().defaultNow(),
});
