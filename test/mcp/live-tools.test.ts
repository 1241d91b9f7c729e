import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/app.ts';
import { SYSTEM } from '../../src/core/actor.ts';
import { LIVE_PAYLOAD, LiveService, type LiveEvent } from '../../src/core/live/live-service.ts';
import { conversationTopic } from '../../src/core/messaging/messaging-service.ts';
import { usageMonth } from '../../src/core/organizations/plans.ts';
import { ERROR_META_KEY } from '../../src/mcp/errors.ts';
import { chatOf } from '../../src/surfaces/web/index.ts';
import { appPerFile, connectInProcess, makeWorld, silent, testApp, textOf, type World } from '../support/world.ts';

type Connected = Awaited<ReturnType<typeof connectInProcess>>;

/**
 * A live post is updated at most once a second in production (`updateIntervalMs`); waiting that out cost about a
 * second per update here. The pacing itself is tested in test/core/live/live-service.test.ts; these tests only
 * need the updates to go out, in order.
 */
const quickUpdates = { live: { updateIntervalMs: 50 } };

let app: App;
appPerFile((a) => {
  app = a;
}, quickUpdates);

/** Every live event published on a conversation's topic, as the web chat hears them. */
async function liveEvents(conversationId: string) {
  const events: LiveEvent[] = [];
  const stop = await app.notifier.subscribe(conversationTopic(conversationId), (p) => {
    if (p.startsWith(LIVE_PAYLOAD)) events.push(JSON.parse(p.slice(LIVE_PAYLOAD.length)) as LiveEvent);
  });
  return { events, stop };
}

type Out = Record<string, any>;

