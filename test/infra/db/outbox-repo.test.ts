import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { rowsOf } from '../../../src/infra/db/org-repo.ts';
import { afterSiblings, DrizzleOutboxRepo } from '../../../src/infra/db/outbox-repo.ts';
import { inboundEvents, outbox } from '../../../src/infra/db/schema.ts';
import { createStore } from '../../../src/infra/db/store.ts';
import type { OutboxEntry } from '../../../src/core/ports.ts';
import { databases } from '../../support/db.ts';
import { rowsReadBy } from '../../support/explain.ts';

const LEASE = 60_000;
const later = (ms: number) => new Date(Date.now() + ms);

describe.each(databases())('DrizzleOutboxRepo on $kind', (kind) => {
  let database: Database;
  let repo: DrizzleOutboxRepo;

  beforeAll(async () => {
    database = await kind.open();
    repo = new DrizzleOutboxRepo(database.db);
  });
  afterAll(async () => {
    await database?.close();
  });
  afterEach(async () => {
    await database.db.delete(inboundEvents);
    await database.db.delete(outbox);
  });

  /** Claims in concurrent rounds of `claimers` until nothing is due; every claim, in the order made. */
  async function drainConcurrently(claimers: number, limit: number, release?: (e: OutboxEntry) => Promise<void>) {
    const claimed: OutboxEntry[] = [];
    for (;;) {
      const rounds = await Promise.all(Array.from({ length: claimers }, () => repo.claimDue(limit, new Date(), LEASE)));
      const round = rounds.flat();
      if (round.length === 0) return claimed;
      claimed.push(...round);
      if (release) for (const e of round) await release(e);
    }
  }

  it('never hands the same entry to two concurrent claims', async () => {
    await Promise.all(Array.from({ length: 60 }, (_, n) => repo.add({ topic: 'post', payload: { n } })));
    const claimed = await drainConcurrently(6, 7);
    const ids = claimed.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(60);
    expect(claimed.every((e) => e.status === 'queued' && e.attempts === 1)).toBe(true);
  });

  it('claims one entry of an ordering key at a time, in the order they were added', async () => {
    for (let n = 0; n < 5; n++) await repo.add({ topic: 'post', payload: { n }, orderingKey: 'C1' });
    const inFlight = new Set<string>();
    const claimed = await drainConcurrently(4, 10, async (e) => {
      expect(inFlight.size).toBe(0);
      inFlight.add(e.id);
      await repo.markDone(e.id);
      inFlight.delete(e.id);
    });
    expect(claimed.map((e) => e.payload.n)).toEqual([0, 1, 2, 3, 4]);
  });

  it('keeps entries added in one transaction in the order they were added', async () => {
    await database.db.transaction(async (tx) => {
      const inTx = new DrizzleOutboxRepo(tx);
      for (let n = 0; n < 5; n++) await inTx.add({ topic: 'post', payload: { n }, orderingKey: 'C1' });
    });
    const seen: unknown[] = [];
    for (let e = await repo.claimDue(10, new Date(), LEASE); e.length; e = await repo.claimDue(10, new Date(), LEASE)) {
      expect(e).toHaveLength(1);
      seen.push(e[0].payload.n);
      await repo.markDone(e[0].id);
    }
    expect(seen).toEqual([0, 1, 2, 3, 4]);
  });

  it('holds back later entries of a key while an earlier one waits for its retry', async () => {
    const first = await repo.add({ topic: 'post', payload: {}, orderingKey: 'C1' });
    const second = await repo.add({ topic: 'post', payload: {}, orderingKey: 'C1' });
    await repo.claimDue(10, new Date(), LEASE);
    await repo.markRetry(first.id, 'rate limited', later(1_000));
    expect(await repo.claimDue(10, new Date(), LEASE)).toEqual([]);
    const [retried] = await repo.claimDue(10, later(1_000), LEASE);
    expect(retried).toMatchObject({ id: first.id, attempts: 2, lastError: 'rate limited' });
    await repo.markDone(first.id);
    expect((await repo.claimDue(10, later(1_000), LEASE)).map((e) => e.id)).toEqual([second.id]);
  });

  it('does not let an entry scheduled for later hold back one due now', async () => {
    await repo.add({ topic: 'remind', payload: {}, orderingKey: 'C1', runAt: later(60_000) });
    const now = await repo.add({ topic: 'post', payload: {}, orderingKey: 'C1' });
    expect((await repo.claimDue(10, new Date(), LEASE)).map((e) => e.id)).toEqual([now.id]);
  });

  it('gives a claimed entry to another claim only once its lease has run out', async () => {
    const e = await repo.add({ topic: 'post', payload: {} });
    const t0 = new Date();
    expect(await repo.claimDue(10, t0, 1_000)).toHaveLength(1);
    expect(await repo.claimDue(10, new Date(t0.getTime() + 999), 1_000)).toEqual([]);
    const [again] = await repo.claimDue(10, new Date(t0.getTime() + 1_000), 1_000);
    expect(again).toMatchObject({ id: e.id, status: 'queued', attempts: 2 });
  });

  it('renews a lease only for the claim that holds it, and ignores what a superseded claim records', async () => {
    const e = await repo.add({ topic: 'post', payload: {} });
    const t0 = new Date();
    await repo.claimDue(10, t0, 1_000);
    const renewed = await repo.renewLease(e.id, 1, new Date(t0.getTime() + 5_000));
    expect(renewed).toMatchObject({ id: e.id, attempts: 1, runAt: new Date(t0.getTime() + 5_000) });
    // Renewed: the old lease's end no longer frees it.
    expect(await repo.claimDue(10, new Date(t0.getTime() + 1_000), 1_000)).toEqual([]);
    // Past the renewed lease another claim takes it; the first claim can neither renew nor record.
    const [again] = await repo.claimDue(10, new Date(t0.getTime() + 5_000), 1_000);
    expect(again).toMatchObject({ id: e.id, attempts: 2 });
    expect(await repo.renewLease(e.id, 1, new Date(t0.getTime() + 9_000))).toBeNull();
    await repo.markFailed(e.id, 'stale verdict', 1);
    expect(await repo.get(e.id)).toMatchObject({ status: 'queued', attempts: 2, lastError: null });
    await repo.markDone(e.id, 2);
    expect(await repo.get(e.id)).toMatchObject({ status: 'done' });
    expect(await repo.renewLease(e.id, 2, new Date())).toBeNull();
  });

  it('records done, retry and failure', async () => {
    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((topic) => repo.add({ topic, payload: { topic } })));
    await repo.claimDue(10, new Date(), LEASE);
    await repo.markDone(a.id);
    const retryAt = later(5_000);
    await repo.markRetry(b.id, 'Slack is down', retryAt);
    await repo.markFailed(c.id, 'channel_archived');
    expect(await repo.get(a.id)).toMatchObject({ status: 'done', attempts: 1 });
    expect(await repo.get(b.id)).toMatchObject({ status: 'pending', lastError: 'Slack is down', runAt: retryAt });
    expect(await repo.get(c.id)).toMatchObject({ status: 'failed', lastError: 'channel_archived' });
    expect((await repo.list({ status: 'failed' })).map((e) => e.id)).toEqual([c.id]);
    expect((await repo.list({ topic: 'b' })).map((e) => e.id)).toEqual([b.id]);
    expect(await repo.list({})).toHaveLength(3);
  });

  it('reads the newest unfinished entry of a key from its index, not by scanning the backlog', async () => {
    // A backlog of unfinished entries over 8 keys, and as many finished ones: without outbox_key_idx the newest of
    // one key is found by reading every unfinished row (what each new entry of a key and each stored request did).
    await database.db.execute(sql`insert into ${outbox} (topic, payload, ordering_key, status, created_at)
      select 'post', '{}'::jsonb, 'C' || (i % 8), case when i % 2 = 0 then 'pending' else 'done' end, clock_timestamp()
      from generate_series(1, 4000) i`);
    await database.db.execute(sql`analyze ${outbox}`);
    const plan = rowsOf<Record<string, string>>(await database.db.execute(sql`explain select ${afterSiblings('C3')}`))
      .map((r) => Object.values(r)[0])
      .join('\n');
    expect(plan).toMatch(/Index Only Scan Backward using outbox_key_idx/);
    const entry = await repo.add({ topic: 'post', payload: {}, orderingKey: 'C4' });
    const [newest] = rowsOf<{ at: string }>(
      await database.db.execute(
        sql`select max(created_at)::text as at from ${outbox} where ordering_key = 'C4' and id <> ${entry.id}`,
      ),
    );
    expect(entry.createdAt.getTime()).toBeGreaterThan(new Date(newest.at).getTime());
  });

  it("claims by looking at each key's head, not at every entry of the backlog", async () => {
    // 2,000 unfinished entries over 8 keys, each key's oldest in flight: nothing is claimable, and finding that out
    // must cost a few rows per key (the claim used to test every due entry for an older sibling).
    await database.db.execute(sql`insert into ${outbox} (topic, payload, ordering_key, status, run_at, attempts, created_at)
      select 'post', '{}'::jsonb, 'C' || (i % 8), case when i <= 8 then 'queued' else 'pending' end,
        case when i <= 8 then now() + interval '1 hour' else now() end, case when i <= 8 then 1 else 0 end,
        clock_timestamp() + i * interval '1 microsecond'
      from generate_series(1, 2000) i`);
    await database.db.execute(sql`analyze ${outbox}`);
    // The claim's statement as sent (a named statement), explained and analysed as it runs.
    const { result, reads } = await rowsReadBy(database, 'with recursive finished', () =>
      repo.claimDue(8, new Date(), LEASE),
    );
    expect(result).toEqual([]);
    expect(reads).toHaveLength(1);
    expect(reads[0]).toBeGreaterThan(0);
    expect(reads[0]).toBeLessThan(200);
  });

  it('records outcomes with the next claim in one statement, a finished entry freeing the next of its key there and then', async () => {
    const k = [];
    for (let n = 0; n < 3; n++) k.push(await repo.add({ topic: 'post', payload: { n }, orderingKey: 'K' }));
    const r = [];
    for (let n = 0; n < 2; n++) r.push(await repo.add({ topic: 'post', payload: { n }, orderingKey: 'R' }));
    const f = [];
    for (let n = 0; n < 2; n++) f.push(await repo.add({ topic: 'post', payload: { n }, orderingKey: 'F' }));
    const first = await repo.claimDue(10, new Date(), LEASE);
    expect(first.map((e) => e.id).sort()).toEqual([k[0].id, r[0].id, f[0].id].sort());

    const retryAt = later(60_000);
    const before = database.queries();
    const next = await repo.claimDue(10, new Date(), LEASE, [
      { id: k[0].id, attempt: 1, status: 'done' },
      { id: r[0].id, attempt: 1, status: 'pending', error: 'Slack is down', runAt: retryAt },
      { id: f[0].id, attempt: 1, status: 'failed', error: 'channel_archived' },
    ]);
    expect(database.queries() - before).toBe(1);
    // Done and failed free their key's next entry in the same statement; a retrying head keeps holding its key back.
    expect(next.map((e) => e.id).sort()).toEqual([k[1].id, f[1].id].sort());
    expect(await repo.get(k[0].id)).toMatchObject({ status: 'done', attempts: 1 });
    expect(await repo.get(r[0].id)).toMatchObject({ status: 'pending', lastError: 'Slack is down', runAt: retryAt });
    expect(await repo.get(f[0].id)).toMatchObject({ status: 'failed', lastError: 'channel_archived' });

    // An outcome for a claim that no longer stands (a wrong attempt) records nothing and frees nothing.
    const stale = await repo.claimDue(10, new Date(), LEASE, [{ id: k[1].id, attempt: 7, status: 'done' }]);
    expect(stale).toEqual([]);
    expect(await repo.get(k[1].id)).toMatchObject({ status: 'queued', attempts: 1 });
    // Recorded with no room to claim: nothing is claimed, the outcome still is.
    expect(await repo.claimDue(0, new Date(), LEASE, [{ id: k[1].id, attempt: 1, status: 'done' }])).toEqual([]);
    expect(await repo.get(k[1].id)).toMatchObject({ status: 'done' });
    expect((await repo.claimDue(10, new Date(), LEASE)).map((e) => e.id)).toEqual([k[2].id]);
  });

  it('hands an entry for a stored request that request with the claim', async () => {
    const inbound = createStore(database.db).inbound;
    const stored = (await inbound.accept(
      { surface: 'slack', key: `event:Ev${Date.now()}`, kind: 'event', payload: { body: { text: 'hi' } } },
      { topic: 'inbound.slack', orderingKey: null },
    ))!;
    await repo.add({ topic: 'post', payload: { inboundId: 'not-a-uuid' } });
    const claimed = await repo.claimDue(10, new Date(), LEASE);
    const entry = claimed.find((e) => e.id === stored.outboxId)!;
    expect(entry.inbound).toMatchObject({
      id: stored.id,
      surface: 'slack',
      kind: 'event',
      payload: { body: { text: 'hi' } },
      outboxId: stored.outboxId,
    });
    expect(claimed.find((e) => e.id !== stored.outboxId)!.inbound).toBeNull();
  });

  it('purges entries done before the cutoff, a batch at a time, and keeps failed and unfinished ones', async () => {
    // More than one batch of old finished entries, written at once.
    const old = Array.from({ length: 5001 }, (_, i) => ({
      topic: 't',
      payload: { i },
      status: 'done' as const,
      finishedAt: later(-3600_000),
    }));
    await database.db.insert(outbox).values(old);
    const [failed, pending, recent] = await Promise.all([1, 2, 3].map((i) => repo.add({ topic: 't', payload: { i } })));
    await repo.markDone(recent.id);
    await repo.markFailed(failed.id, 'gone for good');
    expect(await repo.purgeDoneBefore(later(-60_000))).toBe(old.length);
    expect((await repo.list({})).map((e) => e.id).sort()).toEqual([failed.id, pending.id, recent.id].sort());
  });

  it('reschedules an entry only while it waits: its payload and due time replaced, never once claimed', async () => {
    const id = '5a0f9a4e-7b1d-4c7e-9f0a-1e2d3c4b5a69';
    expect(await repo.addOnce({ id, topic: 'live.rescue', payload: { text: 'a' }, runAt: later(60_000) })).toBe(true);
    expect(await repo.reschedule(id, { text: 'ab' }, later(120_000))).toBe(true);
    expect(await repo.get(id)).toMatchObject({ payload: { text: 'ab' }, status: 'pending' });
    expect((await repo.get(id))!.runAt.getTime()).toBeGreaterThan(later(100_000).getTime());
    expect(await repo.claimDue(10, new Date(), LEASE)).toEqual([]);
    // Due now, claimed: it is no longer changed.
    expect(await repo.reschedule(id, { text: 'abc' }, new Date(Date.now() - 1))).toBe(true);
    expect((await repo.claimDue(10, new Date(), LEASE)).map((e) => e.id)).toEqual([id]);
    expect(await repo.reschedule(id, { text: 'abcd' }, later(60_000))).toBe(false);
    expect(await repo.get(id)).toMatchObject({ payload: { text: 'abc' }, status: 'queued' });
    expect(await repo.reschedule('not-a-uuid', {}, new Date())).toBe(false);
  });

  it('returns null for an unknown or malformed id', async () => {
    expect(await repo.get('00000000-0000-4000-8000-000000000000')).toBeNull();
    expect(await repo.get('not-a-uuid')).toBeNull();
  });
});
