// The inbound journal keeps the order of one channel's requests when a move is
// in flight as more arrive (they go to the next segment, moved after it), and
// when the next start replays segments of which a killed process had moved a part.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { InboundJournal, type JournalTiming } from '../../../src/infra/db/inbound-journal.ts';
import { DrizzleInboundEventRepo, type PreparedInbound } from '../../../src/infra/db/inbound-repo.ts';
import { DrizzleOutboxRepo } from '../../../src/infra/db/outbox-repo.ts';
import { inboundEvents } from '../../../src/infra/db/schema.ts';
import type { InboundEvent } from '../../../src/core/ports.ts';
import { pgliteDb } from '../../support/db.ts';

const HELD: JournalTiming = { quietMs: 3_600_000, maxWaitMs: 3_600_000, maxPending: 1_000_000, retryMs: 3_600_000 };
const QUICK: JournalTiming = { quietMs: 20, maxWaitMs: 200, maxPending: 1_000, retryMs: 50 };
const silent = pino({ level: 'silent' });
const dirs: string[] = [];
const journalDir = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'sb-journal-order-'));
  dirs.push(d);
  return path.join(d, 'pglite.journal');
};
const slack = (key: string) => ({ surface: 'slack' as const, key, kind: 'event', payload: { body: { text: key } } });

/** The database repository, holding its first write until `release` is called (a move in flight). */
class Gated extends DrizzleInboundEventRepo {
  calls = 0;
  private open!: () => void;
  private gate = new Promise<void>((r) => {
    this.open = r;
  });
  release() {
    this.open();
  }
  override async write(prepared: PreparedInbound[]): Promise<Array<PromiseSettledResult<InboundEvent | null>>> {
    this.calls += 1;
    await this.gate;
    return super.write(prepared);
  }
}

describe('the inbound journal keeps one channel in order', () => {
  let db: Database;
  let outbox: DrizzleOutboxRepo;
  beforeAll(async () => {
    db = await pgliteDb.open();
    outbox = new DrizzleOutboxRepo(db.db);
  });
  afterAll(async () => {
    await db?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /** The keys of the jobs of one ordering key, in the order the queue runs them. */
  const jobsOf = async (events: Map<string, string>, orderingKey: string) =>
    (await outbox.list({ topic: 'inbound.slack' }))
      .filter((e) => e.orderingKey === orderingKey)
      .map((e) => events.get(String(e.payload.inboundId)));

  it('across a move in flight and the requests that came meanwhile', async () => {
    const repo = new Gated(db.db);
    const journal = await InboundJournal.open(journalDir(), repo, silent, QUICK);
    const job = { topic: 'inbound.slack', orderingKey: 'inbound:slack:T1:CORDER1' };
    const ids = new Map<string, string>();
    const take = async (key: string) => {
      const e = await journal.accept(slack(key), job);
      ids.set(e!.id, key);
    };
    for (let i = 0; i < 10; i++) await take(`event:O1-a${i}`);
    await vi.waitFor(() => expect(repo.calls).toBe(1));
    for (let i = 0; i < 10; i++) await take(`event:O1-b${i}`);
    repo.release();
    await vi.waitFor(() => expect(journal.waiting).toBe(0));
    await journal.close();
    expect(await jobsOf(ids, job.orderingKey)).toEqual([
      ...Array.from({ length: 10 }, (_, i) => `event:O1-a${i}`),
      ...Array.from({ length: 10 }, (_, i) => `event:O1-b${i}`),
    ]);
  });

  it('when the next start replays segments, the first of which was moved in part before a kill', async () => {
    const dir = journalDir();
    const repo = new DrizzleInboundEventRepo(db.db);
    const job = { topic: 'inbound.slack', orderingKey: 'inbound:slack:T1:CORDER2' };
    const first = await InboundJournal.open(dir, repo, silent, HELD);
    const keys: string[] = [];
    for (let i = 0; i < 6; i++) {
      keys.push(`event:O2-a${i}`);
      await first.accept(slack(`event:O2-a${i}`), job);
    }
    // Sealed by hand, as a move does, so the next ones go to a second file (the test reaches in: a kill leaves both behind).
    (first as unknown as { seal(): void }).seal();
    for (let i = 0; i < 6; i++) {
      keys.push(`event:O2-b${i}`);
      await first.accept(slack(`event:O2-b${i}`), job);
    }
    const files = readdirSync(dir).sort();
    expect(files).toHaveLength(2);
    // The killed process had moved the first three of the first segment.
    const lines = readFileSync(path.join(dir, files[0]), 'utf8').split('\n').filter(Boolean).slice(0, 3);
    const moved = lines.map((row) => {
      const r = JSON.parse(row);
      return {
        row,
        id: r.id,
        outboxId: r.outbox_id,
        event: { surface: r.surface, key: r.key, kind: r.kind, payload: {} },
      };
    });
    expect((await repo.write(moved)).map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    // The next start (the first journal is abandoned, as a killed process's is).
    const next = await InboundJournal.open(dir, repo, silent, HELD);
    expect(readdirSync(dir)).toEqual([]);
    await next.close();
    const ids = new Map(
      (await db.db.select({ id: inboundEvents.id, key: inboundEvents.key }).from(inboundEvents)).map((r) => [
        r.id,
        r.key,
      ]),
    );
    expect(await jobsOf(ids, job.orderingKey)).toEqual(keys);
    // Its timer and file descriptor go; what it holds is in the database already (each key once).
    await first.close();
    expect(await jobsOf(ids, job.orderingKey)).toEqual(keys);
  });
});
