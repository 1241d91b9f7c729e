import { describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/app.ts';
import { SYSTEM } from '../../src/domain/actor.ts';
import { LIVE_PAYLOAD, LiveService, type LiveEvent } from '../../src/domain/live/live-service.ts';
import { conversationTopic } from '../../src/domain/messaging/messaging-service.ts';
import { appPerFile, connectInProcess, makeWorld, silent, textOf } from './support/world.ts';

let app: App;
appPerFile((a) => { app = a; });

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

    const appended = await a.call('append_message', { stream_id: s.stream_id, text: 'PR #12: ' });
    expect(appended.structuredContent).toEqual({ stream_id: s.stream_id, length: 'Looking at PR #12: '.length });
    await vi.waitFor(() => expect(live.events.some((e) => e.stream?.text === 'Looking at PR #12: ')).toBe(true));
    // Nothing is in the reader's inbox until the message is finished.
    expect((await b.call('check_inbox')).structuredContent).toMatchObject({ messages: [] });

    const finished = await a.call('finish_message', { stream_id: s.stream_id, text: 'looks good.' });
    expect(finished.isError, textOf(finished)).toBeFalsy();
    expect(finished.structuredContent).toMatchObject({ message_id: s.stream_id, conversation_id: s.conversation_id });
    const inbox = (await b.call('check_inbox')).structuredContent as Out;
    expect(inbox.messages.map((m: Out) => [m.id, m.body])).toEqual([[s.stream_id, 'Looking at PR #12: looks good.']]);
    await vi.waitFor(() => expect(live.events.at(-1)?.stream).toMatchObject({ id: s.stream_id, done: true }));
    expect(live.events.every((e) => e.agent === w.builder.name && e.display_name === 'Builder')).toBe(true);

    const late = await a.call('append_message', { stream_id: s.stream_id, text: 'more' });
    expect(late.isError).toBe(true);
    expect(textOf(late)).toMatch(/already ended \(finished\); start a new one with start_message/);
    await live.stop();
    await a.close();
    await b.close();
  });

  it('refuses a stream to someone the agent may not message, and another agent\'s stream, saying what to do instead', async () => {
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
    const first = (await b.call('send_message', { to: 'builder', body: 'Can you check the build?' })).structuredContent as Out;
    const live = await liveEvents(first.conversation_id);

    const set = await a.call('set_status', { conversation: first.conversation_id, text: 'is reading the build log…' });
    expect(set.isError, textOf(set)).toBeFalsy();
    expect(set.structuredContent).toEqual({ conversation_id: first.conversation_id, status: 'is reading the build log…', shown_on_platform: false });
    await vi.waitFor(() => expect(live.events.at(-1)).toMatchObject({ agent_id: w.builder.agent.id, status: 'is reading the build log…' }));

    await a.call('send_message', { conversation: first.conversation_id, body: 'It is green now.' });
    await vi.waitFor(() => expect(live.events.at(-1)).toMatchObject({ agent_id: w.builder.agent.id, status: null, stream: null }));

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
    expect(textOf(refused)).toMatch(/do not have the send permission/);
    expect((await b.call('check_inbox')).structuredContent).toMatchObject({ messages: [] });
    expect(await app.store.messages.get(w.ws.id, s.stream_id)).toBeNull();
    await a.close();
    await b.close();
  });

  it('ends a stream, withdrawing what it showed, once the agent may no longer write there, before its new text goes out', async () => {
    const w = await makeWorld(app);
    const a = await connectInProcess(app, w.builder.agent, w.ws.slug);
    const s = (await a.call('start_message', { to: 'reviewer', text: 'Draft ' })).structuredContent as Out;
    const live = await liveEvents(s.conversation_id);
    await a.call('append_message', { stream_id: s.stream_id, text: 'one ' });
    await vi.waitFor(() => expect(live.events.some((e) => e.stream?.text === 'Draft one ')).toBe(true));
    // The same check send_message makes (permissions, the audience rule) runs before each update.
    await app.agents.join(SYSTEM, { agent: w.builder.name, workspace: w.ws.slug, send: false });
    await a.call('append_message', { stream_id: s.stream_id, text: 'SECRET' });
    await vi.waitFor(() => expect(live.events.at(-1)?.stream).toMatchObject({ id: s.stream_id, done: true, text: '' }));
    expect(live.events.some((e) => e.stream?.text.includes('SECRET'))).toBe(false);
    const late = await a.call('append_message', { stream_id: s.stream_id, text: 'more' });
    expect(textOf(late)).toMatch(/already ended \(refused: You do not have the send permission/);
    expect(await app.store.messages.get(w.ws.id, s.stream_id)).toBeNull();
    await live.stop();
    await a.close();
  });

  it('finishes a stream left without an append with what it has, and clears a forgotten status', async () => {
    const w = await makeWorld(app);
    const live = new LiveService(app.messaging, app.notifier, app.clock, () => null, silent, { updateIntervalMs: 50, statusTimeoutMs: 200, streamIdleMs: 200 });
    const b = await connectInProcess(app, w.reviewer.agent, w.ws.slug);
    const started = await live.start({ workspace: w.ws, sender: w.builder.agent, to: ['reviewer'], text: 'Half an answer', surface: 'mcp' });
    const events = await liveEvents(started.conversation.id);
    await vi.waitFor(async () => {
      const inbox = (await b.call('check_inbox')).structuredContent as Out;
      expect(inbox.messages.map((m: Out) => [m.id, m.body])).toEqual([[started.streamId, 'Half an answer']]);
    });
    await expect(live.append(w.builder.agent, started.streamId, 'more')).rejects.toThrow(/without an append\); start a new one/);

    await live.setStatus(w.ws, w.builder.agent, started.conversation.id, 'is thinking…');
    await vi.waitFor(() => expect(events.events.at(-1)).toMatchObject({ status: null, stream: null }));
    expect(events.events.some((e) => e.status === 'is thinking…')).toBe(true);
    await events.stop();
    await b.close();
  });
});