describe('set_status and streamed messages over MCP (SDK client in-process)', () => {
  it('streams a message that readers see growing, and stores it once under the stream id when finished', async () => {
    const w = await makeWorld(app);
    const a = await connectInProcess(app, w.builder.agent, w.ws.slug);
    const b = await connectInProcess(app, w.reviewer.agent, w.ws.slug);
    const started = await a.call('start_message', { to: 'reviewer', text: 'Looking at ' });
    expect(started.isError, textOf(started)).toBeFalsy();
    const s = started.structuredContent as Out;
    expect(s.recipients).toEqual([{ to: 'reviewer', status: 'delivered' }]);
    const live = await liveEvents(s.conversation_id);

    const appended = await a.call('append_message', { stream_id: s.stream_id, text: 'the pull request: ' });
    expect(appended.structuredContent).toEqual({
      stream_id: s.stream_id,
      length: 'Looking at the pull request: '.length,
    });
    await vi.waitFor(() =>
      expect(live.events.some((e) => e.stream?.text === 'Looking at the pull request: ')).toBe(true),
    );
    // Nothing is in the reader's inbox until the message is finished.
    expect((await b.call('check_inbox')).structuredContent).toMatchObject({ messages: [] });

    const finished = await a.call('finish_message', { stream_id: s.stream_id, text: 'looks good.' });
    expect(finished.isError, textOf(finished)).toBeFalsy();
    expect(finished.structuredContent).toMatchObject({ message_id: s.stream_id, conversation_id: s.conversation_id });
    const inbox = (await b.call('check_inbox')).structuredContent as Out;
    expect(inbox.messages.map((m: Out) => [m.id, m.body])).toEqual([
      [s.stream_id, 'Looking at the pull request: looks good.'],
    ]);
    await vi.waitFor(() => expect(live.events.at(-1)?.stream).toMatchObject({ id: s.stream_id, done: true }));
    expect(live.events.every((e) => e.agent === w.builder.name && e.display_name === 'Builder')).toBe(true);

    const late = await a.call('append_message', { stream_id: s.stream_id, text: 'more' });
    expect(late.isError).toBe(true);
    expect(textOf(late)).toMatch(/already ended \(finished\); start a new one with start_message/);
    await live.stop();
    await a.close();
    await b.close();
  });

  it("refuses a stream to someone the agent may not message, and another agent's stream, saying what to do instead", async () => {
    const w = await makeWorld(app);
    await app.agents.join(SYSTEM, { agent: w.builder.name, workspace: w.ws.slug, canMessage: [w.bob] });
    const a = await connectInProcess(app, w.builder.agent, w.ws.slug);
    const refused = await a.call('start_message', { to: 'reviewer', text: 'hi' });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/Nobody would receive this message .*reviewer/);

    const unknown = await a.call('append_message', { stream_id: '00000000-0000-4000-8000-000000000000', text: 'x' });
    expect(textOf(unknown)).toMatch(/no open streamed message .* use the stream_id start_message returned/);
    const empty = await a.call('append_message', { stream_id: 'x', text: '' });
    expect(empty.isError).toBe(true);
    expect(textOf(empty)).toMatch(/text is empty; append some words, or call finish_message/);
    await a.close();
  });

  it('does not let another agent append to or finish a stream', async () => {
    const w = await makeWorld(app);
    const a = await connectInProcess(app, w.builder.agent, w.ws.slug);
    const b = await connectInProcess(app, w.reviewer.agent, w.ws.slug);
    const s = (await a.call('start_message', { to: 'reviewer', text: 'mine' })).structuredContent as Out;
    const hijack = await b.call('finish_message', { stream_id: s.stream_id, text: ' and mine' });
    expect(hijack.isError).toBe(true);
    expect(textOf(hijack)).toMatch(/no open streamed message/);
    const done = await a.call('finish_message', { stream_id: s.stream_id });
    expect((done.structuredContent as Out).message_id).toBe(s.stream_id);
    await a.close();
    await b.close();
  });

  it('shows a status in a conversation the agent is part of, and clears it when the agent answers there', async () => {
    const w = await makeWorld(app);
    const a = await connectInProcess(app, w.builder.agent, w.ws.slug);
    const b = await connectInProcess(app, w.reviewer.agent, w.ws.slug);
    const first = (await b.call('send_message', { to: 'builder', body: 'Can you check the build?' }))
      .structuredContent as Out;
    const live = await liveEvents(first.conversation_id);

    const set = await a.call('set_status', { conversation: first.conversation_id, text: 'is reading the build log…' });
    expect(set.isError, textOf(set)).toBeFalsy();
    expect(set.structuredContent).toEqual({
      conversation_id: first.conversation_id,
      status: 'is reading the build log…',
      shown_on_platform: false,
    });
    await vi.waitFor(() =>
      expect(live.events.at(-1)).toMatchObject({ agent_id: w.builder.agent.id, status: 'is reading the build log…' }),
    );

    await a.call('send_message', { conversation: first.conversation_id, body: 'It is green now.' });
    await vi.waitFor(() =>
      expect(live.events.at(-1)).toMatchObject({ agent_id: w.builder.agent.id, status: null, stream: null }),
    );

    const stranger = await makeWorld(app);
    const c = await connectInProcess(app, stranger.builder.agent, stranger.ws.slug);
    const elsewhere = await c.call('set_status', { conversation: first.conversation_id, text: 'is snooping' });
    expect(elsewhere.isError).toBe(true);
    expect(textOf(elsewhere)).toMatch(/no conversation .* use the conversation id of a message you received/);
    const long = await a.call('set_status', { conversation: first.conversation_id, text: 'x'.repeat(151) });
    expect(textOf(long)).toMatch(/at most 150 characters; keep it short/);
    await live.stop();
    await Promise.all([a.close(), b.close(), c.close()]);
  });

  it('clears the status an agent showed when its session ends', async () => {
    const w = await makeWorld(app);
    const a = await connectInProcess(app, w.builder.agent, w.ws.slug);
    const b = await connectInProcess(app, w.reviewer.agent, w.ws.slug);
    const first = (await b.call('send_message', { to: 'builder', body: 'Any news?' })).structuredContent as Out;
    const live = await liveEvents(first.conversation_id);
    await a.call('set_status', { conversation: first.conversation_id, text: 'is looking…' });
    await vi.waitFor(() => expect(live.events.at(-1)).toMatchObject({ status: 'is looking…' }));
    await a.close();
    await vi.waitFor(() => expect(live.events.at(-1)).toMatchObject({ agent_id: w.builder.agent.id, status: null }));
    await live.stop();
    await b.close();
  });

  it('refuses to store a stream whose sender lost the send permission meanwhile, and stores nothing', async () => {
    const w = await makeWorld(app);
    const a = await connectInProcess(app, w.builder.agent, w.ws.slug);
    const b = await connectInProcess(app, w.reviewer.agent, w.ws.slug);
    const s = (await a.call('start_message', { to: 'reviewer', text: 'Draft' })).structuredContent as Out;
    await app.agents.join(SYSTEM, { agent: w.builder.name, workspace: w.ws.slug, send: false });
    const refused = await a.call('finish_message', { stream_id: s.stream_id, text: ' more' });
    expect(refused.isError).toBe(true);
    // A refusal that waiting does not lift ends the stream, and says so.
    expect(textOf(refused)).toMatch(
      /do not have the send permission.* The streamed message has ended and nothing of it was stored/,
    );
    expect(refused._meta?.[ERROR_META_KEY]).toMatchObject({ code: 'NOT_PERMITTED', stream: 'ended' });
    expect(textOf(await a.call('finish_message', { stream_id: s.stream_id }))).toMatch(/already ended \(finished\)/);
    expect((await b.call('check_inbox')).structuredContent).toMatchObject({ messages: [] });
    expect(await app.store.messages.get(w.ws.id, s.stream_id)).toBeNull();
    await a.close();
    await b.close();
  });

  /**
   * A stream to the reviewer shows "Draft one ", then `change` happens mid-stream and `next` is appended: the stream
   * ends before `next` goes out (its live text withdrawn), a later append is refused with `refusal`, nothing is stored.
   */
  async function endsMidStream(change: (w: World, a: Connected) => Promise<void>, next: string, refusal: RegExp) {
    const w = await makeWorld(app);
    const a = await connectInProcess(app, w.builder.agent, w.ws.slug);
    const s = (await a.call('start_message', { to: 'reviewer', text: 'Draft ' })).structuredContent as Out;
    const live = await liveEvents(s.conversation_id);
    await a.call('append_message', { stream_id: s.stream_id, text: 'one ' });
    await vi.waitFor(() => expect(live.events.some((e) => e.stream?.text === 'Draft one ')).toBe(true));
    await change(w, a);
    await a.call('append_message', { stream_id: s.stream_id, text: next });
    await vi.waitFor(() => expect(live.events.at(-1)?.stream).toMatchObject({ id: s.stream_id, done: true, text: '' }));
    expect(live.events.some((e) => e.stream?.text.includes(next))).toBe(false);
    const late = await a.call('append_message', { stream_id: s.stream_id, text: 'more' });
    expect(late.isError).toBe(true);
    expect(textOf(late)).toMatch(refusal);
    expect(await app.store.messages.get(w.ws.id, s.stream_id)).toBeNull();
    await live.stop();
    await a.close();
  }

  it('ends a stream, withdrawing what it showed, once the agent may no longer write there, before its new text goes out', async () => {
    // The same check send_message makes (permissions, the audience rule) runs before each update.
    await endsMidStream(
      (w) => app.agents.join(SYSTEM, { agent: w.builder.name, workspace: w.ws.slug, send: false }).then(() => {}),
      'SECRET',
      /already ended \(refused: You do not have the send permission/,
    );
  });

  it("ends a stream before its new text goes out once the agent read what the conversation's audience may not (the audience rule)", async () => {
    // Mid-stream, the builder reads a restricted channel that only Alice is in; Bob reads the stream.
    await endsMidStream(
      async (w, a) => {
        const { chat } = chatOf(app);
        const alice = await chat.viewer((await app.store.people.get(w.alice))!.id, w.ws.slug);
        const secret = await chat.createChannel(alice, { name: `secret-${w.suffix}`, restricted: true });
        await chat.post(alice, secret.conversationId, '@builder the codename is Falcon');
        expect((await a.call('check_inbox')).structuredContent).toMatchObject({
          messages: [{ body: '@builder the codename is Falcon' }],
        });
      },
      'Falcon',
      /already ended \(refused: Not sent: you recently read #secret-/,
    );
  });

  it("ends a stream before its new text goes out once the recipient's owner stops it taking messages from the sender", async () => {
    // Mid-stream, Bob lets his reviewer take messages only from himself.
    await endsMidStream(
      async (w) => {
        const bob = { kind: 'person' as const, personId: (await app.store.people.get(w.bob))!.id };
        await app.agents.join(bob, { agent: `${w.bob}/reviewer`, workspace: w.ws.slug, takesFrom: [w.bob] });
      },
      'two',
      /already ended \(refused: Nobody would receive this message \(reviewer: .*takes messages only from its allow-list \(takes_messages_from\), and you are not on it; ask its owner to add you\.\); name recipients who accept it\.\)/,
    );
  });

  it('checks again before each live update only what can change mid-stream, not the whole send', async () => {
    const w = await makeWorld(app);
    const a = await connectInProcess(app, w.builder.agent, w.ws.slug);
    /** Statements the database ran for each of three live updates of a stream (the update, its event, its check). */
    const sent = (await a.call('send_message', { to: 'reviewer', body: 'Hello' })).structuredContent as Out;
    const perFlush = async (start: Record<string, unknown>) => {
      const live = await liveEvents(sent.conversation_id);
      const s = (await a.call('start_message', { ...start, text: 'Draft' })).structuredContent as Out;
      expect(s.conversation_id).toBe(sent.conversation_id);
      await vi.waitFor(() => expect(live.events.some((e) => e.stream?.text === 'Draft')).toBe(true));
      const counts: number[] = [];
      for (const word of [' one', ' two', ' three']) {
        const text = `${live.events.at(-1)!.stream!.text}${word}`;
        const before = app.database.queries();
        await a.call('append_message', { stream_id: s.stream_id, text: word });
        await vi.waitFor(() => expect(live.events.at(-1)?.stream?.text).toBe(text));
        counts.push(app.database.queries() - before);
      }
      expect((await a.call('finish_message', { stream_id: s.stream_id })).isError).toBeFalsy();
      await live.stop();
      return counts;
    };
    const toReviewer = await perFlush({ to: 'reviewer' });
    const inConversation = await perFlush({ conversation: sent.conversation_id });
    // The sender's standing and the directory its recipients' rules are read from (both from the read cache) and what it
    // read lately, plus the live event's NOTIFY and the stream's text kept in the store (live-drafts.ts); a whole send's
    // plan (directory, conversation, participants, chain, DM) cost 4 and 6 more. The least of three, as other work may
    // run meanwhile.
    expect(Math.min(...toReviewer)).toBeLessThanOrEqual(3);
    expect(Math.min(...inConversation)).toBeLessThanOrEqual(3);
    await a.close();
  });

  it('finishes a stream left without an append with what it has, and clears a forgotten status', async () => {
    const w = await makeWorld(app);
    const live = new LiveService(app.messaging, app.notifier, app.clock, () => null, silent, {
      updateIntervalMs: 50,
      statusTimeoutMs: 200,
      streamIdleMs: 200,
    });
    const b = await connectInProcess(app, w.reviewer.agent, w.ws.slug);
    const started = await live.start({
      workspace: w.ws,
      sender: w.builder.agent,
      to: ['reviewer'],
      text: 'Half an answer',
      surface: 'mcp',
    });
    const events = await liveEvents(started.conversation.id);
    await vi.waitFor(async () => {
      const inbox = (await b.call('check_inbox')).structuredContent as Out;
      expect(inbox.messages.map((m: Out) => [m.id, m.body])).toEqual([[started.streamId, 'Half an answer']]);
    });
    await expect(live.append(w.ws, w.builder.agent, started.streamId, 'more')).rejects.toThrow(
      /without an append\); start a new one/,
    );

    await live.setStatus(w.ws, w.builder.agent, started.conversation.id, 'is thinking…');
    await vi.waitFor(() => expect(events.events.at(-1)).toMatchObject({ status: null, stream: null }));
    expect(events.events.some((e) => e.status === 'is thinking…')).toBe(true);
    await events.stop();
    await b.close();
  });
});

