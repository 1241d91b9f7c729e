// The live service on its own, against a fake surface port and fake timers:
// appends are gathered into at most one update per interval, a platform's own
// streaming gets deltas, a refusal of streaming falls back to post-then-update,
// a broken platform stops live updates without losing the message, a
// platform's stream is settled into a post before its limits or once the
// platform ended it, streams are kept in the store as they grow (and finished
// from it when their process stopped, never while a living process holds
// them), calls that reach another process are passed to the holder, and
// forgotten streams and statuses end by themselves.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeliveryError } from '../../../src/core/delivery/failure.ts';
import { STREAM_ENDED } from '../../../src/core/delivery/surface-outbound.ts';
import type { LiveDrafts, SavedDraft } from '../../../src/core/live/live-drafts.ts';
import { Pacer } from '../../../src/core/delivery/pacer.ts';
import type { LiveDraft, OutboundMessage, SurfaceOutbound } from '../../../src/core/delivery/surface-outbound.ts';
import { LiveService } from '../../../src/core/live/live-service.ts';
import type { MessagingService, SendInput } from '../../../src/core/messaging/messaging-service.ts';
import type { Conversation, Message } from '../../../src/core/messaging/message.ts';
import type { Agent, Workspace } from '../../../src/core/entities.ts';
import { SwitchboardError } from '../../../src/core/errors.ts';
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

/**
 * A surface port that records its calls; `live` adds the platform's own status and streaming, `limits` the time a
 * platform lets its streams run, and `endedAfter` ends a stream after that many appends (as the platform would).
 */
function fakePort(
  o: {
    live?: boolean;
    streamUnavailable?: boolean;
    failPost?: boolean;
    limits?: { ageMs?: number; idleMs?: number };
    endedAfter?: number;
  } = {},
) {
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
            if (o.endedAfter !== undefined && calls.filter((c) => c.op === 'append').length >= o.endedAfter)
              throw new DeliveryError({
                kind: 'permanent',
                code: STREAM_ENDED,
                reason: 'the platform ended the stream',
              });
            calls.push({ op: 'append', text: delta, id, sequence: d.sequence });
          },
          async settleStream(d: LiveDraft, id: string) {
            calls.push({ op: 'settle', text: d.text, id });
            return null;
          },
          ...(o.limits ? { streamLimits: o.limits } : {}),
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

/** The notifier of processes sharing one database: what is published on a topic reaches its subscribers. */
const notifier = {
  topics: new Map<string, Set<(payload: string) => void>>(),
  async publish(topic: string, payload: string) {
    for (const fn of this.topics.get(topic) ?? []) fn(payload);
  },
  async subscribe(topic: string, fn: (payload: string) => void) {
    const fns = this.topics.get(topic) ?? new Set();
    this.topics.set(topic, fns.add(fn));
    return async () => {
      fns.delete(fn);
    };
  },
};
const clock = { now: () => new Date() };
const silent = { warn() {} };
const OPTIONS = { updateIntervalMs: 1_000, statusTimeoutMs: 120_000, streamIdleMs: 120_000 };

/** Drafts kept in memory: what each stream last kept, and which were dropped. */
function fakeDrafts() {
  const kept = new Map<string, { draft: SavedDraft; dueAt: Date }>();
  const dropped: string[] = [];
  const drafts: LiveDrafts = {
    async keep(draft, dueAt) {
      kept.set(draft.id, { draft: structuredClone(draft), dueAt });
    },
    async drop(id) {
      kept.delete(id);
      dropped.push(id);
    },
    isOpen: async (id) => kept.has(id),
  };
  return { drafts, kept, dropped };
}

/** The reads a rescue makes: the workspace, the agent and the conversation exist; `stored` holds messages already stored. */
function fakeStore(stored = new Set<string>()) {
  return {
    workspaces: { get: async () => ws },
    agents: { get: async () => agent },
    messages: {
      getConversation: async () => conversation,
      get: async (_ws: string, id: string) => (stored.has(id) ? ({ id } as Message) : null),
    },
  } as never;
}

function setup(portOptions: Parameters<typeof fakePort>[0] = {}) {
  const { port, calls } = fakePort(portOptions);
  const { messaging, sent } = fakeMessaging();
  const { drafts, kept, dropped } = fakeDrafts();
  const live = new LiveService(messaging, notifier, clock, () => port, silent, OPTIONS, {
    drafts,
    store: fakeStore(),
  });
  return { live, calls, sent, kept, dropped, port };
}

