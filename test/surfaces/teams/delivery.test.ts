// Agents' answers reach Teams through the outbox and the job queue, paced per
// conversation, one Bot Connector call per attempt (the SDK's own retries are
// off): throttling and transient failures are retried and delivered once, and
// a chat that blocked the bot is recorded as failed and told to the agent.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { databaseUnavailable } from '../../../src/infra/db/errors.ts';
import type { InboxItem } from '../../../src/core/messaging/message.ts';
import { pgliteDb, postgresDb, type TestDatabase } from '../../support/db.ts';
import { startTeamsStandin, type TeamsStandin } from '../../support/teams/standin.ts';
import { paceKey } from '../../../src/surfaces/teams/thread-id.ts';
import { inbox, mentionAndReceive, startHarness, type Harness } from '../../support/teams/harness.ts';
import { serviceUrl } from '../../support/services.ts';
import { TEAMS_POST, teamsRuntime } from '../../../src/surfaces/teams/index.ts';

interface Setup {
  name: string;
  db: TestDatabase;
  redisUrl?: string;
}

const redisUrl = serviceUrl('redis');
// Each queue and each database once: the embedded worker on PGlite, BullMQ on PostgreSQL (the queue and outbox
// contracts in test/infra/queue and test/infra/db run every pairing).
const pg = postgresDb();
const setups: Setup[] = [
  { name: 'pglite, embedded worker', db: pgliteDb },
  ...(redisUrl
    ? [{ name: `${pg ? 'postgres' : 'pglite'}, BullMQ`, db: pg ?? pgliteDb, redisUrl }]
    : pg
      ? [{ name: 'postgres, embedded worker', db: pg }]
      : []),
];

/** Scaled-down limits so a burst shows the pacing in well under a second per post. */
const LIMITS = [
  { max: 3, perMs: 300 },
  { max: 4, perMs: 600 },
];

