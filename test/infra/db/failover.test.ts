import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { rowsOf } from '../../../src/infra/db/org-repo.ts';
import { loadConfig } from '../../../src/config.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import { isSwitchboardError } from '../../../src/core/errors.ts';
import { startServer, type Server } from '../../../src/server.ts';
import { mountWebChat } from '../../../src/http/surface-mount.ts';
import { hashPassword } from '../../../src/http/auth/index.ts';
import { postgresDb } from '../../support/db.ts';
import { HttpBrowser } from '../../support/web/browser.ts';
import { serviceUrl } from '../../support/services.ts';

const pgDb = postgresDb();
const ROUNDS = 20;

/** Polls `check` until it returns true; fails with `what` after a generous deadline (the machine may be loaded). */
async function until(what: string, check: () => Promise<boolean> | boolean, deadlineMs = 60_000) {
  const end = Date.now() + deadlineMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const queues: Array<{ queue: string; redisUrl?: string }> = [{ queue: 'the embedded queue' }];
const redisUrl = serviceUrl('redis');
if (redisUrl) queues.push({ queue: 'BullMQ', redisUrl });

describe.runIf(pgDb).each(queues)(
  'the server on $queue while PostgreSQL terminates its connections',
  ({ redisUrl }) => {
    let database: Database;
    let server: Server;
    let admin: pg.Client;
    let dbName: string;
    let dataDir: string;
    let general: string;
    const crashes: unknown[] = [];
    const onCrash = (e: unknown) => {
      crashes.push(e);
    };

    /** Ends every backend of the app's database, as a failover or an operator would. */
    const terminate = () =>
      admin.query(
        'select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
        [dbName],
      );

    beforeAll(async () => {
      process.on('uncaughtException', onCrash);
      process.on('unhandledRejection', onCrash);
      database = await pgDb!.open();
      dataDir = mkdtempSync(path.join(tmpdir(), 'sb-failover-'));
      const unique = `failover-${randomBytes(4).toString('hex')}`;
      server = await startServer(
        loadConfig({ PORT: '0', DATA_DIR: dataDir, ...(redisUrl ? { REDIS_URL: redisUrl } : {}) }),
        {
          database,
          logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
          host: '127.0.0.1',
          control: false,
          mounts: [mountWebChat],
          rateLimit: { max: 100_000, windowMs: 60_000 },
          // Short leases and backoff so an outcome that could not be recorded during the outage is retried within the test.
          queue: {
            pollMs: 50,
            leaseMs: 2_000,
            backoff: () => 200,
            maxAttempts: 1_000,
            ...(redisUrl ? { queueName: unique, prefix: unique } : {}),
          },
        },
      );
      const { app } = server;
      const { admin: alice } = await app.orgs.init({ org: 'Acme', admin: 'alice' });
      await app.orgs.setPlan(SYSTEM, 'acme', 'team', 1_000_000);
      await app.orgs.addWorkspace(SYSTEM, { name: 'acme', org: 'acme', slug: 'acme' });
      await app.store.people.setPasswordHash(alice.id, await hashPassword('correct horse battery'));
      const url = new URL(process.env.TEST_DATABASE_URL!);
      dbName = rowsOf<{ d: string }>(await database.db.execute(sql`select current_database() as d`))[0].d;
      admin = new pg.Client({ connectionString: url.toString() });
      admin.on('error', () => {});
      await admin.connect();
      const probe = new HttpBrowser(server.url);
      await probe.signIn('alice', 'correct horse battery');
      general = (await probe.api('GET', '/w/acme/sidebar'))
        .json()
        .channels.find((c: { name: string }) => c.name === 'general').id;
    });

    afterAll(async () => {
      await admin?.query(`alter database ${dbName} with allow_connections true`).catch(() => {});
      await admin?.end();
      await server?.stop();
      await database?.close();
      rmSync(dataDir, { recursive: true, force: true });
      process.off('uncaughtException', onCrash);
      process.off('unhandledRejection', onCrash);
    });

    it(`survives ${ROUNDS} rounds of backend termination under HTTP and job traffic, losing nothing it acknowledged`, async () => {
      const { app } = server;
      const ran = new Set<number>();
      app.queue.register('failover.probe', async (p) => {
        // The job touches the database too, so some attempts fail mid-outage and must be retried.
        await app.store.orgs.get('acme');
        ran.add(Number(p.n));
      });
      const acknowledgedPosts: string[] = [];
      const acknowledgedJobs: number[] = [];
      const statuses = new Map<number, number>();
      const enqueueErrors: string[] = [];
      let posted = 0;
      let queued = 0;
      let stop = false;

      // Sign in before the first termination: a sign-in caught by one is (rightly) refused with 503.
      const browsers = await Promise.all(
        [1, 2, 3].map(async () => {
          const browser = new HttpBrowser(server.url);
          await browser.signIn('alice', 'correct horse battery');
          return browser;
        }),
      );
      const poster = async (who: number) => {
        const browser = browsers[who - 1];
        for (let i = 0; !stop; i++) {
          const body = `failover ${who}-${i}`;
          const res = await browser.api('POST', `/w/acme/conversations/${general}/messages`, { body });
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status === 201) {
            acknowledgedPosts.push(body);
            posted++;
          }
        }
      };
      const enqueuer = async () => {
        for (let n = 0; !stop; n++) {
          try {
            await app.store.outbox.add({ topic: 'failover.probe', payload: { n } });
            acknowledgedJobs.push(n);
            app.queue.kick();
            queued++;
          } catch (e) {
            enqueueErrors.push(isSwitchboardError(e) ? e.code : String(e));
          }
          await new Promise((r) => setTimeout(r, 10));
        }
      };
      const traffic = Promise.all([poster(1), poster(2), poster(3), enqueuer()]);

      let terminated = 0;
      for (let round = 0; round < ROUNDS; round++) {
        terminated += (await terminate()).rows[0].n;
        // Traffic has to get through again before the next round, so every round hits a working server.
        const [posts, jobs] = [posted, queued];
        await until(`traffic to flow again after round ${round + 1}`, () => posted > posts && queued > jobs);
      }
      stop = true;
      await traffic;

      expect(crashes).toEqual([]);
      expect(terminated).toBeGreaterThan(ROUNDS);
      expect(acknowledgedPosts.length).toBeGreaterThan(ROUNDS);
      // A request caught by a termination is refused as unavailable, never answered with a 500.
      expect([...statuses.keys()].filter((s) => s !== 201 && s !== 503)).toEqual([]);
      expect(enqueueErrors.filter((c) => c !== 'UNAVAILABLE')).toEqual([]);

      await until('every acknowledged job to run', () => acknowledgedJobs.every((n) => ran.has(n)));
      const rows = rowsOf<{ body: string }>(await database.db.execute(sql`select body from messages`));
      const bodies = new Set(rows.map((r) => r.body));
      expect(acknowledgedPosts.filter((b) => !bodies.has(b))).toEqual([]);
    });

    it('hears NOTIFYs from other processes again once its listening connection was terminated', async () => {
      const heard: string[] = [];
      await server.app.notifier.subscribe('failover-topic', (p) => heard.push(p));
      await terminate();
      const other = new URL(process.env.TEST_DATABASE_URL!);
      other.pathname = `/${dbName}`;
      const sender = new pg.Client({ connectionString: other.toString() });
      sender.on('error', () => {});
      await sender.connect();
      try {
        // The listener reconnects with a backoff, so keep sending until one is heard.
        await until('a NOTIFY to be heard after the termination', async () => {
          await sender.query(`select pg_notify('switchboard_events', $1)`, ['failover-topic\nhello']);
          await new Promise((r) => setTimeout(r, 200));
          return heard.some((p) => p !== '');
        });
      } finally {
        await sender.end();
      }
      // The empty one is the wake-up that tells subscribers to look again after the gap.
      expect(heard.filter((p) => p !== '')[0]).toBe('hello');
    });

    it('reports a database outage on /readyz with the reason, answers 503 meanwhile, and recovers', async () => {
      const browser = new HttpBrowser(server.url);
      await browser.signIn('alice', 'correct horse battery');
      await admin.query(`alter database ${dbName} with allow_connections false`);
      await terminate();
      let reason = '';
      await until('/readyz to report the outage', async () => {
        const res = await fetch(`${server.url}/readyz`);
        if (res.status !== 503) return false;
        reason = (await res.json()).problems[0];
        return true;
      });
      expect(reason).toMatch(/^database unreachable/);
      expect(reason, "the driver's message (naming the database) stays in the log").not.toContain(dbName);
      const refused = await browser.api('POST', `/w/acme/conversations/${general}/messages`, {
        body: 'during the outage',
      });
      expect(refused.status).toBe(503);
      expect(refused.json().error.code).toBe('UNAVAILABLE');
      expect(refused.headers.get('retry-after')).toBe('5');

      await admin.query(`alter database ${dbName} with allow_connections true`);
      await until('/readyz to recover', async () => (await fetch(`${server.url}/readyz`)).status === 200);
      const after = await browser.api('POST', `/w/acme/conversations/${general}/messages`, {
        body: 'after the outage',
      });
      expect(after.status).toBe(201);
      expect(crashes).toEqual([]);
    });
  },
);
