// Work done later and once: the outbox the queues run from, received Slack and Teams requests, platform posts.
import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { id, ts } from './columns.ts';

export const outbox = pgTable(
  'outbox',
  {
    id: id(),
    topic: text('topic').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    /** Jobs sharing a key are delivered in order and paced together (e.g. one Slack channel). */
    orderingKey: text('ordering_key'),
    status: text('status', { enum: ['pending', 'queued', 'done', 'failed'] })
      .notNull()
      .default('pending'),
    attempts: integer('attempts').notNull().default(0),
    runAt: ts('run_at').notNull().defaultNow(),
    lastError: text('last_error'),
    createdAt: ts('created_at').notNull().defaultNow(),
    finishedAt: ts('finished_at'),
  },
  (t) => [
    index('outbox_due_idx').on(t.status, t.runAt),
    /** An ordering key's unfinished entries in order: the newest for a new entry's created_at, the ones ahead for a claim. */
    index('outbox_key_idx').on(t.orderingKey, t.createdAt).where(sql`status in ('pending', 'queued')`),
  ],
);

export const processedEvents = pgTable(
  'processed_events',
  {
    source: text('source').notNull(),
    eventId: text('event_id').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.source, t.eventId] })],
);

/**
 * Posts made outside an agent's message (approval cards, link confirmations,
 * a slash command's request post), one row per post `key`: the attempt is
 * counted before the platform is called and the platform's id kept after, so
 * a retry after a crash looks for the earlier post instead of posting again.
 */
export const surfacePosts = pgTable(
  'surface_posts',
  {
    surface: text('surface').notNull(),
    key: text('key').notNull(),
    attempts: integer('attempts').notNull().default(1),
    externalId: text('external_id'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.surface, t.key] }), index('surface_posts_created_idx').on(t.createdAt)],
);

/**
 * Every Slack and Teams request Switchboard acknowledged, stored before the
 * acknowledgement so a crash cannot lose it. `key` makes a redelivery (Slack's
 * retry, Teams' resend, a replayed signed request) the same row; the linked
 * outbox entry carries the processing status, attempts and last error.
 */
export const inboundEvents = pgTable(
  'inbound_events',
  {
    id: id(),
    surface: text('surface').notNull(),
    key: text('key').notNull(),
    kind: text('kind').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    outboxId: uuid('outbox_id'),
    receivedAt: ts('received_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('inbound_events_key_uq').on(t.surface, t.key),
    index('inbound_events_received_idx').on(t.receivedAt),
  ],
);