describe.each(setups)('delivering answers to Teams ($name)', ({ db: kind, redisUrl }) => {
  let db: Database;
  let standin: TeamsStandin;
  let h: Harness;

  const reply = (item: InboxItem, body: string) =>
    h.server.app.messaging.send({
      workspace: h.workspace,
      sender: h.reviewer,
      conversationId: item.conversation.id,
      body,
    });
  const attempts = (text: string) =>
    standin.calls.filter((c) => c.op === 'sendToConversation' && JSON.stringify(c.activity ?? {}).includes(text));
  const posted = (conversationId: string, text: string) =>
    standin.conversationActivities(conversationId).filter((a) => JSON.stringify(a).includes(text));

  beforeAll(async () => {
    [db, standin] = await Promise.all([kind.open(), startTeamsStandin()]);
    h = await startHarness({ database: db, standin, redisUrl, teams: { limits: LIMITS } });
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  it('waits out a 429 for its Retry-After, then posts exactly once and records the activity id', async () => {
    const { item, activity } = await mentionAndReceive(h, standin);
    standin.failNext('sendToConversation', { status: 429, retryAfter: 1 });
    const text = 'Answer after throttling.';
    const sent = await reply(item, text);

    await vi.waitFor(() => expect(posted(activity.conversation.id, text)).toHaveLength(1), { timeout: 10_000 });
    const tries = attempts(text);
    expect(tries.map((t) => t.status)).toEqual([429, 201]);
    expect(tries[1]!.at.getTime() - tries[0]!.at.getTime()).toBeGreaterThanOrEqual(950);
    await vi.waitFor(
      async () => {
        expect((await h.server.app.store.messages.get(h.workspace.id, sent.message!.id))?.externalId).toBe(
          tries[1]!.createdId,
        );
      },
      { timeout: 20_000, interval: 50 },
    );
  });

  it('posts once when the database is away just after Teams took the post: the activity id is recorded once it is back', async () => {
    const { item, activity } = await mentionAndReceive(h, standin);
    // Teams cannot be searched for an earlier post, so a retried job would post again; the id is kept until stored.
    const messages = h.server.app.store.messages;
    const setPermalink = messages.setPermalink;
    let outages = 2;
    messages.setPermalink = (async (...a: Parameters<typeof setPermalink>) => {
      if (outages > 0) {
        outages -= 1;
        throw databaseUnavailable();
      }
      return setPermalink.apply(messages, a);
    }) as typeof setPermalink;
    try {
      const text = 'Answer while the database blinks.';
      const sent = await reply(item, text);
      await vi.waitFor(
        async () => {
          expect((await h.server.app.store.messages.get(h.workspace.id, sent.message!.id))?.externalId).toBe(
            attempts(text)[0]?.createdId,
          );
        },
        { timeout: 30_000, interval: 50 },
      );
      expect(outages).toBe(0);
      expect(posted(activity.conversation.id, text)).toHaveLength(1);
      expect(attempts(text)).toHaveLength(1);
    } finally {
      Reflect.deleteProperty(messages, 'setPermalink');
    }
  }, 60_000);

  it("takes one turn of the conversation's pace per post, not one in the job and another in the connector", async () => {
    const { item, activity } = await mentionAndReceive(h, standin);
    const pacer = teamsRuntime(h.server.app.surfaceModules).pacer;
    const wait = vi.spyOn(pacer, 'wait');
    try {
      const texts = ['Turn one.', 'Turn two.'];
      for (const text of texts) await reply(item, text);
      await vi.waitFor(
        () =>
          expect(
            standin
              .conversationActivities(activity.conversation.id)
              .filter((a) => /Turn (one|two)/.test(JSON.stringify(a))),
          ).toHaveLength(2),
        { timeout: 15_000 },
      );
      const key = paceKey({ conversation: activity.conversation.id });
      expect(wait.mock.calls.filter(([k]) => k === key)).toHaveLength(2);
    } finally {
      wait.mockRestore();
    }
  });

  it('retries 429 without Retry-After, 412, 502 and 504 itself, one call per attempt, and delivers once', async () => {
    const { item, activity } = await mentionAndReceive(h, standin);
    for (const status of [429, 412, 502, 504] as const) standin.failNext('sendToConversation', { status });
    const text = 'Answer after four failures.';
    await reply(item, text);

    await vi.waitFor(() => expect(posted(activity.conversation.id, text)).toHaveLength(1), { timeout: 10_000 });
    expect(attempts(text).map((t) => t.status)).toEqual([429, 412, 502, 504, 201]);
  });

  it('records 403 MessageWritesBlocked as failed for good and tells the agent in its inbox', async () => {
    const { item } = await mentionAndReceive(h, standin);
    standin.failNext('sendToConversation', { status: 403, code: 'MessageWritesBlocked' });
    const text = 'Answer into a chat that blocked the bot.';
    const sent = await reply(item, text);

    const failed = await vi.waitFor(
      async () => {
        const entry = (await h.server.app.store.outbox.list({ topic: TEAMS_POST, status: 'failed' })).find(
          (e) => e.payload.messageId === sent.message!.id,
        );
        expect(entry).toBeDefined();
        return entry!;
      },
      { timeout: 10_000 },
    );
    expect(failed.lastError).toContain('blocked');
    const notice = await vi.waitFor(
      async () => {
        const got = (await inbox(h)).find(
          (i) => i.sender.displayName === 'Switchboard' && i.message.body.includes(sent.message!.id),
        );
        expect(got).toBeDefined();
        return got!;
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(notice.message.body).toContain('blocked Switchboard in Teams');
    expect(attempts(text).map((t) => t.status)).toEqual([403]);
  });

  // Timed where the pacer lets each post go (a stamp taken on arrival at the in-process stand-in would add the
  // event loop's delays, which a loaded machine makes longer than the pacer's margin).
  it('paces a burst into one conversation within every window, in order', async () => {
    const { item, activity } = await mentionAndReceive(h, standin);
    const pacer = teamsRuntime(h.server.app.surfaceModules).pacer;
    const key = paceKey({ conversation: activity.conversation.id });
    const wait = pacer.wait.bind(pacer);
    const released: number[] = [];
    const spy = vi.spyOn(pacer, 'wait').mockImplementation(async (k) => {
      await wait(k);
      if (k === key) released.push(Date.now());
    });
    try {
      const texts = Array.from({ length: 9 }, (_, i) => `Burst answer ${i + 1}.`);
      for (const text of texts)
        await h.server.app.messaging.send({
          workspace: h.workspace,
          sender: h.reviewer,
          conversationId: item.conversation.id,
          body: text,
        });

      await vi.waitFor(
        () =>
          expect(
            standin
              .conversationActivities(activity.conversation.id)
              .filter((a) => JSON.stringify(a).includes('Burst answer')),
          ).toHaveLength(9),
        { timeout: 15_000 },
      );
      const calls = standin
        .delivered('sendToConversation')
        .filter((c) => JSON.stringify(c.activity).includes('Burst answer'));
      expect(calls.map((c) => texts.findIndex((t) => JSON.stringify(c.activity).includes(t)))).toEqual([
        0, 1, 2, 3, 4, 5, 6, 7, 8,
      ]);
      expect(released).toHaveLength(9);
      for (const { max, perMs } of LIMITS) {
        // Any `max + 1` consecutive posts span at least the window.
        for (let i = max; i < released.length; i += 1)
          expect(released[i]! - released[i - max]!).toBeGreaterThanOrEqual(perMs);
      }
    } finally {
      spy.mockRestore();
    }
  });
});
