import { randomUUID } from 'node:crypto';
import { and, eq, lt, ne, sql } from 'drizzle-orm';
import { z } from 'zod';
import { invalidInput } from '../../core/errors.ts';
import {
  systemClock,
  type Clock,
  type InboundEvent,
  type InboundEventRepo,
  type InboundJob,
  type NewInboundEvent,
} from '../../core/ports.ts';
import { jsonbRefuses, storableCopy } from '../../core/safe-text.ts';
import { runNamed, type Db } from './client.ts';
import { isUuid } from './ids.ts';
import { rowsOf } from './org-repo.ts';
import { afterSiblings } from './outbox-repo.ts';
import { inboundEvents, outbox } from './schema.ts';

const columns = {
  id: inboundEvents.id,
  surface: inboundEvents.surface,
  key: inboundEvents.key,
  kind: inboundEvents.kind,
  payload: inboundEvents.payload,
  outboxId: inboundEvents.outboxId,
  receivedAt: inboundEvents.receivedAt,
};

const NUL = /\u0000/;
const text = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((s) => !NUL.test(s), 'contains a NUL character');
/** A chat surface's name as the registry gives it (`slack`, `teams`, `email`): the store keeps any surface's requests. */
export const surfaceName = z.string().regex(/^[a-z][a-z0-9-]{0,31}$/, 'is not a surface name');
const eventShape = z.object({
  surface: surfaceName,
  key: text(512),
  kind: text(64),
  payload: z.record(z.string(), z.unknown()),
});

function validated<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw invalidInput(`The inbound event cannot be stored: ${issue.path.join('.') || 'it'} ${issue.message}.`);
}

/** A request checked and ready to be written, with the ids its row and outbox entry will have. */
export interface PreparedInbound {
  event: NewInboundEvent;
  /** Its row of the batch, as JSON (see `rowOf`): made when the request arrives, so a batch only joins them. */
  row: string;
  id: string;
  outboxId: string;
}

/** One request waiting for the next batch insert, and its caller. */
interface Waiting extends PreparedInbound {
  done(row: InboundEvent | null): void;
  failed(e: unknown): void;
}

/** At most this many requests are written by one statement. */
const MAX_BATCH = 200;

/**
 * A request's row of the batch, as JSON (what `insert` reads back with `->>`), and the payload it holds: what a person
 * typed is kept even where jsonb cannot hold it (a NUL, a lone surrogate), with U+FFFD in its place (`storableJson`).
 */
function rowOf(row: { payload: Record<string, unknown> } & Record<string, unknown>): {
  json: string;
  payload: Record<string, unknown>;
} {
  const json = JSON.stringify(row);
  if (!jsonbRefuses(json)) return { json, payload: row.payload };
  const clean = storableCopy(row);
  return { json: JSON.stringify(clean), payload: clean.payload };
}

/**
 * Received Slack and Teams requests. The row and the outbox entry that handles
 * it are written by one statement, so an acknowledged request always has its
 * job, and the unique (surface, key) turns a redelivery into a no-op.
 *
 * `accept` is on the path Slack and Teams wait on (their acknowledgement), so
 * requests arriving while a write is in flight wait for it and are then
 * written together, by one statement (a group commit): one round trip, and on
 * PGlite one stretch of its thread, for a burst instead of one per request.
 * The statement's text is the same for every batch (the batch is its one
 * parameter, a JSON array), so PostgreSQL prepares it once per connection,
 * and it returns only what the callers lack.
 */
