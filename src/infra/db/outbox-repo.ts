import { and, asc, eq, inArray, lt, sql, type SQL } from 'drizzle-orm';
import { systemClock, type Clock, type OutboxEntry, type OutboxRepo, type SettledAttempt } from '../../core/ports.ts';
import { runNamed, type Db } from './client.ts';
import { isUuid } from './ids.ts';
import { rowsOf } from './org-repo.ts';
import { inboundEvents, outbox } from './schema.ts';
import type { ExternalSurface } from '../../core/surfaces/surface-ports.ts';

/** Entries deleted per statement when purging finished work. */
const PURGE_BATCH = 5000;

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

const UUID_TEXT = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

interface ClaimedRow {
  id: string;
  topic: string;
  payload: Record<string, unknown>;
  ordering_key: string | null;
  status: OutboxEntry['status'];
  attempts: number;
  run_at: string | Date;
  last_error: string | null;
  created_at: string | Date;
  e_id: string | null;
  e_surface: ExternalSurface | null;
  e_key: string | null;
  e_kind: string | null;
  e_payload: Record<string, unknown> | null;
  e_outbox_id: string | null;
  e_received_at: string | Date | null;
}

const toClaimed = (r: ClaimedRow): OutboxEntry => ({
  id: r.id,
  topic: r.topic,
  payload: r.payload,
  orderingKey: r.ordering_key,
  status: r.status,
  attempts: Number(r.attempts),
  runAt: new Date(r.run_at),
  lastError: r.last_error,
  createdAt: new Date(r.created_at),
  inbound: r.e_id
    ? {
        id: r.e_id,
        surface: r.e_surface!,
        key: r.e_key!,
        kind: r.e_kind!,
        payload: r.e_payload!,
        outboxId: r.e_outbox_id,
        receivedAt: new Date(r.e_received_at!),
      }
    : null,
});

/**
 * The outbox on PostgreSQL or PGlite. Claiming is a single
 * `update … where id = any(array(select … for update skip locked))`, so
 * several processes can poll the same table without handing out an entry twice.
 */
export class DrizzleOutboxRepo implements OutboxRepo {
  /** `clock` should be the queue's: an entry added now must be due for a claim made a moment later. */
  constructor(
    private readonly db: Db,
    private readonly clock: Clock = systemClock,
  ) {}

  async add(e: {
    topic: string;
    payload: Record<string, unknown>;
    orderingKey?: string | null;
    runAt?: Date;
  }): Promise<OutboxEntry> {
    const [row] = await this.db
      .insert(outbox)
      .values({
        topic: e.topic,
        payload: e.payload,
        orderingKey: e.orderingKey ?? null,
        runAt: e.runAt ?? this.clock.now(),
        createdAt: e.orderingKey ? afterSiblings(e.orderingKey) : sql`clock_timestamp()`,
      })
      .returning(entryColumns);
    return row;
  }

  async addOnce(e: { id: string; topic: string; payload: Record<string, unknown>; runAt: Date }): Promise<boolean> {
    const rows = await this.db
      .insert(outbox)
      .values({ ...e, createdAt: e.runAt })
      .onConflictDoNothing({ target: outbox.id })
      .returning({ id: outbox.id });
    return rows.length === 1;
  }

