// The inbound journal when the disk fails it: an append that fails after part of
// its line reached the file, or a new file that cannot be opened, acknowledges
// nothing, and the requests acknowledged before and after are moved, in order,
// each once. The faults are real ones: a descriptor closed under the journal
// (EBADF), a directory where its next file would go (EISDIR).
import { appendFileSync, closeSync, mkdirSync, mkdtempSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { InboundJournal, type JournalTiming } from '../../../src/infra/db/inbound-journal.ts';
import { DrizzleInboundEventRepo } from '../../../src/infra/db/inbound-repo.ts';
import { DrizzleOutboxRepo } from '../../../src/infra/db/outbox-repo.ts';
import { inboundEvents } from '../../../src/infra/db/schema.ts';
import { pgliteDb } from '../../support/db.ts';

/** The active segment's descriptor and file (private: the test fails the disk under it). */
const activeOf = (journal: InboundJournal) => (journal as unknown as { active: { fd: number; file: string } }).active;

const HELD: JournalTiming = { quietMs: 3_600_000, maxWaitMs: 3_600_000, maxPending: 1_000_000, retryMs: 3_600_000 };
const silent = pino({ level: 'silent' });
const dirs: string[] = [];
const slack = (key: string) => ({ surface: 'slack' as const, key, kind: 'event', payload: { body: { text: key } } });

describe('the inbound journal when the disk fails it', () => {
  let db: Database;
  beforeAll(async () => {
    db = await pgliteDb.open();
  });
  afterAll(async () => {
    await db?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('refuses the request it could not write or open a file for, and moves the others in order, also after a restart', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'sb-journal-faults-'));
    dirs.push(root);
    const dir = path.join(root, 'pglite.journal');
    const repo = new DrizzleInboundEventRepo(db.db);
    const job = { topic: 'inbound.slack', orderingKey: 'inbound:slack:T1:CFAULT' };
    const journal = await InboundJournal.open(dir, repo, silent, HELD);
    const acked: string[] = [];
    const take = async (key: string) => {
      await journal.accept(slack(key), job);
      acked.push(key);
    };
    await take('event:F-1');
    // Half a line reaches the file, then the write fails.
    appendFileSync(activeOf(journal).file, '{"id":"3f1c0a1e-0000-4000-8000-0000');
    closeSync(activeOf(journal).fd);
    await expect(take('event:F-torn')).rejects.toMatchObject({ code: 'EBADF' });
    // The next request goes to a new file, which cannot be opened: a directory holds its name.
    const next = (f: string) => path.join(dir, `${String(Number(f.slice(0, 12)) + 1).padStart(12, '0')}.jsonl`);
    const blocked = next(readdirSync(dir).sort().at(-1)!);
    mkdirSync(blocked);
    await expect(take('event:F-unopened')).rejects.toMatchObject({ code: 'EISDIR' });
    rmdirSync(blocked);
    await take('event:F-2');
    closeSync(activeOf(journal).fd);
    await expect(take('event:F-io')).rejects.toMatchObject({ code: 'EBADF' });
    await take('event:F-3');
    expect(journal.waiting).toBe(3);
    // A kill now: the next start reads the files (skipping the torn line) and moves what was acknowledged.
    const restarted = await InboundJournal.open(dir, repo, silent, HELD);
    expect(readdirSync(dir)).toEqual([]);
    await restarted.close();
    const rows = await db.db.select({ id: inboundEvents.id, key: inboundEvents.key }).from(inboundEvents);
    expect(rows.map((r) => r.key).sort()).toEqual([...acked].sort());
    const keyOf = new Map(rows.map((r) => [r.id, r.key]));
    const order = (await new DrizzleOutboxRepo(db.db).list({ topic: 'inbound.slack' }))
      .filter((e) => e.orderingKey === job.orderingKey)
      .map((e) => keyOf.get(String(e.payload.inboundId)));
    expect(order).toEqual(['event:F-1', 'event:F-2', 'event:F-3']);
    // The abandoned journal's own move finds them taken: nothing twice, and its files go.
    await journal.close();
    expect((await db.db.select({ key: inboundEvents.key }).from(inboundEvents)).map((r) => r.key).sort()).toEqual(
      [...acked].sort(),
    );
    expect(readdirSync(dir)).toEqual([]);
  });
});
