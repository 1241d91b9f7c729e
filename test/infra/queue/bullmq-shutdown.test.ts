// Stopping while Redis is away: BullMQ's connection waits for a reconnect for ever (maxRetriesPerRequest: null), so
// stop() used to wait for ever too, and a SIGTERM left a process that never exited. A private redis-server (never the
// shared one other files use) is killed under a running queue; the outbox, on the real PostgreSQL, keeps the work.
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { freePort, PrivateRedis } from '../../../bench/chaos/processes.ts';
import type { Database } from '../../../src/infra/db/client.ts';
import { DrizzleOutboxRepo } from '../../../src/infra/db/outbox-repo.ts';
import { BullmqQueue } from '../../../src/infra/queue/bullmq-queue.ts';
import { createApp } from '../../../src/app.ts';
import { silent, testConfig } from '../../support/world.ts';
import { postgresDb } from '../../support/db.ts';
import { serviceUrl } from '../../support/services.ts';

/** Far above the bound stop() keeps (about twice its wait: 1 s here, STOP_WAIT_MS in the app): only a stop that hangs gets here. */
const HUNG_AFTER_MS = 30_000;

const stopsInTime = (stop: Promise<void>) =>
  Promise.race([
    stop.then(() => 'stopped'),
    new Promise((r) => setTimeout(() => r('still waiting'), HUNG_AFTER_MS).unref()),
  ]);

describe.skipIf(!serviceUrl('postgres'))('the BullMQ queue while Redis is down: stopping, and starting', () => {
  let database: Database;
  let repo: DrizzleOutboxRepo;
  let redis: PrivateRedis;

  beforeAll(async () => {
    database = await postgresDb()!.open();
    repo = new DrizzleOutboxRepo(database.db);
    redis = new PrivateRedis(await freePort());
  });
  beforeEach(async () => {
    // A fresh, empty Redis for each case, whatever the one before left behind.
    await redis.stop();
    await redis.start();
  });
  afterAll(async () => {
    await redis?.stop();
    await database?.close();
  });

  it('stops anyway, warns what it gave up on, and the entry it had not handed to Redis runs once after a restart', async () => {
    const warnings: Array<{ msg: string }> = [];
    const logger = pino(
      { level: 'warn' },
      {
        write: (line: string) => {
          warnings.push(JSON.parse(line));
        },
      },
    );
    const runs = new Map<string, number>();
    const queue = () => {
      const q = new BullmqQueue({
        stopWaitMs: 1_000,
        redisUrl: redis.url,
        outbox: repo,
        logger,
        pollMs: 25,
        backoff: () => 20,
        leaseMs: 3_000,
      });
      q.register('post', async (p) => {
        runs.set(String(p.n), (runs.get(String(p.n)) ?? 0) + 1);
      });
      return q;
    };
    const settled = (id: string) => vi.waitFor(async () => expect((await repo.get(id))?.status).toBe('done'));

    const first = queue();
    await first.start();
    const before = await repo.add({ topic: 'post', payload: { n: 'before' } });
    first.kick();
    await settled(before.id);

    await redis.stop(); // SIGKILL
    const pending = await repo.add({ topic: 'post', payload: { n: 'after' } });
    first.kick(); // the relay now waits on Redis

    expect(await stopsInTime(first.stop())).toBe('stopped');
    expect(warnings.map((w) => w.msg)).toContainEqual(
      expect.stringContaining('Redis did not let the queue stop in time'),
    );
    expect((await repo.get(pending.id))?.status).toBe('pending');

    // An empty Redis on the same port, as after a Redis restart; a new process's queue delivers what the outbox kept.
    await redis.start();
    const second = queue();
    await second.start();
    await settled(pending.id);
    // One more through the same queue: a second delivery of the first would have shown by then.
    const last = await repo.add({ topic: 'post', payload: { n: 'last' } });
    second.kick();
    await settled(last.id);
    await second.stop();
    expect(Object.fromEntries(runs)).toEqual({ before: 1, after: 1, last: 1 });
  }, 120_000);

  it('stops while only the worker waits on Redis, and the readiness check says Redis is unreachable meanwhile', async () => {
    const idle = new BullmqQueue({
      stopWaitMs: 1_000,
      redisUrl: redis.url,
      outbox: repo,
      logger: silent,
      pollMs: 60_000,
    });
    await idle.start();
    await redis.stop();
    await vi.waitFor(() => expect(idle.ping()).rejects.toThrow(/Redis is unreachable/));
    expect(await stopsInTime(idle.stop())).toBe('stopped');
  }, 60_000);

  it('lets the whole app close (SIGTERM calls this) while Redis is down', async () => {
    const app = await createApp(testConfig({ REDIS_URL: redis.url }), { database, logger: silent, migrate: false });
    await app.queue.start();
    await redis.stop();
    expect(await stopsInTime(app.close())).toBe('stopped');
  }, 60_000);

  it('waits at start for a Redis that is not up yet, as for the database, and then delivers', async () => {
    await redis.stop();
    const warnings: Array<{ msg: string }> = [];
    const logger = pino(
      { level: 'warn' },
      {
        write: (line: string) => {
          warnings.push(JSON.parse(line));
        },
      },
    );
    const ran: string[] = [];
    const q = new BullmqQueue({
      stopWaitMs: 1_000,
      redisUrl: redis.url,
      outbox: repo,
      logger,
      pollMs: 25,
      startPatienceMs: 90_000,
    });
    q.register('post', async (p) => {
      ran.push(String(p.n));
    });
    const starting = q.start().then(
      () => 'started',
      (e: Error) => e.message,
    );
    await vi.waitFor(
      () => expect(warnings.map((w) => w.msg)).toContain('Redis cannot be reached yet; waiting for it'),
      { timeout: 20_000 },
    );
    await redis.start();
    expect(await starting).toBe('started');
    const entry = await repo.add({ topic: 'post', payload: { n: 'late' } });
    q.kick();
    await vi.waitFor(async () => expect((await repo.get(entry.id))?.status).toBe('done'), { timeout: 20_000 });
    expect(ran).toEqual(['late']);
    await q.stop();
  }, 120_000);

  it("gives up at start with a sentence naming REDIS_URL's server (never its password) once its patience runs out", async () => {
    await redis.stop();
    const url = redis.url.replace('redis://', 'redis://:hunter2@');
    const q = new BullmqQueue({ redisUrl: url, outbox: repo, logger: silent, startPatienceMs: 1_000 });
    const error = await q.start().then(
      () => null,
      (e: Error) => e.message,
    );
    expect(error).toBe(
      `Redis at ${new URL(redis.url).protocol}//${new URL(redis.url).host} (REDIS_URL) could not be reached in 1 s; start it, or correct REDIS_URL.`,
    );
    expect(error).not.toContain('hunter2');
    expect(await stopsInTime(q.stop())).toBe('stopped');
  }, 60_000);
});