describe('streamed messages and the limits of send_message', () => {
  it("refuses to start a stream the rate limit or the plan's monthly count would refuse, as send_message would", async () => {
    const w = await makeWorld(app);
    const a = await connectInProcess(app, w.builder.agent, w.ws.slug);
    for (let i = 0; i < 30; i++)
      await app.messaging.send({ workspace: w.ws, sender: w.builder.agent, to: ['reviewer'], body: `update ${i}` });
    const limited = await a.call('start_message', { to: 'reviewer', text: 'long answer part 1. ' });
    expect(limited.isError).toBe(true);
    expect(limited._meta?.[ERROR_META_KEY]).toMatchObject({ code: 'RATE_LIMITED', limit: 30 });
    expect(textOf(limited)).toMatch(
      /^You have sent 30 messages to this conversation in the last 60 seconds.*wait 60 seconds/,
    );

    const full = await makeWorld(app);
    await app.store.orgs.addUsage((await app.store.orgs.get(full.org))!.id, usageMonth(new Date()), 300);
    const b = await connectInProcess(app, full.builder.agent, full.ws.slug);
    const over = await b.call('start_message', { to: 'reviewer', text: 'hello' });
    expect(over.isError).toBe(true);
    expect(over._meta?.[ERROR_META_KEY]).toMatchObject({ code: 'PLAN_LIMIT', limit: 300, used: 300 });
    await Promise.all([a.close(), b.close()]);
  });

  it('finds a stream only in the workspace it was started in, answering elsewhere as for an unknown id', async () => {
    const w = await makeWorld(app);
    await app.orgs.setPlan(SYSTEM, w.org, 'team', 10_000);
    const ws2 = await app.orgs.addWorkspace(SYSTEM, { name: `Second ${w.suffix}`, org: w.org });
    await app.agents.join(SYSTEM, { agent: w.builder.name, workspace: ws2.slug });
    await app.agents.join(SYSTEM, { agent: w.reviewer.name, workspace: ws2.slug });
    const in1 = await connectInProcess(app, w.builder.agent, w.ws.slug);
    const in2 = await connectInProcess(app, w.builder.agent, ws2.slug);
    const s = (await in2.call('start_message', { to: 'reviewer', text: 'In the second workspace. ' }))
      .structuredContent as Out;
    const unknown = (id: string) =>
      `There is no open streamed message ${id} of yours; use the stream_id start_message returned, or start one.`;

    for (const tool of ['append_message', 'finish_message']) {
      const r = await in1.call(tool, { stream_id: s.stream_id, text: 'Posted from the first. ' });
      expect(r.isError, tool).toBe(true);
      expect(r._meta?.[ERROR_META_KEY]).toEqual({ code: 'NOT_FOUND' });
      expect(textOf(r)).toBe(unknown(s.stream_id));
    }
    const done = await in2.call('finish_message', { stream_id: s.stream_id });
    expect(done.isError, textOf(done)).toBeFalsy();
    expect((await app.store.messages.get(ws2.id, s.stream_id))?.body).toBe('In the second workspace.');
    // Once ended too, the first workspace hears nothing of it.
    expect(textOf(await in1.call('append_message', { stream_id: s.stream_id, text: 'x' }))).toBe(unknown(s.stream_id));
    await Promise.all([in1.close(), in2.close()]);
  });
});

