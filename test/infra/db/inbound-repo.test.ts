// The inbound_events repository: a request's key is stored once, with its
// outbox entry, malformed events are refused with a sentence, and the purge
// keeps what is not handled yet.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { DrizzleInboundEventRepo } from '../../../src/infra/db/inbound-repo.ts';
import { DrizzleOutboxRepo } from '../../../src/infra/db/outbox-repo.ts';
import { inboundEvents, outbox as outboxTable } from '../../../src/infra/db/schema.ts';
import { databases, pgliteDb } from '../../support/db.ts';
import { TEAMS_INBOUND } from '../../../src/surfaces/teams/topics.ts';

describe('inbound events', () => {
  let db: Database;
  let repo: DrizzleInboundEventRepo;
  let outbox: DrizzleOutboxRepo;
  const job = { topic: 'inbound.slack', orderingKey: 'inbound:slack:T1:C1' };

  beforeAll(async () => {
    db = await pgliteDb.open();
    repo = new DrizzleInboundEventRepo(db.db);
    outbox = new DrizzleOutboxRepo(db.db);
  });
  afterAll(async () => {
    await db?.close();
  });

  it('stores a key once, with an outbox entry pointing at it; the same key again is a duplicate', async () => {
    const first = await repo.accept(
      { surface: 'slack', key: 'event:Ev1', kind: 'event', payload: { body: { a: 1 } } },
      job,
    );
    expect(first?.outboxId).toBeTruthy();
    const entry = await outbox.get(first!.outboxId!);
    expect(entry).toMatchObject({
      topic: 'inbound.slack',
      payload: { inboundId: first!.id },
      orderingKey: job.orderingKey,
      status: 'pending',
    });
    expect(
      await repo.accept({ surface: 'slack', key: 'event:Ev1', kind: 'event', payload: { body: { a: 2 } } }, job),
    ).toBeNull();
    // The same key on another surface is another request.
    expect(
      await repo.accept(
        { surface: 'teams', key: 'event:Ev1', kind: 'message', payload: {} },
        { topic: TEAMS_INBOUND, orderingKey: null },
      ),
    ).not.toBeNull();
    expect(
      (await outbox.list({ topic: 'inbound.slack' })).filter((e) => e.payload.inboundId === first!.id),
    ).toHaveLength(1);
    expect(await repo.remember({ surface: 'teams', key: 'conv#1', kind: 'invoke' })).toBe(true);
    expect(await repo.remember({ surface: 'teams', key: 'conv#1', kind: 'invoke' })).toBe(false);
  });

  it('refuses an empty key or one with a NUL character with a sentence, and keeps a payload with a NUL or a lone surrogate', async () => {
    await expect(repo.accept({ surface: 'slack', key: '', kind: 'event', payload: {} }, job)).rejects.toThrow(
      'The inbound event cannot be stored: key',
    );
    await expect(
      repo.accept({ surface: 'slack', key: 'event:\u0000', kind: 'event', payload: {} }, job),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    const stored = await repo.accept(
      { surface: 'slack', key: 'event:Ev2', kind: 'event', payload: { event: { text: 'a\u0000b', list: ['\u0000'] } } },
      job,
    );
    expect((await repo.get(stored!.id))?.payload).toEqual({ event: { text: 'a\uFFFDb', list: ['\uFFFD'] } });
    // A lone surrogate (half of an emoji) is kept the same way; a whole emoji as it is.
    const half = await repo.accept(
      { surface: 'slack', key: 'event:Ev3', kind: 'event', payload: { event: { text: 'x\ud83d y \u{1F600}' } } },
      job,
    );
    expect((await repo.get(half!.id))?.payload).toEqual({ event: { text: 'x\uFFFD y \u{1F600}' } });
    expect(await db.db.select().from(inboundEvents).where(eq(inboundEvents.key, 'event:'))).toHaveLength(0);
  });

  it('purges handled and inline requests received before the cutoff, and keeps the rest', async () => {
    const done = await repo.accept({ surface: 'slack', key: 'event:old-done', kind: 'event', payload: {} }, job);
    const waiting = await repo.accept(
      { surface: 'slack', key: 'event:old-waiting', kind: 'event', payload: {} },
      { ...job, orderingKey: null },
    );
    // One handled request whose job was purged from the outbox first (as done): handled all the same.
    const gone = await repo.accept({ surface: 'slack', key: 'event:old-gone', kind: 'event', payload: {} }, job);
    await outbox.markDone(done!.outboxId!);
    await outbox.markDone(gone!.outboxId!);
    await db.db.delete(outboxTable).where(eq(outboxTable.id, gone!.outboxId!));
    await repo.remember({ surface: 'teams', key: 'conv#old', kind: 'invoke' });
    const purged = await repo.purgeBefore(new Date(Date.now() + 60_000));
    expect(purged).toBeGreaterThanOrEqual(3);
    expect(await repo.get(done!.id)).toBeNull();
    expect(await repo.get(gone!.id)).toBeNull();
    expect(await repo.get(waiting!.id)).not.toBeNull();
    expect(await repo.remember({ surface: 'teams', key: 'conv#old', kind: 'invoke' })).toBe(true);
  });
});

describe.each(databases().map((d) => [d.kind, d] as const))(
  'inbound events arriving together (%s)',
  (_kind, source) => {
    let db: Database;
    let repo: DrizzleInboundEventRepo;
    let outbox: DrizzleOutboxRepo;

    beforeAll(async () => {
      db = await source.open();
      repo = new DrizzleInboundEventRepo(db.db);
      outbox = new DrizzleOutboxRepo(db.db);
    });
    afterAll(async () => {
      await db?.close();
    });

    it('are stored once per key, and their entries keep the order they arrived in within an ordering key', async () => {
      const job = { topic: 'inbound.slack', orderingKey: 'inbound:slack:T1:CBURST' };
      const keys = Array.from({ length: 60 }, (_, i) => `event:burst-${i % 50}`);
      const results = await Promise.all(
        keys.map((key, i) => repo.accept({ surface: 'slack', key, kind: 'event', payload: { n: i } }, job)),
      );
      // The first of each key is stored; its ten repeats are redeliveries.
      expect(results.slice(0, 50).every((r) => r !== null)).toBe(true);
      expect(results.slice(50)).toEqual(Array(10).fill(null));
      const entries = (await outbox.list({ topic: 'inbound.slack' })).filter((e) => e.orderingKey === job.orderingKey);
      const order = new Map(results.slice(0, 50).map((r, i) => [r!.id, i]));
      expect(entries.map((e) => order.get(String(e.payload.inboundId)))).toEqual(
        Array.from({ length: 50 }, (_, i) => i),
      );
      expect(await repo.get(results[7]!.id)).toMatchObject({
        key: 'event:burst-7',
        payload: { n: 7 },
        outboxId: results[7]!.outboxId,
      });
    });

    it('lose nothing when the database refuses one of them', async () => {
      const job = { topic: TEAMS_INBOUND, orderingKey: null };
      // A job without a topic breaks the outbox's NOT NULL: that request fails; the ones written with it are stored.
      const attempts = ['good-1', 'bad', 'good-2', 'good-3'].map((key) =>
        repo.accept(
          { surface: 'teams', key, kind: 'message', payload: { text: key } },
          key === 'bad' ? { ...job, topic: null as unknown as string } : job,
        ),
      );
      const settled = await Promise.allSettled(attempts);
      expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
      for (const s of settled) if (s.status === 'fulfilled') expect(await repo.get(s.value!.id)).not.toBeNull();
    });
  },
);
