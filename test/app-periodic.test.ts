// The hourly upkeep (purges, the sweep of expired web sessions) runs once per hour however many processes share the
// database: three servers over one PostgreSQL (with the embedded queue, and with BullMQ on one Redis), and one server
// alone on the embedded database. The clock is moved an hour at a time; each task's work is counted in every process.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { periodicTasks } from '../src/app-periodic.ts';
import { periodEntryId } from '../src/core/delivery/periodic.ts';
import { PermanentFailure } from '../src/core/errors.ts';
import type { App } from '../src/app.ts';
import { openDatabase, type Database } from '../src/infra/db/client.ts';
import type { Server } from '../src/server.ts';
import { freshPostgresDatabase, pgliteDb } from './support/db.ts';
import { startServerForTest } from './support/server.ts';
import { serviceUrl } from './support/services.ts';
import { TestClock } from './support/web/server.ts';

const HOUR_MS = 3600_000;

/** The call each task's run makes, so that runs can be counted in every process. */
const WORK: Record<string, (app: App) => [object, string]> = {
  'upkeep.history': (app) => [app.messaging, 'purgeHistory'],
  'upkeep.inbound': (app) => [app.store.inbound, 'purgeBefore'],
  'upkeep.jobs': (app) => [app.store.outbox, 'purgeDoneBefore'],
  'upkeep.posts': (app) => [app.store.posts, 'purgeBefore'],
  'upkeep.reads': (app) => [app.audiences, 'forgetOldReads'],
  'upkeep.sessions': (app) => [app.store.sessions, 'deleteExpired'],
};

interface Setup {
  kind: string;
  /** Starts the servers over one database; the clock is theirs. */
  open(clock: TestClock): Promise<{ servers: Server[]; close(): Promise<void> }>;
}

const postgres = serviceUrl('postgres');
const redis = serviceUrl('redis');

/** Three servers over a fresh PostgreSQL database, each with its own pool (as three processes have). */
const three =
  (url: string, redisUrl?: string): Setup['open'] =>
  async (clock) => {
    const fresh = await freshPostgresDatabase(url);
    const databases: Database[] = [];
    for (let i = 0; i < 3; i++) {
      const d = await openDatabase({ databaseUrl: fresh.url, max: 3 });
      if (i === 0) await d.migrate();
      databases.push(d);
    }
    const queueName = `periodic-${randomBytes(4).toString('hex')}`;
    const servers = await Promise.all(
      databases.map((database, i) =>
        startServerForTest({ database, clock, migrate: false, mounts: [], name: `periodic-${i}`, redisUrl, queueName }),
      ),
    );
    return {
      servers,
      async close() {
        await Promise.all(servers.map((s) => s.stop()));
        for (const d of databases) await d.close();
        await fresh.drop();
      },
    };
  };

const setups: Setup[] = [
  {
    kind: 'one server on the embedded database',
    async open(clock) {
      const database = await pgliteDb.open();
      const server = await startServerForTest({ database, clock, mounts: [], name: 'periodic' });
      return {
        servers: [server],
        async close() {
          await server.stop();
          await database.close();
        },
      };
    },
  },
];
if (postgres) setups.push({ kind: 'three servers on PostgreSQL, embedded queues', open: three(postgres) });
if (postgres && redis)
  setups.push({ kind: 'three servers on PostgreSQL and one Redis (BullMQ)', open: three(postgres, redis) });

describe.each(setups)('the hourly upkeep: $kind', (setup) => {
  const clock = new TestClock();
  let env: Awaited<ReturnType<Setup['open']>>;
  let runs: Map<string, ReturnType<typeof vi.fn>[]>;
  const app = () => env.servers[0].app;
  const period = () => Math.floor(clock.now().getTime() / HOUR_MS);
  /** How many times each task's work ran, in all the servers together. */
  const counts = () =>
    Object.fromEntries([...runs].map(([topic, spies]) => [topic, spies.reduce((n, s) => n + s.mock.calls.length, 0)]));
  const each = (n: number) => Object.fromEntries(Object.keys(WORK).map((t) => [t, n]));
  const entries = async () => (await app().store.outbox.list({})).filter((e) => e.topic.startsWith('upkeep.'));

  beforeAll(async () => {
    env = await setup.open(clock);
    runs = new Map(
      Object.entries(WORK).map(([topic, work]) => [
        topic,
        env.servers.map((s) => {
          const [target, method] = work(s.app);
          return vi.spyOn(target as Record<string, () => Promise<number>>, method);
        }),
      ]),
    );
  }, 60_000);
  afterAll(async () => {
    await env?.close();
  });

  it('knows every task it runs', () => {
    expect(periodicTasks(app()).map((t) => t.topic)).toEqual(Object.keys(WORK));
  });

  it('schedules the next hour of each task once, however many servers started', async () => {
    const next = period() + 1;
    const scheduled = await entries();
    expect(scheduled.map((e) => [e.topic, e.status, e.runAt.getTime()]).sort()).toEqual(
      Object.keys(WORK).map((t) => [t, 'pending', next * HOUR_MS]),
    );
    expect(scheduled.map((e) => e.id).sort()).toEqual(
      Object.keys(WORK)
        .map((t) => periodEntryId(t, next))
        .sort(),
    );
    expect(counts()).toEqual(each(0));
  });

  it('runs each task once per hour, in whichever server claims it first, and schedules the hour after', async () => {
    for (let hour = 1; hour <= 2; hour++) {
      clock.advance(HOUR_MS);
      const now = period();
      await vi.waitFor(async () => {
        const byId = new Map((await entries()).map((e) => [e.id, e.status]));
        for (const topic of Object.keys(WORK)) {
          expect(byId.get(periodEntryId(topic, now)), `${topic} ran`).toBe('done');
          expect(byId.get(periodEntryId(topic, now + 1)), `${topic} scheduled the next hour`).toBe('pending');
        }
      });
      expect(counts()).toEqual(each(hour));
    }
    // One entry per task and hour, each claimed once.
    const all = await entries();
    const tasks = Object.keys(WORK).length;
    expect(all).toHaveLength(3 * tasks);
    expect(all.filter((e) => e.status === 'done').map((e) => e.attempts)).toEqual(Array(2 * tasks).fill(1));
  });

  it('keeps the series going when a run fails for good: the next hour was scheduled before the work', async () => {
    // The work fails in every server, so the attempt fails wherever it runs.
    for (const spy of runs.get('upkeep.history')!)
      spy.mockRejectedValueOnce(new PermanentFailure('a bug in the purge'));
    const before = counts()['upkeep.history'];
    clock.advance(HOUR_MS);
    const now = period();
    await vi.waitFor(async () => {
      expect((await app().store.outbox.get(periodEntryId('upkeep.history', now)))?.status).toBe('failed');
    });
    expect((await app().store.outbox.get(periodEntryId('upkeep.history', now + 1)))?.status).toBe('pending');
    expect(counts()['upkeep.history'] - before).toBe(1);
  });
});
