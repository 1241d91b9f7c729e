// The embedded database's inbound journal: a request is on disk when its
// acknowledgement returns, moved into the database (row and job, once per key,
// in order) when requests pause, kept and tried again when the database cannot
// take it, and moved at the next start after a kill -9.
import { spawn } from 'node:child_process';
import {
  closeSync,
  mkdtempSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  appendFileSync,
  rmSync,
  rmdirSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { createMetrics } from '../../../src/infra/metrics/metrics.ts';
import { InboundJournal, type JournalTiming } from '../../../src/infra/db/inbound-journal.ts';
import { DrizzleInboundEventRepo, type PreparedInbound } from '../../../src/infra/db/inbound-repo.ts';
import { DrizzleOutboxRepo } from '../../../src/infra/db/outbox-repo.ts';
import { inboundEvents } from '../../../src/infra/db/schema.ts';
import type { InboundEvent } from '../../../src/core/ports.ts';
import { pgliteDb } from '../../support/db.ts';

const CHILD = path.resolve(import.meta.dirname, 'journal-child.ts');
/** Never moves on its own: the test decides when (close, or a new journal on the same directory). */
const HELD: JournalTiming = { quietMs: 3_600_000, maxWaitMs: 3_600_000, maxPending: 1_000_000, retryMs: 3_600_000 };
const QUICK: JournalTiming = { quietMs: 20, maxWaitMs: 200, maxPending: 1_000, retryMs: 50 };
const silent = pino({ level: 'silent' });
const dirs: string[] = [];
const journalDir = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'sb-journal-'));
  dirs.push(d);
  return path.join(d, 'pglite.journal');
};
const lines = (dir: string) =>
  readdirSync(dir).flatMap((f) => readFileSync(path.join(dir, f), 'utf8').split('\n').filter(Boolean));
const slack = (key: string, text = key) => ({
  surface: 'slack' as const,
  key,
  kind: 'event',
  payload: { body: { text } },
});

/** The database repository, failing its next `failures` writes as a database that went away would. */
class Flaky extends DrizzleInboundEventRepo {
  failures = 0;
  override write(prepared: PreparedInbound[]): Promise<Array<PromiseSettledResult<InboundEvent | null>>> {
    if (this.failures <= 0) return super.write(prepared);
    this.failures -= 1;
    const gone = Object.assign(new Error('Connection terminated unexpectedly'), { code: '57P01' });
    return Promise.resolve(prepared.map(() => ({ status: 'rejected' as const, reason: gone })));
  }
}