  async reschedule(id: string, payload: Record<string, unknown>, runAt: Date): Promise<boolean> {
    if (!isUuid(id)) return false;
    const rows = await this.db
      .update(outbox)
      .set({ payload, runAt })
      .where(and(eq(outbox.id, id), eq(outbox.status, 'pending')))
      .returning({ id: outbox.id });
    return rows.length === 1;
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
  async claimDue(
    limit: number,
    now: Date,
    leaseMs: number,
    settled: readonly SettledAttempt[] = [],
  ): Promise<OutboxEntry[]> {
    if (limit <= 0 && !settled.length) return [];
    // The outcomes first (a data-modifying WITH query): only while each attempt's claim stands. They go as one JSON
    // parameter, so the statement's text is always the same and it runs as a named statement (planned once).
    const outcomes = JSON.stringify(
      settled.map((s) => ({
        id: s.id,
        attempts: s.attempt,
        status: s.status,
        error: s.status === 'done' ? null : s.error,
        run_at: s.status === 'pending' ? s.runAt.toISOString() : null,
      })),
    );
    const finished = sql`update ${outbox} o set status = v.status, last_error = coalesce(v.error, o.last_error), run_at = coalesce(v.run_at, o.run_at),
        finished_at = case when v.status in ('done', 'failed') then now() else o.finished_at end
      from jsonb_to_recordset(${outcomes}::jsonb) as v (id uuid, attempts int, status text, error text, run_at timestamptz)
      where o.id = v.id and o.status = 'queued' and o.attempts = v.attempts
      returning o.id, o.status`;
    const most = Math.max(0, limit);
    const at = now.toISOString();
    // Every sub-statement sees the table as it was before the statement: an entry finished above still looks
    // queued here, so those done or failed are left out of their keys, and none settled above is claimed again.
    const active = sql`${outbox.status} in ('pending', 'queued')`;
    const notDone = (col: SQL | typeof outbox.id) =>
      sql`${col} not in (select id from finished where status in ('done', 'failed'))`;
    // Each key's head, found key by key (a skip scan of outbox_key_idx, so a long backlog costs a step per key, not per
    // entry): its oldest sibling in flight, due or tried already. Claimable when due itself and no sibling is in flight.
    const heads = sql`
      keys (k) as (
        select min(${outbox.orderingKey}) from ${outbox} where ${active} and ${outbox.orderingKey} is not null
        union all
        select (select min(${outbox.orderingKey}) from ${outbox} where ${active} and ${outbox.orderingKey} > keys.k) from keys where keys.k is not null),
      heads as (
        select h.* from keys cross join lateral (
          select ${outbox.id} as id, ${outbox.orderingKey} as ordering_key, ${outbox.runAt} as run_at from ${outbox}
          where ${outbox.orderingKey} = keys.k and ${active} and ${notDone(outbox.id)}
            and (${outbox.status} = 'queued' or ${outbox.runAt} <= ${at}::timestamptz or ${outbox.attempts} > 0)
          order by ${outbox.createdAt} limit 1) h
        where keys.k is not null),
      candidates as materialized (
        select id from heads h where h.run_at <= ${at}::timestamptz and h.id not in (select id from finished)
          and not exists (select 1 from ${outbox} s where s.ordering_key = h.ordering_key and s.status = 'queued'
            and s.run_at > ${at}::timestamptz and s.id <> h.id and ${notDone(sql`s.id`)})
        union all
        (select ${outbox.id} from ${outbox} where ${active} and ${outbox.runAt} <= ${at}::timestamptz and ${outbox.orderingKey} is null
          and ${outbox.id} not in (select id from finished)
          order by ${outbox.runAt}, ${outbox.createdAt}, ${outbox.id} limit ${most}::int))`;
    // Locked (skipping those another process holds) and rechecked as they are now: the candidates come from the snapshot,
    // computed once (materialized: inlined, the planner may recompute them for every row of the outbox it scans).
    // The recheck is written so that no index serves it: the planner then looks the few candidates up by key instead
    // of walking the due index (which it does when it underestimates a fresh backlog).
    const due = sql`select o.id from candidates c join ${outbox} o on o.id = c.id
      where (o.status in ('pending', 'queued') and o.run_at <= ${at}::timestamptz) is true
      order by o.run_at, o.created_at, o.id limit ${most}::int for update of o skip locked`;
    // array(…) is an init plan evaluated once; `in (select … limit … skip locked)` may be re-run by the planner and
    // lock more rows than it returns. An entry handling a stored request comes with that request (read by its
    // primary key, so the job need not read it).
    const result = await runNamed(
      this.db,
      'outbox_claim',
      sql`
      with recursive finished as (${finished}),
      ${heads},
      claimed as (
        update ${outbox} set status = 'queued', attempts = attempts + 1, run_at = ${new Date(now.getTime() + leaseMs).toISOString()}::timestamptz
        where id = any(array(${due}))
        returning id, topic, payload, ordering_key, status, attempts, run_at, last_error, created_at)
      select cl.*, e.id as e_id, e.surface as e_surface, e.key as e_key, e.kind as e_kind, e.payload as e_payload, e.outbox_id as e_outbox_id, e.received_at as e_received_at
      from claimed cl left join ${inboundEvents} e
        on e.id = (case when cl.payload->>'inboundId' ~ ${UUID_TEXT} then (cl.payload->>'inboundId')::uuid end)`,
    );
    return rowsOf<ClaimedRow>(result).map(toClaimed);
  }

  async renewLease(id: string, attempt: number, until: Date): Promise<OutboxEntry | null> {
    if (!isUuid(id)) return null;
    const [row] = await this.db.update(outbox).set({ runAt: until }).where(held(id, attempt)).returning(entryColumns);
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
    const [row] = await this.db
      .update(outbox)
      .set({ status: 'pending', attempts: 0, runAt: this.clock.now(), finishedAt: null })
      .where(and(eq(outbox.id, id), eq(outbox.status, 'failed')))
      .returning(entryColumns);
    return row ?? null;
  }

  async purgeDoneBefore(cutoff: Date): Promise<number> {
    let purged = 0;
    for (;;) {
      // A batch at a time: each statement holds its rows briefly, whatever the backlog.
      const batch = this.db
        .select({ id: outbox.id })
        .from(outbox)
        .where(and(eq(outbox.status, 'done'), lt(outbox.finishedAt, cutoff)))
        .limit(PURGE_BATCH);
      const rows = await this.db.delete(outbox).where(inArray(outbox.id, batch)).returning({ id: outbox.id });
      purged += rows.length;
      if (rows.length < PURGE_BATCH) return purged;
    }
  }

  async list(filter: { topic?: string; status?: OutboxEntry['status'] }): Promise<OutboxEntry[]> {
    return this.db
      .select(entryColumns)
      .from(outbox)
      .where(
        and(
          filter.topic === undefined ? undefined : eq(outbox.topic, filter.topic),
          filter.status === undefined ? undefined : eq(outbox.status, filter.status),
        ),
      )
      .orderBy(asc(outbox.createdAt), asc(outbox.id));
  }

  private async finish(
    id: string,
    set: { status: OutboxEntry['status']; lastError?: string; runAt?: Date; finishedAt?: SQL },
    attempt?: number,
  ) {
    await this.db
      .update(outbox)
      .set(set)
      .where(attempt === undefined ? eq(outbox.id, id) : held(id, attempt));
  }
}

/** The entry is still queued under the claim that made attempt `attempt` (a later claim bumps attempts). */
const held = (id: string, attempt: number) =>
  and(eq(outbox.id, id), eq(outbox.status, 'queued'), eq(outbox.attempts, attempt));

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