export class DrizzleInboundEventRepo implements InboundEventRepo {
  private waiting: Waiting[] = [];
  private writing = false;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock = systemClock,
  ) {}

  async accept(e: NewInboundEvent, job: InboundJob): Promise<InboundEvent | null> {
    const [result] = await this.write([this.prepare(e, job)]);
    if (result.status === 'rejected') throw result.reason;
    return result.value;
  }

  /** Checks a request and builds its row; throws INVALID_INPUT when it cannot be stored. */
  prepare(e: NewInboundEvent, job: InboundJob): PreparedInbound {
    const event = validated(eventShape, e);
    const id = randomUUID();
    const outboxId = randomUUID();
    const { json, payload } = rowOf({
      id,
      surface: event.surface,
      key: event.key,
      kind: event.kind,
      payload: event.payload,
      outbox_id: outboxId,
      topic: job.topic,
      ordering_key: job.orderingKey,
    });
    return { event: { ...event, payload }, row: json, id, outboxId };
  }

  /**
   * Writes prepared requests together with whatever else waits: for each, its stored row, null when its key was
   * stored before, or why the database refused it (one refused request costs no other its place).
   */
  write(prepared: PreparedInbound[]): Promise<Array<PromiseSettledResult<InboundEvent | null>>> {
    const results = prepared.map(
      (p) =>
        new Promise<InboundEvent | null>((done, failed) => {
          this.waiting.push({ ...p, done, failed });
        }),
    );
    if (!this.writing) void this.writeWaiting();
    return Promise.allSettled(results);
  }

  /** Writes what waits, batch after batch, until nothing does. */
  private async writeWaiting(): Promise<void> {
    this.writing = true;
    try {
      while (this.waiting.length) {
        const batch = this.waiting.splice(0, MAX_BATCH);
        try {
          settle(batch, await this.insert(batch));
        } catch (e) {
          if (batch.length === 1) {
            batch[0].failed(e);
            continue;
          }
          // One request the database refuses (a constraint it breaks) must not cost the others theirs.
          for (const w of batch) await this.insert([w]).then((rows) => settle([w], rows), w.failed);
        }
      }
    } finally {
      this.writing = false;
    }
  }

  /** Inserts the batch's events and their outbox entries; returns when each row stored was received (a key seen before is skipped). */
  private async insert(batch: Waiting[]): Promise<Map<string, Date>> {
    // Outbox entries of one key are ordered by created_at; rows of one statement see the same siblings, so each comes a microsecond after the one before.
    const statement = sql`
      with batch as (
        select (r->>'id')::uuid as id, r->>'surface' as surface, r->>'key' as key, r->>'kind' as kind, r->'payload' as payload,
          (r->>'outbox_id')::uuid as outbox_id, r->>'topic' as topic, r->>'ordering_key' as ordering_key, n
        from jsonb_array_elements(${`[${batch.map((w) => w.row).join(',')}]`}::jsonb) with ordinality as rows (r, n)),
      stored as (
        insert into ${inboundEvents} (id, surface, key, kind, payload, outbox_id)
        select id, surface, key, kind, payload, outbox_id from batch order by n
        on conflict (surface, key) do nothing
        returning id, received_at),
      entries as (
        insert into ${outbox} (id, topic, payload, ordering_key, run_at, created_at)
        select b.outbox_id, b.topic, jsonb_build_object('inboundId', b.id), b.ordering_key, ${this.clock.now().toISOString()}::timestamptz,
          (case when b.ordering_key is null then clock_timestamp() else ${afterSiblings(sql`b.ordering_key`)} end) + b.n * interval '1 microsecond'
        from stored s join batch b on b.id = s.id)
      select id, received_at from stored`;
    // Named (planning took longer than running it).
    const result = await runNamed(this.db, 'inbound_accept', statement);
    return new Map(
      rowsOf<{ id: string; received_at: Date | string }>(result).map((r) => [r.id, new Date(r.received_at)]),
    );
  }

  async remember(e: Omit<NewInboundEvent, 'payload'>): Promise<boolean> {
    const event = validated(eventShape.omit({ payload: true }), e);
    const rows = await this.db
      .insert(inboundEvents)
      .values({ ...event, payload: {} })
      .onConflictDoNothing()
      .returning({ id: inboundEvents.id });
    return rows.length === 1;
  }

  async get(id: string): Promise<InboundEvent | null> {
    if (!isUuid(id)) return null;
    const [row] = await this.db.select(columns).from(inboundEvents).where(eq(inboundEvents.id, id)).limit(1);
    return row ?? null;
  }

  async purgeBefore(cutoff: Date): Promise<number> {
    // Handled: its job is done, or already purged as done (an entry never leaves the outbox otherwise).
    const unfinished = this.db
      .select({ id: outbox.id })
      .from(outbox)
      .where(and(eq(outbox.id, inboundEvents.outboxId), ne(outbox.status, 'done')));
    const rows = await this.db
      .delete(inboundEvents)
      .where(and(lt(inboundEvents.receivedAt, cutoff), sql`not exists (${unfinished})`))
      .returning({ id: inboundEvents.id });
    return rows.length;
  }
}

/** Hands each waiting caller its stored row, or null when its key had been stored before (or earlier in the batch). */
function settle(batch: Waiting[], stored: Map<string, Date>): void {
  for (const w of batch) {
    const receivedAt = stored.get(w.id);
    w.done(receivedAt ? { id: w.id, ...w.event, outboxId: w.outboxId, receivedAt } : null);
  }
}
