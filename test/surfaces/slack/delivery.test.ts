// Agents' answers reach Slack through the outbox and the job queue: once,
// through rate limits, outages and a restart, and a refusal that retrying
// cannot fix is recorded and told to the agent.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import type { InboxItem } from '../../../src/core/messaging/message.ts';
import { slackOutbound } from '../../../src/surfaces/slack/outbound.ts';
import { slackRuntime } from '../../../src/app-surfaces.ts';
import { deliveryDeps } from '../../../src/app-delivery.ts';
import { postHandler } from '../../../src/core/delivery/post-delivery.ts';
import { postgresDb, pgliteDb, type TestDatabase } from '../../support/db.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import { inbox, mentionAndReceive, startHarness, type Harness } from '../../support/slack/harness.ts';
import { serviceUrl } from '../../support/services.ts';
import { SLACK_POST } from '../../../src/surfaces/slack/topics.ts';

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

describe.each(setups)('delivering answers to Slack ($name)', ({ db: kind, redisUrl }) => {
  let db: Database;
  let standin: SlackStandin;
  let h: Harness;

  const reply = (item: InboxItem, body: string) =>
    h.server.app.messaging.send({
      workspace: h.workspace,
      sender: h.reviewer,
      conversationId: item.conversation.id,
      body,
    });
  const posted = (text: string) => standin.messages('C0GENERAL').filter((m) => m.text === text);
  const attempts = (text: string) => standin.callsTo('chat.postMessage').filter((c) => c.args.text === text);
  const waitPosted = (text: string) => vi.waitFor(() => expect(posted(text)).toHaveLength(1), { timeout: 10_000 });

  beforeAll(async () => {
    [db, standin] = await Promise.all([kind.open(), startSlackStandin()]);
    standin.setUser('U0CAROL01', { real_name: 'Carol Chen' });
    h = await startHarness({ database: db, standin, seed: true, redisUrl });
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  it('waits out a 429 for its Retry-After, then posts exactly once and records the permalink', async () => {
    const { item, mention } = await mentionAndReceive(h);
    standin.failNext('chat.postMessage', { status: 429, retryAfter: 1 });
    const text = 'Answer after a rate limit.';
    const sent = await reply(item, text);
    await waitPosted(text);
    const tries = attempts(text);
    expect(tries.map((t) => t.status)).toEqual([429, 200]);
    expect(tries[1].at.getTime() - tries[0].at.getTime()).toBeGreaterThanOrEqual(950);
    expect(posted(text)[0]).toMatchObject({ thread_ts: mention.ts, username: 'Reviewer' });
    const stored = await vi.waitFor(
      async () => {
        const m = await h.server.app.store.messages.get(h.workspace.id, sent.message!.id);
        expect(m?.externalId).toBe(posted(text)[0].ts);
        return m!;
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(stored.permalink).toContain(`/archives/C0GENERAL/p${posted(text)[0].ts.replace('.', '')}`);
  });

  it('retries an outage and a dropped connection, then posts once', async () => {
    const { item } = await mentionAndReceive(h);
    standin.failNext('chat.postMessage', { status: 503 });
    standin.failNext('chat.postMessage', { drop: true });
    const text = 'Answer after an outage.';
    const lookups = standin.callsTo('conversations.replies').length;
    await reply(item, text);
    await waitPosted(text);
    expect(attempts(text).map((t) => t.status)).toEqual([503, 0, 200]);
    // Before posting again it looked for a post of the earlier attempts in the thread, and found none.
    expect(standin.callsTo('conversations.replies').length).toBeGreaterThan(lookups);
  });

  it('adopts a post Slack made when its answer was lost, instead of posting again', async () => {
    const { item, mention } = await mentionAndReceive(h);
    standin.failNext('chat.postMessage', { dropAfterHandling: true });
    const text = 'Answer whose acknowledgement was lost.';
    const sent = await reply(item, text);
    const stored = await vi.waitFor(
      async () => {
        const m = await h.server.app.store.messages.get(h.workspace.id, sent.message!.id);
        expect(m?.externalId).toBeTruthy();
        return m!;
      },
      { timeout: 10_000 },
    );
    expect(posted(text)).toHaveLength(1);
    expect(attempts(text)).toHaveLength(1);
    expect(stored.externalId).toBe(posted(text)[0].ts);
    expect(posted(text)[0]).toMatchObject({
      thread_ts: mention.ts,
      metadata: { event_type: 'switchboard_message', event_payload: { switchboard_message_id: sent.message!.id } },
    });
    const lookup = standin.callsTo('conversations.replies').at(-1)!;
    expect(lookup.args).toMatchObject({ channel: 'C0GENERAL', ts: mention.ts });
    expect(String(lookup.args.include_all_metadata)).toBe('true');
  });

  it('updates and removes a post through the same outbound port', async () => {
    const { item } = await mentionAndReceive(h);
    const text = 'Answer to be corrected.';
    const sent = await reply(item, text);
    await waitPosted(text);
    const { ts } = posted(text)[0];
    const app = h.server.app;
    const port = slackOutbound(slackRuntime(app));
    const message = (await app.store.messages.get(h.workspace.id, sent.message!.id))!;
    const conversation = (await app.store.messages.getConversation(h.workspace.id, message.conversationId))!;
    await port.update({ message: { ...message, body: 'Answer, corrected.' }, sender: h.reviewer, conversation }, ts);
    expect(standin.message('C0GENERAL', ts)?.text).toBe('Answer, corrected.');
    await port.remove(conversation, ts);
    expect(standin.message('C0GENERAL', ts)).toBeUndefined();
    // Removing it again is Slack's message_not_found, a refusal retrying cannot fix.
    await expect(port.remove(conversation, ts)).rejects.toMatchObject({
      failure: { kind: 'permanent', code: 'message_not_found' },
    });
  });

  it('posts once when the process dies between Slack accepting the post and recording it', async () => {
    const { item } = await mentionAndReceive(h);
    await h.server.app.queue.stop(); // this process writes to the outbox; the "dead" one below makes the attempt
    const text = 'Answer that outlives a crash mid-post.';
    const sent = await reply(item, text);
    const [entry] = (await h.server.app.store.outbox.claimDue(50, new Date(), 1_500)).filter(
      (e) => e.payload.messageId === sent.message!.id,
    );
    expect(entry).toBeDefined();
    // The dead process's attempt: Slack stores the post, the answer never arrives, nothing is recorded in the outbox.
    standin.failNext('chat.postMessage', { dropAfterHandling: true });
    const handler = postHandler(slackOutbound(slackRuntime(h.server.app)), deliveryDeps(h.server.app));
    await expect(handler(entry.payload, { attempt: entry.attempts, entryId: entry.id })).rejects.toThrow();
    expect(posted(text)).toHaveLength(1);
    await h.stop();
    // A fresh process on the same database takes the entry once the dead one's lease runs out.
    h = await startHarness({ database: db, standin, redisUrl });
    const stored = await vi.waitFor(
      async () => {
        const m = await h.server.app.store.messages.get(h.workspace.id, sent.message!.id);
        expect(m?.externalId).toBeTruthy();
        return m!;
      },
      { timeout: 15_000 },
    );
    expect(stored.externalId).toBe(posted(text)[0].ts);
    expect(posted(text)).toHaveLength(1);
    expect(attempts(text)).toHaveLength(1);
    await vi.waitFor(
      async () => expect(await h.server.app.store.outbox.get(entry.id)).toMatchObject({ status: 'done', attempts: 2 }),
      { timeout: 10_000 },
    );
  });

  it('records a refusal retrying cannot fix and tells the agent in its inbox', async () => {
    const { item } = await mentionAndReceive(h);
    standin.failNext('chat.postMessage', { error: 'not_in_channel' });
    const text = 'Answer into a channel the app left.';
    const sent = await reply(item, text);
    const failed = await vi.waitFor(
      async () => {
        const entries = await h.server.app.store.outbox.list({ topic: SLACK_POST, status: 'failed' });
        const entry = entries.find((e) => e.payload.messageId === sent.message!.id);
        expect(entry).toBeDefined();
        return entry!;
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(failed.lastError).toContain('not_in_channel');
    const notices = await vi.waitFor(
      async () => {
        const got = (await inbox(h)).filter((i) => i.sender.displayName === 'Switchboard');
        expect(got).toHaveLength(1);
        return got;
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(notices[0].message.body).toContain(sent.message!.id);
    expect(notices[0].message.body).toContain('not a member of that channel');
    expect(attempts(text)).toHaveLength(1);
    expect(posted(text)).toHaveLength(0);
  });

  it('delivers once after a restart between the outbox write and the post', async () => {
    const { item } = await mentionAndReceive(h);
    await h.server.app.queue.stop(); // from here this process writes to the outbox but delivers nothing
    const text = 'Answer that survives a restart.';
    await reply(item, text);
    expect(attempts(text)).toHaveLength(0);
    await h.stop();
    h = await startHarness({ database: db, standin, redisUrl });
    await waitPosted(text);
    expect(attempts(text)).toHaveLength(1);
  });
});
