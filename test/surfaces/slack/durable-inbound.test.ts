// Slack requests are stored before they are acknowledged: a server stopped (or
// killed) after the 200 loses nothing, a replay is handled once, a handler that
// keeps failing ends as a failed job an operator can retry, and requests signed
// in the future or for buttons nobody handles are answered at once.
import { randomBytes } from 'node:crypto';
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { databaseUnavailable } from '../../../src/infra/db/errors.ts';
import { inboundEvents, outbox } from '../../../src/infra/db/schema.ts';
import { LAST_TRIES } from '../../../src/infra/queue/run-entry.ts';
import { slackRuntime } from '../../../src/app-surfaces.ts';
import { runCommand } from '../../../src/cli/control.ts';
import { pgliteDb, postgresDb, type TestDatabase } from '../../support/db.ts';
import { SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { blockActions } from '../../support/slack/payloads.ts';
import { appMention, eventCallback, signRequest, slashCommand } from '../../support/slack/signed-request.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import { inbox, startHarness, type Harness } from '../../support/slack/harness.ts';
import { serviceUrl } from '../../support/services.ts';
import { SLACK_INBOUND } from '../../../src/surfaces/slack/topics.ts';

const BOT = `<@${SLACK_DEFAULTS.botUserId}>`;
const CAROL = 'U0CAROL01';
const LONG = { timeout: 30_000, interval: 50 };

const variants: Array<{ name: string; db: TestDatabase; redisUrl?: string }> = [
  { name: 'PGlite and the embedded queue', db: pgliteDb },
];
const pg = postgresDb();
const redisUrl = serviceUrl('redis');
if (pg && redisUrl) variants.push({ name: 'PostgreSQL and BullMQ', db: pg, redisUrl });

describe.each(variants)('durable Slack intake on $name', ({ db: kind, redisUrl }) => {
  let db: Database;
  let standin: SlackStandin;
  const queueName = `durable-${randomBytes(4).toString('hex')}`;
  const harness = (
    o: { seed?: boolean; logLines?: string[]; queue?: { maxAttempts?: number; maxAgeMs?: number } } = {},
  ) =>
    startHarness({
      database: db,
      standin,
      seed: o.seed,
      redisUrl,
      queueName,
      logLines: o.logLines,
      ...(o.queue ? { queue: o.queue } : {}),
    });
  const mention = (text: string) =>
    eventCallback(appMention({ user: CAROL, channel: 'C0GENERAL', text: `${BOT} @reviewer ${text}` }));
  /** Every body the reviewer has received, read through `h`, until all of `bodies` are there. */
  const receivedAll = async (h: Harness, bodies: string[]) => {
    const seen: string[] = [];
    await vi.waitFor(async () => {
      seen.push(...(await inbox(h)).map((i) => i.message.body));
      for (const b of bodies) expect(seen).toContain(b);
    }, LONG);
    return seen;
  };

  beforeAll(async () => {
    [db, standin] = await Promise.all([kind.open(), startSlackStandin()]);
    standin.setUser(CAROL, { real_name: 'Carol Chen' });
    const first = await harness({ seed: true });
    await first.stop();
  });
  afterAll(async () => {
    await standin?.close();
    await db?.close();
  });

  it('hands an event acknowledged by a server that stopped before handling it to the next server on the same database', async () => {
    const h1 = await harness();
    // The queue stops first: the request is stored and acknowledged, then the process goes away unhandled.
    await h1.server.app.queue.stop();
    const res = await h1.post(mention('survives the restart'));
    expect(res.status).toBe(200);
    await h1.stop();
    const [row] = await db.db
      .select({ outboxId: inboundEvents.outboxId })
      .from(inboundEvents)
      .where(eq(inboundEvents.kind, 'event'))
      .orderBy(inboundEvents.receivedAt)
      .limit(1)
      .offset(0);
    expect(row.outboxId).not.toBeNull();

    const h2 = await harness();
    try {
      const seen = await receivedAll(h2, ['@reviewer survives the restart']);
      expect(seen.filter((b) => b === '@reviewer survives the restart')).toHaveLength(1);
    } finally {
      await h2.stop();
    }
  }, 120_000);

  it('loses nothing it acknowledged when stopped (SIGTERM) while requests keep coming, and answers the rest 503', async () => {
    const h1 = await harness();
    const bodies = Array.from({ length: 24 }, (_, i) => `drain ${i}`);
    const send = async (b: string) => {
      try {
        return { b, status: (await h1.post(mention(b))).status };
      } catch {
        return { b, status: 0 }; // the listener had closed: Slack retries those too
      }
    };
    // Half acknowledged before the stop begins (their handling is still under way), half sent while it runs.
    const early = await Promise.all(bodies.slice(0, 12).map(send));
    expect(early.map((r) => r.status)).toEqual(early.map(() => 200));
    const stopping = h1.stop();
    const results = [...early, ...(await Promise.all(bodies.slice(12).map(send)))];
    await stopping;
    for (const r of results) expect([0, 200, 503]).toContain(r.status);
    const acked = results.filter((r) => r.status === 200).map((r) => `@reviewer ${r.b}`);

    const h2 = await harness();
    try {
      const seen = await receivedAll(h2, acked);
      for (const b of acked) expect(seen.filter((s) => s === b)).toHaveLength(1);
    } finally {
      await h2.stop();
    }
  }, 120_000);

  describe('with one server', () => {
    let h: Harness;
    const logLines: string[] = [];
    // Jobs are given up quickly here: a transient failure after LAST_TRIES attempts (every job is past its max age).
    beforeAll(async () => {
      h = await harness({ logLines, queue: { maxAttempts: 2, maxAgeMs: 1 } });
    });
    afterAll(async () => {
      await h?.stop();
    });

    it('handles a slash command replayed with the same signature once', async () => {
      const url = standin.responseUrl();
      const request = slashCommand({
        command: '/switchboard',
        text: 'agents',
        user_id: CAROL,
        channel_id: 'C0GENERAL',
        response_url: url,
      });
      const { headers } = signRequest(request);
      const post = () => fetch(`${h.server.url}/slack/events`, { method: 'POST', headers, body: request.body });
      expect((await post()).status).toBe(200);
      expect((await post()).status).toBe(200);
      await vi.waitFor(() => expect(standin.responseUrlPosts.filter((p) => p.url === url)).toHaveLength(1), LONG);
      // Whatever the second copy would have done is done by now: a later request in the channel has been handled.
      expect((await h.post(mention('after the replay'))).status).toBe(200);
      await receivedAll(h, ['@reviewer after the replay']);
      expect(standin.responseUrlPosts.filter((p) => p.url === url)).toHaveLength(1);
    }, 60_000);

    it('handles a mention again after its handling met a database outage, instead of answering with the outage and dropping it', async () => {
      // The store's own translation of a lost connection, thrown once where the handler first reads the database.
      const identities = h.server.app.store.identities;
      const find = identities.find;
      let outage = true;
      identities.find = (async (...a: Parameters<typeof find>) => {
        if (outage) {
          outage = false;
          throw databaseUnavailable();
        }
        return find.apply(identities, a);
      }) as typeof find;
      try {
        expect((await h.post(mention('through an outage'))).status).toBe(200);
        const seen = await receivedAll(h, ['@reviewer through an outage']);
        expect(seen.filter((b) => b === '@reviewer through an outage')).toHaveLength(1);
        expect(outage).toBe(false);
        expect(
          standin.callsTo('chat.postEphemeral').filter((c) => String(c.args.text).includes('cannot be reached')),
        ).toEqual([]);
      } finally {
        Reflect.deleteProperty(identities, 'find');
      }
    }, 60_000);

    it("handles a mention again when reading the team's install met a database outage, instead of taking the team for not installed", async () => {
      const installations = slackRuntime(h.server.app).installations;
      const credentials = installations.credentials;
      let outage = true;
      installations.credentials = (async (...a: Parameters<typeof credentials>) => {
        if (outage) {
          outage = false;
          throw databaseUnavailable();
        }
        return credentials.apply(installations, a);
      }) as typeof credentials;
      try {
        expect((await h.post(mention('authorized after an outage'))).status).toBe(200);
        const seen = await receivedAll(h, ['@reviewer authorized after an outage']);
        expect(seen.filter((b) => b === '@reviewer authorized after an outage')).toHaveLength(1);
        expect(outage).toBe(false);
      } finally {
        Reflect.deleteProperty(installations, 'credentials');
      }
    }, 60_000);

    it('refuses a request signed more than five minutes in the future with 401 and stores nothing', async () => {
      const [before] = await db.db.select({ n: count() }).from(inboundEvents);
      const res = await h.post(mention('from the future'), { timestamp: Math.floor(Date.now() / 1000) + 10 * 60 });
      expect(res.status).toBe(401);
      expect(await res.text()).toContain('future');
      const [after] = await db.db.select({ n: count() }).from(inboundEvents);
      expect(after.n).toBe(before.n);
    });

    it('acknowledges a click on a button Switchboard does not know with 200 and logs it at debug', async () => {
      const res = await h.post(
        blockActions({
          user: CAROL,
          channel: 'C0GENERAL',
          message: { ts: '1700000000.000100', text: "another app's card" },
          actions: [{ action_id: 'someone_elses_button', value: 'x', block_id: 'b', text: 'Press' }],
        }),
      );
      expect(res.status).toBe(200);
      await vi.waitFor(() => {
        const line = logLines
          .map((l) => JSON.parse(l) as { level: number; msg: string })
          .find((l) => l.msg.includes('no listener handles this Slack request'));
        expect(line?.level).toBe(20);
      }, LONG);
    });

    it('marks a request whose handling keeps failing as failed, and `jobs retry` handles it again', async () => {
      // Naming nobody makes the handler answer ephemerally; Slack being down makes that throw on every attempt.
      standin.failNext('chat.postEphemeral', { status: 500 }, LAST_TRIES);
      const res = await h.post(eventCallback(appMention({ user: CAROL, channel: 'C0GENERAL', text: `${BOT}` })));
      expect(res.status).toBe(200);
      const failed = await vi.waitFor(async () => {
        const reply = await runCommand(h.server.app, 'jobs list', { status: 'failed', topic: SLACK_INBOUND });
        const jobs = (reply.output?.data.jobs ?? []) as Array<{ id: string; attempts: number; last_error: string }>;
        expect(jobs).toHaveLength(1);
        return jobs[0];
      }, LONG);
      expect(failed.attempts).toBe(LAST_TRIES);
      expect(failed.last_error).toMatch(/^gave up after 3 attempts over \d+ s: Slack answered HTTP 500/);
      const ephemerals = () =>
        standin.callsTo('chat.postEphemeral').filter((c) => c.args.user === CAROL && c.status === 200).length;
      const before = ephemerals();

      const retried = await runCommand(h.server.app, 'jobs retry', { id: failed.id });
      expect(retried.ok).toBe(true);
      await vi.waitFor(async () => {
        const [entry] = await db.db.select({ status: outbox.status }).from(outbox).where(eq(outbox.id, failed.id));
        expect(entry.status).toBe('done');
      }, LONG);
      expect(ephemerals()).toBe(before + 1);
      const again = await runCommand(h.server.app, 'jobs retry', { id: failed.id });
      expect(again.error?.message).toContain('only a failed job can be retried');
    }, 120_000);
  });
});
