// A streamed answer in Slack outlives what Slack allows a stream: it is
// settled into a plain post before Slack's idle limit (here shortened), so
// text written long after still shows, and a stream whose process stopped
// without finishing it is finished from the store by another process.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { DEFAULT_LIVE_OPTIONS, LiveService } from '../../../src/core/live/live-service.ts';
import { outboxDrafts } from '../../../src/core/live/live-drafts.ts';
import { pgliteDb } from '../../support/db.ts';
import { dmChannelId } from '../../support/slack/defaults.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import { askInAssistantThread, startHarness, type Harness } from '../../support/slack/harness.ts';

const USER = 'U0DAVE001';
const DM = dmChannelId(USER);
/** How long Switchboard lets a stream idle before settling it, shortened from minutes. */
const SETTLE_MS = 400;

describe("streamed answers past Slack's limits", () => {
  let db: Database;
  let standin: SlackStandin;
  let h: Harness;

  beforeAll(async () => {
    [db, standin] = await Promise.all([pgliteDb.open(), startSlackStandin()]);
    standin.setUser(USER, { real_name: 'Dave Diaz' });
    h = await startHarness({ database: db, standin, seed: true, slack: { streamSettleMs: SETTLE_MS } });
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  /** The ts of the stream Slack started in the thread. */
  const streamTs = (threadTs: string) =>
    vi.waitFor(() => {
      const c = standin.callsTo('chat.startStream').find((x) => x.args.thread_ts === threadTs);
      expect(c?.status).toBe(200);
      return (c!.response as { ts: string }).ts;
    });

  const stored = (id: string) =>
    vi.waitFor(
      async () => {
        const m = await h.server.app.store.messages.get(h.workspace.id, id);
        expect(m?.externalId).toBeTruthy();
        return m!;
      },
      { timeout: 10_000 },
    );

  const refusedAsEnded = () =>
    standin.calls.filter(
      (c) => (c.response as { error?: string } | undefined)?.error === 'message_not_in_streaming_state',
    );

  it("settles an idle stream before Slack's limit: text written long after still shows, and the message ends whole", async () => {
    const { app } = h.server;
    const { item, threadTs } = await askInAssistantThread(h, USER, 'plan the migration');
    const started = await app.live.start({
      workspace: h.workspace,
      sender: h.reviewer,
      conversationId: item.conversation.id,
      surface: 'mcp',
      text: 'Step one: back up. ',
    });
    const ts = await streamTs(threadTs);
    // Idle past the settle time: stopped while Slack still streams it, its text put in as a post.
    await vi.waitFor(() => expect(standin.callsTo('chat.stopStream').some((c) => c.args.ts === ts)).toBe(true));
    await vi.waitFor(() =>
      expect(standin.message(DM, ts)).toMatchObject({ streaming: false, text: 'Step one: back up.' }),
    );

    // Far past Slack's own idle limit, the agent writes on.
    standin.passTime(10 * 60_000);
    await app.live.append(h.workspace, h.reviewer, started.streamId, 'Step two: migrate.');
    await vi.waitFor(() => expect(standin.message(DM, ts)?.text).toContain('Step two: migrate.'));
    await app.live.finish(h.workspace, h.reviewer, started.streamId, ' Step three: check.');

    const message = await stored(started.streamId);
    expect(message).toMatchObject({
      externalId: ts,
      body: 'Step one: back up. Step two: migrate. Step three: check.',
    });
    await vi.waitFor(() =>
      expect(standin.message(DM, ts)?.text).toBe('Step one: back up. Step two: migrate. Step three: check.'),
    );
    expect(standin.message(DM, ts)?.stream_expired).toBeUndefined();
    expect(refusedAsEnded()).toEqual([]);
    expect(standin.messages(DM).filter((m) => m.bot_id && m.thread_ts === threadTs)).toHaveLength(1);
  });

  it('finishes from the store a stream whose process stopped without finishing it', async () => {
    const { app } = h.server;
    const { item, threadTs } = await askInAssistantThread(h, USER, 'what changed in the release?');
    // The process the agent streamed through: it keeps the stream in the store, then stops (it is simply left here,
    // never finishing, never closing, hearing nothing, as a stopped process); the server's own process finishes the
    // stream once the kept draft is due and no process answers for it.
    const deaf = {
      publish: (topic: string, payload: string) => app.notifier.publish(topic, payload),
      subscribe: async () => async () => {},
    };
    const gone = new LiveService(
      app.messaging,
      deaf,
      app.clock,
      (s) => app.outbound.get(s as 'slack') ?? null,
      { warn() {} },
      { ...DEFAULT_LIVE_OPTIONS, updateIntervalMs: 50, streamIdleMs: 3_600_000, rescueAfterMs: 1_000 },
      { drafts: outboxDrafts(app.store.outbox), store: app.store },
    );
    const started = await gone.start({
      workspace: h.workspace,
      sender: h.reviewer,
      conversationId: item.conversation.id,
      surface: 'mcp',
      text: 'The release ',
    });
    const ts = await streamTs(threadTs);
    await gone.append(h.workspace, h.reviewer, started.streamId, 'moves billing to the new queue.');
    await vi.waitFor(() => expect(standin.message(DM, ts)?.text).toBe('The release moves billing to the new queue.'));

    const message = await stored(started.streamId);
    expect(message).toMatchObject({ body: 'The release moves billing to the new queue.', externalId: ts });
    // Its live post is completed as every stream's is: stopped, its stored text put in.
    await vi.waitFor(() =>
      expect(standin.message(DM, ts)).toMatchObject({
        streaming: false,
        text: 'The release moves billing to the new queue.',
      }),
    );
    expect(standin.messages(DM).filter((m) => m.bot_id && m.thread_ts === threadTs)).toHaveLength(1);
    const rescue = await app.store.outbox.get(started.streamId);
    expect(rescue).toMatchObject({ topic: 'live.rescue', status: 'done' });
  });
});