/** A rescue, which first waits to hear whether a living process holds the stream (none here does). */
async function rescued(live: LiveService, draft: SavedDraft): Promise<void> {
  const done = live.rescue({ ...draft });
  done.catch(() => {});
  await vi.advanceTimersByTimeAsync(3_000);
  await done;
}

const start = (live: LiveService, text: string) =>
  live.start({ workspace: ws, sender: agent, conversationId: conversation.id, surface: 'mcp', text });

describe('live updates of a streamed message', () => {
  it('refuses at once a call about a stream the store keeps open nowhere, without waiting for another process', async () => {
    const { live } = setup();
    const nowhere = '00000000-0000-4000-8000-000000000000';
    await expect(live.append(ws, agent, nowhere, 'more')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(live.finish(ws, agent, nowhere)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

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
  it("settles a platform's stream into a post before its idle limit, and updates that post from then on", async () => {
    const { live, calls, sent } = setup({ live: true, limits: { idleMs: 30_000 } });
    const { streamId } = await start(live, 'Part one. ');
    await vi.advanceTimersByTimeAsync(29_000);
    expect(calls.map((c) => c.op)).toEqual(['start']);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(calls.at(-1)).toEqual({ op: 'settle', text: 'Part one. ', id: 's1' });
    // Long after (though within the time Switchboard waits for an append), the text goes on as updates of that post.
    await vi.advanceTimersByTimeAsync(80_000);
    await live.append(ws, agent, streamId, 'Part two.');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(calls.at(-1)).toEqual({ op: 'update', text: 'Part one. Part two.', id: 's1' });
    await live.finish(ws, agent, streamId);
    expect(sent[0]).toMatchObject({ body: 'Part one. Part two.', livePost: { kind: 'post', externalId: 's1' } });
  });

  it("settles a platform's stream before its age limit, however busy it is", async () => {
    const { live, calls } = setup({ live: true, limits: { ageMs: 10_000 } });
    const { streamId } = await start(live, 'a');
    for (let i = 0; i < 12; i += 1) {
      await live.append(ws, agent, streamId, 'b');
      await vi.advanceTimersByTimeAsync(1_000);
    }
    const settled = calls.findIndex((c) => c.op === 'settle');
    expect(settled).toBeGreaterThan(0);
    expect(calls.slice(settled + 1).every((c) => c.op === 'update')).toBe(true);
    expect(calls.at(-1)?.text).toBe(`a${'b'.repeat(12)}`);
  });

  it('settles a stream the platform ended with all its text, and carries on with updates', async () => {
    const { live, calls, sent } = setup({ live: true, endedAfter: 1 });
    const { streamId } = await start(live, 'a');
    for (const more of ['b', 'c', 'd']) {
      await vi.advanceTimersByTimeAsync(1_000);
      await live.append(ws, agent, streamId, more);
    }
    await vi.advanceTimersByTimeAsync(1_000);
    expect(calls).toEqual([
      { op: 'start', text: 'a', sequence: 0 },
      { op: 'append', text: 'b', id: 's1', sequence: 1 },
      { op: 'settle', text: 'abc', id: 's1' },
      { op: 'update', text: 'abcd', id: 's1' },
    ]);
    await live.finish(ws, agent, streamId);
    expect(sent[0]).toMatchObject({ body: 'abcd', livePost: { kind: 'post', externalId: 's1' } });
  });

  it('keeps a stream in the store as it grows, due after the rescue time, and forgets it once stored', async () => {
    const { live, kept, dropped } = setup({ live: true });
    const { streamId } = await start(live, 'a');
    await vi.advanceTimersByTimeAsync(0);
    expect(kept.get(streamId)?.draft).toMatchObject({
      id: streamId,
      workspaceId: ws.id,
      senderId: agent.id,
      conversationId: conversation.id,
      target: { conversationId: conversation.id },
      surface: 'mcp',
      text: 'a',
      post: { kind: 'stream', externalId: 's1' },
    });
    await live.append(ws, agent, streamId, 'b');
    await vi.advanceTimersByTimeAsync(1_000);
    const { draft, dueAt } = kept.get(streamId)!;
    expect(draft.text).toBe('ab');
    expect(dueAt.getTime()).toBe(Date.now() + OPTIONS.streamIdleMs + 60_000);
    await live.finish(ws, agent, streamId, 'c');
    expect(kept.has(streamId)).toBe(false);
    expect(dropped).toEqual([streamId]);
  });

  it('finishes a kept stream whose process stopped: its text is stored with its live post, or the post withdrawn when refused', async () => {
    const { port, calls } = fakePort();
    const { messaging, sent } = fakeMessaging();
    const stored = new Set<string>();
    const live = new LiveService(messaging, notifier, clock, () => port, silent, OPTIONS, {
      drafts: fakeDrafts().drafts,
      store: fakeStore(stored),
    });
    const draft = (id: string, text: string): SavedDraft => ({
      id,
      workspaceId: ws.id,
      senderId: agent.id,
      conversationId: conversation.id,
      target: { conversationId: conversation.id },
      surface: 'mcp',
      text,
      post: { kind: 'stream', externalId: `s-${id.slice(0, 4)}`, permalink: null },
    });
    const a = draft('0a7c2f3e-1111-4111-8111-111111111111', 'All that was written.');
    await rescued(live, a);
    expect(sent).toEqual([
      expect.objectContaining({
        id: a.id,
        body: 'All that was written.',
        livePost: a.post,
        conversationId: conversation.id,
      }),
    ]);

    // Stored already (its process stored it, then stopped): nothing more.
    stored.add(a.id);
    await rescued(live, a);
    expect(sent).toHaveLength(1);

    // Refused for good: the live post comes down; empty: nothing to store, the post comes down too.
    const b = draft('0b7c2f3e-2222-4222-8222-222222222222', 'Not allowed.');
    messaging.send = async () => {
      throw new SwitchboardError('NOT_PERMITTED', 'You lost the send permission in this workspace.');
    };
    await rescued(live, b);
    const c = draft('0c7c2f3e-3333-4333-8333-333333333333', '   ');
    await rescued(live, c);
    // Refused by every recipient: nothing stored, so the post comes down too.
    const d = draft('0d7c2f3e-4444-4444-8444-444444444444', 'Nobody takes it.');
    messaging.send = async () => ({ message: null, conversation, recipients: [] });
    await rescued(live, d);
    expect(calls.filter((x) => x.op === 'remove')).toEqual([
      { op: 'remove', id: b.post!.externalId },
      { op: 'remove', id: c.post!.externalId },
      { op: 'remove', id: d.post!.externalId },
    ]);
    await expect(live.rescue({ id: 'not a draft' })).rejects.toThrow(/malformed/);
  });

  it('passes a finish that reached another process to the one holding the stream, whose kept draft that process then leaves alone', async () => {
    // Two processes on one notifier and one store: `a` holds the stream, `b` is where the agent's calls land.
    const { port } = fakePort({ live: true });
    const { messaging, sent } = fakeMessaging();
    const { drafts, kept, dropped } = fakeDrafts();
    const stored = new Set<string>();
    messaging.onSent.push((m) => stored.add(m.id));
    const processes = [0, 1].map(
      () =>
        new LiveService(messaging, notifier, clock, () => port, silent, OPTIONS, { drafts, store: fakeStore(stored) }),
    );
    const [a, b] = processes as [LiveService, LiveService];
    const { streamId } = await start(a, 'Kept ');
    await b.append(ws, agent, streamId, 'as it grows.');
    await vi.advanceTimersByTimeAsync(1_000);
    const draft = kept.get(streamId)!.draft;
    expect(draft.text).toBe('Kept as it grows.');

    // Its draft comes due in `b` while `a` still holds it (its updates were late): `a` is left to store it.
    await expect(b.rescue({ ...draft })).rejects.toThrow(/still open in the process holding it/);
    expect(sent).toEqual([]);

    const result = await b.finish(ws, agent, streamId, ' Done.');
    expect(result.message?.id).toBe(streamId);
    expect(sent).toEqual([expect.objectContaining({ id: streamId, body: 'Kept as it grows. Done.' })]);
    expect(dropped).toEqual([streamId]);
    // A rescue of what was kept before, run anyway (the draft's entry was claimed before it was closed): stored once.
    await rescued(b, draft);
    expect(sent).toHaveLength(1);
  });
});
