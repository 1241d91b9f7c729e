// An agent at work in Slack: "is thinking…" and a streamed answer in the app's
// assistant threads (assistant.threads.setStatus, chat.startStream/append/stop),
// post-then-update under the agent's name and avatar in channel threads or
// where streaming is refused, a stream Slack ended completed by updates, and
// suggested prompts where a person starts talking to the app: a new assistant
// thread (assistant_view, titled too) or the opened DM (agent_view).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import { pgliteDb } from '../../support/db.ts';
import { dmChannelId, SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { appHomeOpened, eventCallback, nextEventTs } from '../../support/slack/payloads.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import { askInAssistantThread, mentionAndReceive, startHarness, type Harness } from '../../support/slack/harness.ts';

const USER = 'U0CAROL01';
const DM = dmChannelId(USER);

describe('agents at work in Slack', () => {
  let db: Database;
  let standin: SlackStandin;
  let h: Harness;

  beforeAll(async () => {
    [db, standin] = await Promise.all([pgliteDb.open(), startSlackStandin()]);
    standin.setUser(USER, { real_name: 'Carol Chen' });
    h = await startHarness({ database: db, standin, seed: true });
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  const stored = (id: string) =>
    vi.waitFor(async () => {
      const m = await h.server.app.store.messages.get(h.workspace.id, id);
      expect(m?.externalId).toBeTruthy();
      return m!;
    });

  it('shows "is thinking…" in an assistant thread, streams the answer there, and stores it once as the final message', async () => {
    const { app } = h.server;
    const { item, threadTs } = await askInAssistantThread(h, USER, 'summarise the incident');
    const shown = await app.live.setStatus(h.workspace, h.reviewer, item.conversation.id, 'is thinking…');
    expect(shown.platform).toBe(true);
    expect(standin.assistantThread(DM, threadTs)?.status).toBe('is thinking…');

    const started = await app.live.start({
      workspace: h.workspace,
      sender: h.reviewer,
      conversationId: item.conversation.id,
      surface: 'mcp',
      text: 'The incident ',
    });
    // The answer has begun: the status gives way to it.
    expect(standin.assistantThread(DM, threadTs)?.status).toBe('');
    await vi.waitFor(() => expect(standin.callsTo('chat.startStream')).toHaveLength(1));
    const start = standin.callsTo('chat.startStream')[0];
    expect(start.args).toMatchObject({ channel: DM, thread_ts: threadTs, markdown_text: 'The incident ' });
    const ts = (start.response as { ts: string }).ts;

    await app.live.append(h.workspace, h.reviewer, started.streamId, 'began at **09:12**');
    await vi.waitFor(() => expect(standin.message(DM, ts)?.text).toBe('The incident began at **09:12**'));
    const result = await app.live.finish(h.workspace, h.reviewer, started.streamId, ' and ended at 09:40.');
    expect(result.message?.id).toBe(started.streamId);
    expect(result.message?.body).toBe('The incident began at **09:12** and ended at 09:40.');

    const message = await stored(started.streamId);
    expect(message.externalId).toBe(ts);
    expect(message.permalink).toContain(`/archives/${DM}/p${ts.replace('.', '')}`);
    const stop = standin.callsTo('chat.stopStream');
    expect(stop.map((c) => c.args)).toEqual([
      expect.objectContaining({
        channel: DM,
        ts,
        metadata: expect.objectContaining({
          event_payload: expect.objectContaining({ switchboard_message_id: started.streamId }),
        }),
      }),
    ]);
    // The stored text, rendered as every post is, replaced the streamed one; nothing else was posted in the thread.
    await vi.waitFor(() =>
      expect(standin.message(DM, ts)).toMatchObject({ streaming: false, text: expect.stringContaining('*09:12*') }),
    );
    expect(standin.messages(DM).filter((m) => m.bot_id && m.thread_ts === threadTs)).toHaveLength(1);
    expect(standin.callsTo('chat.postMessage').filter((c) => c.args.thread_ts === threadTs)).toHaveLength(0);
  });

  it('sets a repeated status once, and clears it when the agent answers with send_message', async () => {
    const { app } = h.server;
    const { item, threadTs } = await askInAssistantThread(h, USER, 'is the build green?');
    await app.live.setStatus(h.workspace, h.reviewer, item.conversation.id, 'is checking CI…');
    // The same status again restarts its timeout without asking Slack again.
    expect((await app.live.setStatus(h.workspace, h.reviewer, item.conversation.id, 'is checking CI…')).platform).toBe(
      true,
    );
    await app.messaging.send({
      workspace: h.workspace,
      sender: h.reviewer,
      conversationId: item.conversation.id,
      body: 'Yes.',
    });
    await vi.waitFor(() => expect(standin.assistantThread(DM, threadTs)?.statuses).toEqual(['is checking CI…', '']));
  });

  it('falls back to one post kept up to date, at most once per interval, where Slack refuses streaming', async () => {
    const { app } = h.server;
    const { item, threadTs } = await askInAssistantThread(h, USER, 'list the owners');
    standin.failNext('chat.startStream', { error: 'method_not_supported' });
    const started = await app.live.start({
      workspace: h.workspace,
      sender: h.reviewer,
      conversationId: item.conversation.id,
      surface: 'mcp',
      text: 'Owners:',
    });
    const post = await vi.waitFor(() => {
      const p = standin.callsTo('chat.postMessage').find((c) => c.args.thread_ts === threadTs);
      expect(p?.status).toBe(200);
      return p!;
    });
    const ts = (post.response as { ts: string }).ts;
    for (const name of ['\n- ana', '\n- bo', '\n- cy', '\n- di'])
      await app.live.append(h.workspace, h.reviewer, started.streamId, name);
    await vi.waitFor(() => expect(standin.message(DM, ts)?.text).toContain('di'));
    const updates = standin.callsTo('chat.update').filter((c) => c.args.ts === ts);
    // Four appends in quick succession go out as fewer updates, spaced by at least the interval (1 s).
    expect(updates.length).toBeLessThan(4);
    const times = [post, ...updates].map((c) => c.at.getTime());
    for (let i = 1; i < times.length; i += 1) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(900);

    await app.live.finish(h.workspace, h.reviewer, started.streamId);
    const message = await stored(started.streamId);
    expect(message.externalId).toBe(ts);
    expect(standin.callsTo('chat.stopStream').filter((c) => c.args.ts === ts)).toHaveLength(0);
    expect(standin.messages(DM).filter((m) => m.bot_id && m.thread_ts === threadTs)).toHaveLength(1);
  });

  it('posts then updates in a channel thread, where Slack has no assistant status or streaming', async () => {
    const { app } = h.server;
    const { item, mention } = await mentionAndReceive(h, 'explain the outage');
    const shown = await app.live.setStatus(h.workspace, h.reviewer, item.conversation.id, 'is thinking…');
    expect(shown.platform).toBe(false);
    const streams = standin.callsTo('chat.startStream').length;
    const started = await app.live.start({
      workspace: h.workspace,
      sender: h.reviewer,
      conversationId: item.conversation.id,
      surface: 'mcp',
      text: 'Short version: ',
    });
    await app.live.append(h.workspace, h.reviewer, started.streamId, 'DNS.');
    await app.live.finish(h.workspace, h.reviewer, started.streamId);
    const message = await stored(started.streamId);
    const final = standin.message('C0GENERAL', message.externalId!);
    // Under the agent's name and avatar, which a Slack stream would not show.
    expect(final).toMatchObject({
      thread_ts: mention.ts,
      username: 'Reviewer',
      icons: { image_48: 'https://example.test/reviewer.png' },
    });
    await vi.waitFor(() =>
      expect(standin.message('C0GENERAL', message.externalId!)?.text).toContain('Short version: DNS.'),
    );
    expect(standin.callsTo('chat.startStream')).toHaveLength(streams);
    expect(
      standin
        .messages('C0GENERAL')
        .filter((m) => m.bot_id && m.thread_ts === mention.ts && String(m.text).includes('Short version')),
    ).toHaveLength(1);
  });

  it('completes a stream Slack ended by updating its message: text written after the end shows before it finishes', async () => {
    const { app } = h.server;
    const { item, threadTs } = await askInAssistantThread(h, USER, 'why is the queue slow?');
    const started = await app.live.start({
      workspace: h.workspace,
      sender: h.reviewer,
      conversationId: item.conversation.id,
      surface: 'mcp',
      text: 'Looking at the queue: ',
    });
    const start = await vi.waitFor(() => {
      const c = standin.callsTo('chat.startStream').find((x) => x.args.thread_ts === threadTs);
      expect(c?.status).toBe(200);
      return c!;
    });
    const ts = (start.response as { ts: string }).ts;
    // Slack ends the stream: nothing reached it for longer than it waits.
    standin.passTime(6 * 60_000);
    expect(standin.message(DM, ts)).toMatchObject({ streaming: false, stream_expired: true });

    await app.live.append(h.workspace, h.reviewer, started.streamId, 'one worker is stuck on a lock.');
    await vi.waitFor(() =>
      expect(standin.message(DM, ts)?.text).toBe('Looking at the queue: one worker is stuck on a lock.'),
    );
    expect(standin.message(DM, ts)?.stream_expired).toBeUndefined();
    const refusedAppend = standin
      .callsTo('chat.appendStream')
      .find((c) => c.args.ts === ts && (c.response as { error?: string }).error === 'message_not_in_streaming_state');
    expect(refusedAppend).toBeDefined();

    await app.live.append(h.workspace, h.reviewer, started.streamId, ' Restarting it.');
    await vi.waitFor(() => expect(standin.message(DM, ts)?.text).toContain('Restarting it.'));
    await app.live.finish(h.workspace, h.reviewer, started.streamId);
    const message = await stored(started.streamId);
    expect(message.externalId).toBe(ts);
    await vi.waitFor(() =>
      expect(standin.message(DM, ts)?.text).toBe('Looking at the queue: one worker is stuck on a lock. Restarting it.'),
    );
    expect(standin.messages(DM).filter((m) => m.bot_id && m.thread_ts === threadTs)).toHaveLength(1);
  });

  it('takes the live post down when the finished message is refused', async () => {
    const { app } = h.server;
    const { item, mention } = await mentionAndReceive(h, 'draft a reply');
    const started = await app.live.start({
      workspace: h.workspace,
      sender: h.reviewer,
      conversationId: item.conversation.id,
      surface: 'mcp',
      text: 'A reply I may not send',
    });
    const post = await vi.waitFor(() => {
      const p = standin
        .callsTo('chat.postMessage')
        .find((c) => c.args.thread_ts === mention.ts && String(c.args.text).includes('may not send'));
      expect(p?.status).toBe(200);
      return p!;
    });
    const ts = (post.response as { ts: string }).ts;
    await app.agents.join(SYSTEM, { agent: 'alice/reviewer', workspace: 'eng', send: false });
    try {
      await expect(app.live.finish(h.workspace, h.reviewer, started.streamId)).rejects.toThrow(/send permission/);
    } finally {
      await app.agents.join(SYSTEM, { agent: 'alice/reviewer', workspace: 'eng', send: true });
    }
    expect(standin.callsTo('chat.delete').some((c) => c.args.ts === ts && c.status === 200)).toBe(true);
    expect(standin.message('C0GENERAL', ts)).toBeUndefined();
    expect(await app.store.messages.get(h.workspace.id, started.streamId)).toBeNull();
  });

  it('titles a new assistant thread after the workspace and suggests prompts that reach its agents (assistant_view)', async () => {
    const threadTs = nextEventTs();
    const res = await h.post(
      eventCallback({
        type: 'assistant_thread_started',
        assistant_thread: {
          user_id: USER,
          context: { channel_id: 'C0GENERAL', team_id: SLACK_DEFAULTS.teamId, enterprise_id: null },
          channel_id: DM,
          thread_ts: threadTs,
        },
        event_ts: nextEventTs(),
      }),
    );
    expect(res.status).toBe(200);
    await vi.waitFor(() => expect(standin.assistantThread(DM, threadTs)?.prompts).toBeDefined());
    expect(standin.assistantThread(DM, threadTs)).toMatchObject({
      title: 'Switchboard · Eng',
      prompts: [{ title: 'Ask Reviewer', message: '@reviewer what can you help me with?' }],
    });
  });

  it('suggests the same prompts on the DM itself, with no thread, when a person opens it (agent_view)', async () => {
    const res = await h.post(eventCallback(appHomeOpened({ user: USER, channel: DM, tab: 'messages' })));
    expect(res.status).toBe(200);
    await vi.waitFor(() => expect(standin.assistantThread(DM)?.prompts).toBeDefined());
    expect(standin.assistantThread(DM)).toMatchObject({
      promptsTitle: 'Ask an agent',
      prompts: [{ title: 'Ask Reviewer', message: '@reviewer what can you help me with?' }],
    });
    // Slack drops a call naming a thread in agent_view; the DM has no title to set.
    const calls = standin.callsTo('assistant.threads.setSuggestedPrompts').filter((c) => c.args.channel_id === DM);
    expect(calls.filter((c) => !('thread_ts' in c.args))).toHaveLength(1);
    expect(standin.callsTo('assistant.threads.setTitle').filter((c) => !c.args.thread_ts)).toEqual([]);
  });
});
