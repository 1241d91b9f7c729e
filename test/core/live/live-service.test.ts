// The live service on its own, against a fake surface port and fake timers:
// appends are gathered into at most one update per interval, a platform's own
// streaming gets deltas, a refusal of streaming falls back to post-then-update,
// a broken platform stops live updates without losing the message, and
// forgotten streams and statuses end by themselves.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeliveryError } from '../../../src/core/delivery/failure.ts';
import { Pacer } from '../../../src/core/delivery/pacer.ts';
import type { LiveDraft, OutboundMessage, SurfaceOutbound } from '../../../src/core/delivery/surface-outbound.ts';
import { LiveService } from '../../../src/core/live/live-service.ts';
import type { MessagingService, SendInput } from '../../../src/core/messaging/messaging-service.ts';
import type { Conversation, Message } from '../../../src/core/messaging/message.ts';
import type { Agent, Workspace } from '../../../src/core/entities.ts';
import { SLACK_POST } from '../../../src/surfaces/slack/topics.ts';

const ws = { id: 'ws-1' } as Workspace;
const agent = { id: 'agent-1', name: 'writer', ownerHandle: 'alice', displayName: 'Writer', kind: 'agent' } as Agent;
const conversation: Conversation = {
  id: 'conv-1',
  workspaceId: ws.id,
  kind: 'external',
  key: 'slack:T:C:1.1',
  title: 'thread',
  surface: 'slack',
  externalRef: { team: 'T', channel: 'C', thread_ts: '1.1' },
  permalink: null,
  parentId: null,
  createdAt: new Date(),
};

type Call = { op: string; text?: string; id?: string; sequence?: number };

/** A surface port that records its calls; `live` adds the platform's own status and streaming. */
function fakePort(o: { live?: boolean; streamUnavailable?: boolean; failPost?: boolean } = {}) {
  const calls: Call[] = [];
  let n = 0;
  const port: SurfaceOutbound = {
    surface: 'slack',
    label: 'Slack',
    postTopic: SLACK_POST,
    pacer: new Pacer([{ max: 100, perMs: 1_000 }]),
    paceKey: () => 'T:C',
    threadAddress: (ref) => ref,
    async post(m: OutboundMessage) {
      if (o.failPost)
        throw new DeliveryError({ kind: 'permanent', code: 'not_in_channel', reason: 'the app is not in the channel' });
      calls.push({ op: 'post', text: m.message.body, id: m.message.id });
      return { externalId: `p${++n}`, permalink: null };
    },
    async findPost() {
      return null;
    },
    async update(m: OutboundMessage, id: string) {
      calls.push({ op: 'update', text: m.message.body, id });
    },
    async remove(_c, id) {
      calls.push({ op: 'remove', id });
    },
    ...(o.live
      ? {
          async setStatus(_c: Conversation, _s: Agent, text: string | null) {
            calls.push({ op: 'status', text: text ?? '' });
            return true;
          },
          async startStream(d: LiveDraft) {
            if (o.streamUnavailable) return null;
            calls.push({ op: 'start', text: d.text, sequence: d.sequence });
            return { externalId: `s${++n}`, permalink: null };
          },
          async appendStream(d: LiveDraft, id: string, delta: string) {
            calls.push({ op: 'append', text: delta, id, sequence: d.sequence });
          },
        }
      : {}),
  };
  return { port, calls };
}

/** The parts of MessagingService the live service uses: checks pass, `send` records what would be stored. */
function fakeMessaging() {
  const sent: SendInput[] = [];
  const messaging = {
    onSent: [] as Array<(m: Message) => void>,
    async preview() {
      return { conversation, recipients: [], recheck: async () => {} };
    },
    async send(input: SendInput) {
      sent.push(input);
      const message = {
        id: input.id,
        body: input.body,
        senderId: agent.id,
        conversationId: conversation.id,
      } as Message;
      for (const fn of messaging.onSent) fn(message);
      return { message, conversation, recipients: [] };
    },
  };
  return { messaging: messaging as unknown as MessagingService, sent };
}

const notifier = {
  published: [] as string[],
  async publish(_t: string, p: string) {
    this.published.push(p);
  },
  async subscribe() {
    return async () => {};
  },
};
const clock = { now: () => new Date() };
const silent = { warn() {} };
const OPTIONS = { updateIntervalMs: 1_000, statusTimeoutMs: 120_000, streamIdleMs: 120_000 };

function setup(portOptions: Parameters<typeof fakePort>[0] = {}) {
  const { port, calls } = fakePort(portOptions);
  const { messaging, sent } = fakeMessaging();
  const live = new LiveService(messaging, notifier, clock, () => port, silent, OPTIONS);
  return { live, calls, sent };
}

