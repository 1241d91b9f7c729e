import { and, asc, eq, gt, inArray, isNull, lte, ne, notExists, or, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { systemClock, type Clock, type OutboxEntry, type OutboxRepo } from '../../domain/ports.ts';
import type { Db } from './client.ts';
import { isUuid } from './ids.ts';
import { outbox } from './schema.ts';

const entryColumns = {
  id: outbox.id,
  topic: outbox.topic,
  payload: outbox.payload,
  orderingKey: outbox.orderingKey,
  status: outbox.status,
  attempts: outbox.attempts,
  runAt: outbox.runAt,
  lastError: outbox.lastError,
  createdAt: outbox.createdAt,
};

const unfinished = ['pending', 'queued'] as const;

/**
 * The outbox on PostgreSQL or PGlite. Claiming is a single
 * `update … where id = any(array(select … for update skip locked))`, so
 * several processes can poll the same table without handing out an entry twice.
 */
export class DrizzleOutboxRepo implements OutboxRepo {
  /** `clock` should be the queue's: an entry added now must be due for a claim made a moment later. */
  constructor(private readonly db: Db, private readonly clock: Clock = systemClock) {}

  async add(e: { topic: string; payload: Record<string, unknown>; orderingKey?: string | null; runAt?: Date }): Promise<OutboxEntry> {
    const [row] = await this.db.insert(outbox).values({
      topic: e.topic,
      payload: e.payload,
      orderingKey: e.orderingKey ?? null,
      runAt: e.runAt ?? this.clock.now(),
      createdAt: e.orderingKey ? afterSiblings(e.orderingKey) : sql`clock_timestamp()`,
    }).returning(entryColumns);
    return row;
  }

  async get(id: string): Promise<OutboxEntry | null> {
    if (!isUuid(id)) return null;
    const [row] = await this.db.select(entryColumns).from(outbox).where(eq(outbox.id, id)).limit(1);
    return row ?? null;
  }

  /**
   * Claims due entries: pending ones whose time has come and queued ones whose
   * lease ran out (their process died). Within an ordering key only the head is
   * claimable, and only while no sibling is in flight. The head is the oldest
   * unfinished sibling that is due or has been tried already, so a retrying
   * entry holds back the ones added after it (order survives retries, and a
   * Retry-After paces the whole key), while an entry scheduled for later does
   * not hold back the ones due now.
   */
  async claimDue(limit: number, now: Date, leaseMs: number): Promise<OutboxEntry[]> {
    if (limit <= 0) return [];
    const c = alias(outbox, 'c');
    const s = alias(outbox, 's');
    const blockingSibling = this.db.select({ id: s.id }).from(s).where(and(
      eq(s.orderingKey, c.orderingKey),
      ne(s.id, c.id),
      inArray(s.status, [...unfinished]),
      or(
        and(eq(s.status, 'queued'), gt(s.runAt, now)),
        and(
          or(lte(s.runAt, now), gt(s.attempts, 0)),
          sql`(${s.createdAt}, ${s.id}) < (${c.createdAt}, ${c.id})`,
        ),
      ),
    ));
    const due = this.db.select({ id: c.id }).from(c)
      .where(and(
        inArray(c.status, [...unfinished]),
        lte(c.runAt, now),
        or(isNull(c.orderingKey), notExists(blockingSibling)),
      ))
      .orderBy(asc(c.runAt), asc(c.createdAt), asc(c.id))
      .limit(limit)
      .for('update', { skipLocked: true });
    // array(…) is an init plan evaluated once; `in (select … limit … skip locked)`
    // may be re-run by the planner and lock more rows than it returns.
    const rows = await this.db.update(outbox)
      .set({ status: 'queued', attempts: sql`${outbox.attempts} + 1`, runAt: new Date(now.getTime() + leaseMs) })
      .where(sql`${outbox.id} = any(array(${due}))`)
      .returning(entryColumns);
    return rows;
  }

  async renewLease(id: string, attempt: number, until: Date): Promise<OutboxEntry | null> {
    if (!isUuid(id)) return null;
    const [row] = await this.db.update(outbox).set({ runAt: until })
      .where(held(id, attempt))
      .returning(entryColumns);
    return row ?? null;
  }

  async markDone(id: string, attempt?: number): Promise<void> {
    await this.finish(id, { status: 'done', finishedAt: sql`now()` }, attempt);
  }

  async markRetry(id: string, error: string, runAt: Date, attempt?: number): Promise<void> {
    await this.finish(id, { status: 'pending', lastError: error, runAt }, attempt);
  }

  async markFailed(id: string, error: string, attempt?: number): Promise<void> {
    await this.finish(id, { status: 'failed', lastError: error, finishedAt: sql`now()` }, attempt);
  }

  async requeue(id: string): Promise<OutboxEntry | null> {
    if (!isUuid(id)) return null;
    const [row] = await this.db.update(outbox)
      .set({ status: 'pending', attempts: 0, runAt: this.clock.now(), finishedAt: null })
      .where(and(eq(outbox.id, id), eq(outbox.status, 'failed')))
      .returning(entryColumns);
    return row ?? null;
  }

  async list(filter: { topic?: string; status?: OutboxEntry['status'] }): Promise<OutboxEntry[]> {
    return this.db.select(entryColumns).from(outbox)
      .where(and(
        filter.topic === undefined ? undefined : eq(outbox.topic, filter.topic),
        filter.status === undefined ? undefined : eq(outbox.status, filter.status),
      ))
      .orderBy(asc(outbox.createdAt), asc(outbox.id));
  }

  private async finish(id: string, set: { status: OutboxEntry['status']; lastError?: string; runAt?: Date; finishedAt?: SQL }, attempt?: number) {
    await this.db.update(outbox).set(set).where(attempt === undefined ? eq(outbox.id, id) : held(id, attempt));
  }
}

/** The entry is still queued under the claim that made attempt `attempt` (a later claim bumps attempts). */
const held = (id: string, attempt: number) => and(eq(outbox.id, id), eq(outbox.status, 'queued'), eq(outbox.attempts, attempt));

/**
 * created_at orders the entries of a key. now() is the transaction's start, the
 * same for every entry written in it, and PGlite's clock ticks in milliseconds,
 * so the value is kept strictly after the key's other unfinished entries. The
 * statuses are written out, not parameters, so the planner sees that the
 * partial index outbox_key_idx holds the rows and reads the newest from it.
 */
export const afterSiblings = (key: string | SQL) => sql`greatest(clock_timestamp(), (
  select max(${outbox.createdAt}) + interval '1 microsecond' from ${outbox}
  where ${outbox.status} in ('pending', 'queued') and ${outbox.orderingKey} = ${key}
))`;