describe('the inbound journal', () => {
  let db: Database;
  let repo: Flaky;
  let outbox: DrizzleOutboxRepo;
  const job = { topic: 'inbound.slack', orderingKey: 'inbound:slack:T1:CJ' };
  const stored = async (key: string) => db.db.select().from(inboundEvents).where(eq(inboundEvents.key, key));

  beforeAll(async () => {
    db = await pgliteDb.open();
    repo = new Flaky(db.db);
    outbox = new DrizzleOutboxRepo(db.db);
  });
  afterAll(async () => {
    await db?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('has a request in its file when accept returns, and in the database with its job once it is closed', async () => {
    const dir = journalDir();
    const journal = await InboundJournal.open(dir, repo, silent, HELD);
    const event = await journal.accept(slack('event:J1'), job);
    expect(event).toMatchObject({ key: 'event:J1', surface: 'slack' });
    expect(lines(dir).map((l) => JSON.parse(l).key)).toEqual(['event:J1']);
    expect(await stored('event:J1')).toEqual([]);
    // What an operator scrapes while requests wait in the journal, and once they are moved.
    const metrics = createMetrics({ db: () => db.db, defaultMetrics: false, journalWaiting: () => journal.waiting });
    const waiting = async () => /^switchboard_inbound_journal_waiting (\d+)$/m.exec((await metrics.render()).body)?.[1];
    expect(await waiting()).toBe('1');
    await journal.close();
    expect(await waiting()).toBe('0');
    const [row] = await stored('event:J1');
    expect(row).toMatchObject({ id: event!.id, outboxId: event!.outboxId, payload: { body: { text: 'event:J1' } } });
    expect(await outbox.get(event!.outboxId!)).toMatchObject({
      topic: 'inbound.slack',
      payload: { inboundId: event!.id },
    });
    expect(readdirSync(dir)).toEqual([]);
    await expect(journal.accept(slack('event:J1-late'), job)).rejects.toThrow('The inbound journal is closed');
  });

  it('moves requests once they pause, once per key and in the order they came, then tells the queue', async () => {
    const dir = journalDir();
    const journal = await InboundJournal.open(dir, repo, silent, QUICK);
    let told = 0;
    journal.onStored(() => {
      told += 1;
    });
    const keys = Array.from({ length: 40 }, (_, i) => `event:J2-${i % 30}`);
    const events = await Promise.all(keys.map((key, i) => journal.accept(slack(key, `n${i}`), job)));
    await vi.waitFor(() => expect(told).toBeGreaterThan(0));
    expect(journal.waiting).toBe(0);
    // Each key once, with the first request's text; the ten repeats were redeliveries.
    for (let i = 0; i < 30; i++)
      expect((await stored(`event:J2-${i}`)).map((r) => r.payload)).toEqual([{ body: { text: `n${i}` } }]);
    const order = new Map(events.slice(0, 30).map((e, i) => [e!.id, i]));
    const entries = (await outbox.list({ topic: 'inbound.slack' })).filter((e) =>
      order.has(String(e.payload.inboundId)),
    );
    expect(entries.map((e) => order.get(String(e.payload.inboundId)))).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(readdirSync(dir)).toEqual([]);
    await journal.close();
  });

  it('keeps the requests while the database cannot take them, and moves them when it can', async () => {
    const dir = journalDir();
    const journal = await InboundJournal.open(dir, repo, silent, QUICK);
    repo.failures = 2;
    await journal.accept(slack('event:J3'), job);
    await vi.waitFor(() => expect(repo.failures).toBe(0));
    expect(lines(dir).length).toBe(1);
    await vi.waitFor(async () => expect(await stored('event:J3')).toHaveLength(1));
    await vi.waitFor(() => expect(readdirSync(dir)).toEqual([]));
    await journal.close();
  });

  it('leaves out a request the database refuses, and moves the ones beside it', async () => {
    const dir = journalDir();
    const journal = await InboundJournal.open(dir, repo, silent, HELD);
    // A job without a topic breaks the outbox's NOT NULL (text jsonb cannot hold is stored as U+FFFD instead).
    await Promise.all(
      ['event:J4-a', 'event:J4-bad', 'event:J4-b'].map((key) =>
        journal.accept(slack(key), key.endsWith('bad') ? { ...job, topic: null as unknown as string } : job),
      ),
    );
    await journal.close();
    expect(await stored('event:J4-a')).toHaveLength(1);
    expect(await stored('event:J4-b')).toHaveLength(1);
    expect(await stored('event:J4-bad')).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('waits out a failed move with as many requests waiting as start a move at once, instead of looping on a timer', async () => {
    const dir = journalDir();
    const journal = await InboundJournal.open(dir, repo, silent, {
      quietMs: 3_600_000,
      maxWaitMs: 3_600_000,
      maxPending: 1,
      retryMs: 60_000,
    });
    repo.failures = 1_000;
    await journal.accept(slack('event:J5'), job);
    await vi.waitFor(() => expect(repo.failures).toBeLessThan(1_000));
    const timers = vi.spyOn(globalThis, 'setTimeout');
    try {
      await new Promise((r) => setTimeout(r, 1_500));
      // The next try is a minute away: a timer or two at most meanwhile (a loop sets hundreds).
      expect(timers.mock.calls.length).toBeLessThan(10);
    } finally {
      timers.mockRestore();
      repo.failures = 0;
    }
    await journal.close();
    expect(await stored('event:J5')).toHaveLength(1);
  });

  it('refuses new requests, saying to send them again, while it holds as many as it may and the database takes none', async () => {
    const dir = journalDir();
    const journal = await InboundJournal.open(dir, repo, silent, { ...QUICK, maxHeld: 3 });
    repo.failures = 1_000;
    try {
      for (const key of ['event:J8-a', 'event:J8-b', 'event:J8-c']) await journal.accept(slack(key), job);
      await expect(journal.accept(slack('event:J8-d'), job)).rejects.toMatchObject({
        code: 'UNAVAILABLE',
        message: expect.stringContaining('send this one again shortly'),
      });
      expect(lines(dir).map((l) => JSON.parse(l).key)).toEqual(['event:J8-a', 'event:J8-b', 'event:J8-c']);
    } finally {
      repo.failures = 0;
    }
    // Once the database takes them, there is room again.
    await vi.waitFor(() => expect(journal.waiting).toBe(0));
    expect(await journal.accept(slack('event:J8-d'), job)).toMatchObject({ key: 'event:J8-d' });
    await journal.close();
    expect(await stored('event:J8-d')).toHaveLength(1);
  });

  it('tries again later when a moved file cannot be deleted, with no unhandled rejection', async () => {
    const dir = journalDir();
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => {
      unhandled.push(e);
    };
    process.on('unhandledRejection', onUnhandled);
    try {
      const journal = await InboundJournal.open(dir, repo, silent, {
        quietMs: 3_600_000,
        maxWaitMs: 3_600_000,
        maxPending: 2,
        retryMs: 50,
      });
      await journal.accept(slack('event:J6-a'), job);
      // The file's name now holds a directory, which unlink refuses (EISDIR); appends still go to the file, renamed.
      const [file] = readdirSync(dir);
      renameSync(path.join(dir, file), path.join(dir, `${file}.kept`));
      mkdirSync(path.join(dir, file));
      await journal.accept(slack('event:J6-b'), job);
      await vi.waitFor(async () =>
        expect((await stored('event:J6-a')).length + (await stored('event:J6-b')).length).toBe(2),
      );
      await new Promise((r) => setTimeout(r, 300));
      expect(journal.waiting).toBe(2);
      rmdirSync(path.join(dir, file));
      await vi.waitFor(() => expect(journal.waiting).toBe(0));
      await journal.close();
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('moves a segment whose file could not be closed, and close() still finishes', async () => {
    const dir = journalDir();
    const journal = await InboundJournal.open(dir, repo, silent, HELD);
    await journal.accept(slack('event:J7'), job);
    // Its descriptor is closed behind its back, so the journal's own close fails (EBADF).
    closeSync((journal as unknown as { active: { fd: number } }).active.fd);
    await journal.close();
    expect(await stored('event:J7')).toHaveLength(1);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('leaves out a request refused for another reason while the ones beside it went in, but keeps all when every one is refused', async () => {
    const dir = journalDir();
    const journal = await InboundJournal.open(dir, repo, silent, { ...QUICK, retryMs: 3_600_000 });
    const odd = Object.assign(new Error('something this row alone meets'), { code: 'XX000' });
    const original = repo.write.bind(repo);
    let refuseAll = true;
    // The refused rows are never written; the others are.
    repo.write = async (rows) => {
      const refused = (r: PreparedInbound) => refuseAll || r.event.key === 'event:J9-odd';
      const written = await original(rows.filter((r) => !refused(r)));
      return rows.map((r) => (refused(r) ? { status: 'rejected' as const, reason: odd } : written.shift()!));
    };
    try {
      await journal.accept(slack('event:J9-odd'), job);
      await journal.accept(slack('event:J9-fine'), job);
      // Every row refused: kept, to be tried again.
      await vi.waitFor(() => expect(journal.waiting).toBe(2));
      await journal.close();
      expect(lines(dir)).toHaveLength(2);
      // Once the others go in, the one refused alone is left out rather than holding up those after it.
      refuseAll = false;
      const next = await InboundJournal.open(dir, repo, silent, HELD);
      expect(readdirSync(dir)).toEqual([]);
      await next.close();
      expect(await stored('event:J9-fine')).toHaveLength(1);
      expect(await stored('event:J9-odd')).toEqual([]);
    } finally {
      repo.write = original;
    }
  });

  it('will not start on a journal line it did not write, unless it is the last (torn) one, and says what to do', async () => {
    const dir = journalDir();
    const journal = await InboundJournal.open(dir, repo, silent, HELD);
    await journal.accept(slack('event:J10-a'), job);
    const [file] = readdirSync(dir);
    appendFileSync(path.join(dir, file), '{"version":2,"something":"else"}\n');
    await journal.accept(slack('event:J10-b'), job);
    await expect(InboundJournal.open(dir, repo, silent, HELD)).rejects.toThrow(
      /Line 2 of the inbound journal .* move the file out of the directory/,
    );
    expect(await stored('event:J10-a')).toEqual([]);
    await journal.close();
  });

  it('moves what a killed process acknowledged at the next start, skipping a line cut short', async () => {
    const dir = journalDir();
    // The child appends as fast as it can and prints each acknowledged key; it is killed mid-stream.
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    const acked: string[] = [];
    const exited = new Promise((resolve) => child.once('exit', resolve));
    for await (const key of createInterface({ input: child.stdout! })) {
      acked.push(key);
      if (acked.length === 300) child.kill('SIGKILL');
    }
    await exited;
    expect(acked.length).toBeGreaterThanOrEqual(300);
    // A crash in the middle of an append leaves a torn last line, never acknowledged.
    const [last] = readdirSync(dir).sort().slice(-1);
    appendFileSync(path.join(dir, last), '{"id":"3f1c0a1e-0000-4000-8000-00000000');
    const journal = await InboundJournal.open(dir, repo, silent, HELD);
    const keys = new Set((await db.db.select({ key: inboundEvents.key }).from(inboundEvents)).map((r) => r.key));
    expect(acked.filter((k) => !keys.has(k))).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);
    await journal.close();
  }, 120_000);
});