describe('live updates of a streamed message', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: new Date('2030-01-01T00:00:00Z') });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('gathers appends into at most one update per interval, each with the whole text so far', async () => {
    const { live, calls } = setup();
    const { streamId } = await live.start({
      workspace: ws,
      sender: agent,
      conversationId: conversation.id,
      surface: 'mcp',
      text: 'a',
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toEqual([{ op: 'post', text: 'a', id: streamId }]);
    for (const word of ['b', 'c', 'd']) {
      await live.append(ws, agent, streamId, word);
      await vi.advanceTimersByTimeAsync(200);
    }
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(400);
    expect(calls.slice(1)).toEqual([{ op: 'update', text: 'abcd', id: 'p1' }]);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(calls).toHaveLength(2);
  });

  it('sends only what is new to a platform that streams, with rising sequence numbers', async () => {
    const { live, calls, sent } = setup({ live: true });
    const { streamId } = await live.start({
      workspace: ws,
      sender: agent,
      conversationId: conversation.id,
      surface: 'mcp',
      text: 'Hello',
    });
    await vi.advanceTimersByTimeAsync(0);
    await live.append(ws, agent, streamId, ', world');
    await vi.advanceTimersByTimeAsync(1_000);
    await live.append(ws, agent, streamId, '!');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(calls.filter((c) => c.op !== 'status')).toEqual([
      { op: 'start', text: 'Hello', sequence: 0 },
      { op: 'append', text: ', world', id: 's1', sequence: 1 },
      { op: 'append', text: '!', id: 's1', sequence: 2 },
    ]);
    await live.finish(ws, agent, streamId);
    expect(sent[0]).toMatchObject({
      id: streamId,
      body: 'Hello, world!',
      livePost: { kind: 'stream', externalId: 's1' },
    });
  });

  it('posts and updates when the platform says streaming is unavailable in the conversation', async () => {
    const { live, calls, sent } = setup({ live: true, streamUnavailable: true });
    const { streamId } = await live.start({
      workspace: ws,
      sender: agent,
      conversationId: conversation.id,
      surface: 'mcp',
      text: 'x',
    });
    await vi.advanceTimersByTimeAsync(0);
    await live.finish(ws, agent, streamId, 'y');
    expect(calls.filter((c) => c.op === 'post')).toEqual([{ op: 'post', text: 'x', id: streamId }]);
    expect(sent[0]).toMatchObject({ body: 'xy', livePost: { kind: 'post', externalId: 'p1' } });
  });

  it('stops live updates after a permanent refusal, and still stores the message for the post job to post', async () => {
    const { live, calls, sent } = setup({ failPost: true });
    const { streamId } = await live.start({
      workspace: ws,
      sender: agent,
      conversationId: conversation.id,
      surface: 'mcp',
      text: 'x',
    });
    await vi.advanceTimersByTimeAsync(0);
    await live.append(ws, agent, streamId, 'y');
    await vi.advanceTimersByTimeAsync(3_000);
    expect(calls).toEqual([]);
    await live.finish(ws, agent, streamId);
    expect(sent[0]).toMatchObject({ id: streamId, body: 'xy' });
    expect(sent[0]!.livePost).toBeUndefined();
  });

  it('carries a skipped update (the platform was unreachable) in the next one, an interval later', async () => {
    const { port, calls } = fakePort();
    const post = port.post;
    let fail = true;
    port.post = async (m) => {
      if (fail) {
        fail = false;
        throw new DeliveryError({ kind: 'transient', reason: 'Slack could not be reached' });
      }
      return post(m);
    };
    const { messaging } = fakeMessaging();
    const live = new LiveService(messaging, notifier, clock, () => port, silent, OPTIONS);
    const { streamId } = await live.start({
      workspace: ws,
      sender: agent,
      conversationId: conversation.id,
      surface: 'mcp',
      text: 'first words',
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(calls).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toEqual([{ op: 'post', text: 'first words', id: streamId }]);
  });

  it('tries a status once more after a dropped connection, and gives up on a refusal', async () => {
    const { port, calls } = fakePort({ live: true });
    const failures = [
      new DeliveryError({ kind: 'transient', reason: 'Slack could not be reached' }),
      new DeliveryError({ kind: 'permanent', code: 'not_allowed', reason: 'no' }),
    ];
    const setStatus = port.setStatus!;
    port.setStatus = async (c, s, t) => {
      const f = failures.shift();
      if (f) throw f;
      return setStatus(c, s, t);
    };
    const { messaging } = fakeMessaging();
    const live = new LiveService(messaging, notifier, clock, () => port, silent, OPTIONS);
    expect((await live.setStatus(ws, agent, conversation.id, 'is thinking…')).platform).toBe(false);
    expect((await live.setStatus(ws, agent, conversation.id, null)).platform).toBe(true);
    expect(calls.filter((c) => c.op === 'status')).toEqual([{ op: 'status', text: '' }]);
  });

  it('finishes a stream left alone with what it has, and clears a status nobody cleared', async () => {
    const { live, calls, sent } = setup({ live: true });
    await live.setStatus(ws, agent, conversation.id, 'is thinking…');
    const { streamId } = await live.start({
      workspace: ws,
      sender: agent,
      conversationId: conversation.id,
      surface: 'mcp',
      text: 'partial',
    });
    await vi.advanceTimersByTimeAsync(OPTIONS.streamIdleMs + 1);
    expect(sent).toEqual([expect.objectContaining({ id: streamId, body: 'partial' })]);
    await expect(live.append(ws, agent, streamId, 'more')).rejects.toThrow(
      /already ended \(finished by Switchboard after 120 s without an append\)/,
    );

    await live.setStatus(ws, agent, conversation.id, 'is checking…');
    await vi.advanceTimersByTimeAsync(OPTIONS.statusTimeoutMs + 1);
    expect(calls.filter((c) => c.op === 'status').map((c) => c.text)).toEqual(['is thinking…', '', 'is checking…', '']);
  });
});