describe('a streamed message whose finish is rate-limited', () => {
  /** Real time, moved ahead by hand: the rate limit's window passes without waiting for it. */
  const clock = {
    ahead: 0,
    now() {
      return new Date(Date.now() + this.ahead);
    },
  };
  let limited: App;
  // An App of its own (its clock and rate limit), over the file's database: a second PGlite would cost seconds of CPU.
  // makeWorld's names are unique, so the two Apps never meet; the file's App has no test running meanwhile.
  beforeAll(async () => {
    limited = await testApp(app.database, { clock, rateLimit: { max: 3, windowMs: 60_000 }, ...quickUpdates });
  });
  afterAll(async () => {
    await limited?.close();
  });

  it('keeps the stream open with the text it had before the refused call, so repeating that same finish_message stores its text once', async () => {
    const w = await makeWorld(limited);
    const a = await connectInProcess(limited, w.builder.agent, w.ws.slug);
    const b = await connectInProcess(limited, w.reviewer.agent, w.ws.slug);
    for (const body of ['one', 'two']) await a.call('send_message', { to: 'reviewer', body });
    const s = (await a.call('start_message', { to: 'reviewer', text: 'long answer part 1. ' }))
      .structuredContent as Out;
    expect(s.stream_id).toBeTruthy();
    await a.call('send_message', { to: 'reviewer', body: 'three' });
    await a.call('append_message', { stream_id: s.stream_id, text: 'part 2. ' });

    const finish = { stream_id: s.stream_id, text: 'part 3.' };
    const refused = await a.call('finish_message', finish);
    expect(refused.isError).toBe(true);
    expect(refused._meta?.[ERROR_META_KEY]).toMatchObject({ code: 'RATE_LIMITED', stream: 'open' });
    expect(textOf(refused)).toMatch(
      /wait 60 seconds .* Your streamed message .* stays open with the 28 characters it had before this call: make the same finish_message call again then, with the same text/,
    );
    expect(await limited.store.messages.get(w.ws.id, s.stream_id)).toBeNull();
    // Still open: it takes more text, and the same finish before the limit passes is refused the same way, adding nothing.
    expect((await a.call('append_message', { stream_id: s.stream_id, text: 'More. ' })).structuredContent).toEqual({
      stream_id: s.stream_id,
      length: 34,
    });
    const again = await a.call('finish_message', finish);
    expect(again._meta?.[ERROR_META_KEY]).toMatchObject({ code: 'RATE_LIMITED', stream: 'open' });
    expect(textOf(again)).toMatch(/stays open with the 34 characters it had before this call/);

    clock.ahead += 61_000;
    const finished = await a.call('finish_message', finish);
    expect(finished.isError, textOf(finished)).toBeFalsy();
    expect(finished.structuredContent).toMatchObject({
      message_id: s.stream_id,
      recipients: [{ to: 'reviewer', status: 'delivered' }],
    });
    expect((await limited.store.messages.get(w.ws.id, s.stream_id))?.body).toBe(
      'long answer part 1. part 2. More. part 3.',
    );
    const inbox = (await b.call('check_inbox')).structuredContent as Out;
    expect(inbox.messages.map((m: Out) => m.body)).toEqual([
      'one',
      'two',
      'three',
      'long answer part 1. part 2. More. part 3.',
    ]);
    await Promise.all([a.close(), b.close()]);
  });
});
