// An agent at work in Teams: in a personal chat a status is an informative
// streaming update and the answer streams in (typing activities with
// streamType and streamSequence, then the final message), one answer at a
// time (a second one is posted, then updated); a stream Teams ended is
// completed by an update or a new message; in a channel a status is a typing
// indicator and a streamed answer is posted, then updated.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { pgliteDb } from '../../support/db.ts';
import { startTeamsStandin, type TeamsStandin, type WireActivity } from '../../support/teams/standin.ts';
import {
  askPersonally,
  chooseReviewer,
  mentionAndReceive,
  startHarness,
  type Harness,
} from '../../support/teams/harness.ts';

/** The streaming facts as they reach Teams (channelData; the connector's serializer keeps only an entity's type). */
const streamFacts = (a: WireActivity | undefined) =>
  (a?.channelData as Record<string, unknown> | undefined)?.streamType
    ? (a!.channelData as Record<string, unknown>)
    : undefined;

describe('agents at work in Teams', () => {
  let db: Database;
  let standin: TeamsStandin;
  let h: Harness;

  beforeAll(async () => {
    [db, standin] = await Promise.all([pgliteDb.open(), startTeamsStandin()]);
    h = await startHarness({ database: db, standin });
    await chooseReviewer(h, standin);
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  const sends = (conversationId: string) =>
    standin.calls.filter((c) => c.op === 'sendToConversation' && c.conversationId === conversationId);

  it('shows a status as an informative update in a personal chat, streams the answer in the same stream, and ends it with the final message', async () => {
    const { app } = h.server;
    const { item, conversationId } = await askPersonally(h, standin, 'what broke last night?');
    const before = sends(conversationId).length;
    const shown = await app.live.setStatus(h.workspace, h.reviewer, item.conversation.id, 'is reading the logs…');
    expect(shown.platform).toBe(true);
    const informative = sends(conversationId)[before]!;
    expect(informative.activity).toMatchObject({
      type: 'typing',
      text: 'Reviewer is reading the logs…',
      channelData: { streamType: 'informative', streamSequence: 1 },
    });
    const streamId = informative.createdId!;

    const started = await app.live.start({
      workspace: h.workspace,
      sender: h.reviewer,
      conversationId: item.conversation.id,
      surface: 'mcp',
      text: 'The nightly job ',
    });
    await app.live.append(h.workspace, h.reviewer, started.streamId, 'ran out of disk.');
    await vi.waitFor(() =>
      expect(standin.stream(streamId)?.updates.at(-1)?.text).toContain('The nightly job ran out of disk.'),
    );
    await app.live.finish(h.workspace, h.reviewer, started.streamId);

    const stored = await vi.waitFor(async () => {
      const m = await app.store.messages.get(h.workspace.id, started.streamId);
      expect(m?.externalId).toBeTruthy();
      return m!;
    });
    const stream = standin.stream(streamId)!;
    expect(stream.done).toBe(true);
    expect(stream.updates.map((u) => u.type)).toEqual([
      'informative',
      ...Array(stream.updates.length - 2).fill('streaming'),
      'final',
    ]);
    const updates = sends(conversationId).slice(before);
    // Every update of the stream names it and raises the sequence; the final message carries the stream id and the agent's card.
    expect(updates.slice(1, -1).map((c) => [c.activity?.type, streamFacts(c.activity)?.streamId])).toEqual(
      updates.slice(1, -1).map(() => ['typing', streamId]),
    );
    const sequences = updates.slice(0, -1).map((c) => streamFacts(c.activity)?.streamSequence as number);
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
    expect(new Set(sequences).size).toBe(sequences.length);
    const final = updates.at(-1)!.activity!;
    expect(final).toMatchObject({ type: 'message', channelData: { streamType: 'final', streamId } });
    expect(JSON.stringify(final)).toContain('The nightly job ran out of disk.');
    expect(stored.externalId).toBe(streamId);
    expect(
      standin.conversationActivities(conversationId).filter((a) => JSON.stringify(a).includes('ran out of disk')),
    ).toHaveLength(1);
  });

  it('shows a typing indicator for a status in a channel, and posts then updates a streamed answer there', async () => {
    const { app } = h.server;
    const { item, activity } = await mentionAndReceive(h, standin, 'explain the outage');
    const conversationId = activity.conversation.id;
    const shown = await app.live.setStatus(h.workspace, h.reviewer, item.conversation.id, 'is thinking…');
    expect(shown.platform).toBe(false);
    expect(sends(conversationId).at(-1)?.activity).toMatchObject({ type: 'typing' });
    expect(streamFacts(sends(conversationId).at(-1)?.activity)).toBeUndefined();

    const started = await app.live.start({
      workspace: h.workspace,
      sender: h.reviewer,
      conversationId: item.conversation.id,
      surface: 'mcp',
      text: 'Short version: ',
    });
    const post = await vi.waitFor(() => {
      const p = sends(conversationId).find(
        (c) => c.activity?.type === 'message' && JSON.stringify(c.activity).includes('Short version'),
      );
      expect(p?.status).toBe(201);
      return p!;
    });
    await app.live.append(h.workspace, h.reviewer, started.streamId, 'DNS.');
    await app.live.finish(h.workspace, h.reviewer, started.streamId);
    await vi.waitFor(() =>
      expect(
        JSON.stringify(standin.conversationActivities(conversationId).find((a) => a.id === post.createdId)),
      ).toContain('Short version: DNS.'),
    );
    expect(standin.calls.some((c) => c.op === 'updateActivity' && c.activityId === post.createdId)).toBe(true);
    expect(standin.calls.filter((c) => c.conversationId === conversationId && streamFacts(c.activity))).toHaveLength(0);
  });
  const storedMessage = (id: string) =>
    vi.waitFor(async () => {
      const m = await h.server.app.store.messages.get(h.workspace.id, id);
      expect(m?.externalId).toBeTruthy();
      return m!;
    });

  const startIn = (conversationId: string, text: string) =>
    h.server.app.live.start({ workspace: h.workspace, sender: h.reviewer, conversationId, surface: 'mcp', text });

  /** The id of the stream the first update carrying `text` opened. */
  const streamOf = (conversationId: string, text: string) =>
    vi.waitFor(() => {
      const first = sends(conversationId).find(
        (c) => streamFacts(c.activity)?.streamType === 'streaming' && String(c.activity?.text).includes(text),
      );
      expect(first?.status).toBe(201);
      return String(streamFacts(first!.activity)!.streamId ?? first!.createdId);
    });

  it('streams one answer at a time in a personal chat: a second answer meanwhile is posted, then updated', async () => {
    const { app } = h.server;
    const { item, conversationId } = await askPersonally(h, standin, 'two questions at once?');
    const first = await startIn(item.conversation.id, 'First answer: ');
    const streamId = await streamOf(conversationId, 'First answer');
    const second = await startIn(item.conversation.id, 'Second answer: ');
    const post = await vi.waitFor(() => {
      const p = sends(conversationId).find(
        (c) => c.activity?.type === 'message' && JSON.stringify(c.activity).includes('Second answer'),
      );
      expect(p?.status).toBe(201);
      return p!;
    });
    expect(streamFacts(post.activity)).toBeUndefined();
    await app.live.append(h.workspace, h.reviewer, first.streamId, 'yes.');
    await app.live.append(h.workspace, h.reviewer, second.streamId, 'also yes.');
    await app.live.finish(h.workspace, h.reviewer, first.streamId);
    await app.live.finish(h.workspace, h.reviewer, second.streamId);

    expect((await storedMessage(first.streamId)).externalId).toBe(streamId);
    expect((await storedMessage(second.streamId)).externalId).toBe(post.createdId);
    await vi.waitFor(() => expect(standin.stream(streamId)?.done).toBe(true));
    // The stream carried the first answer only; the second answer's post was brought up to date.
    expect(standin.stream(streamId)!.updates.every((u) => !u.text.includes('Second answer'))).toBe(true);
    await vi.waitFor(() =>
      expect(JSON.stringify(standin.activity(conversationId, post.createdId!))).toContain('Second answer: also yes.'),
    );
    expect(standin.calls.some((c) => c.op === 'updateActivity' && c.activityId === post.createdId)).toBe(true);
  });

  it('completes a stream Teams ended at its time limit by updating the streamed message', async () => {
    const { app } = h.server;
    const { item, conversationId } = await askPersonally(h, standin, 'a long answer, please');
    const started = await startIn(item.conversation.id, 'Part one. ');
    const streamId = await streamOf(conversationId, 'Part one.');
    // Two minutes pass on Teams' side: it ends the stream and refuses even its final message.
    standin.passTime(3 * 60_000);
    await app.live.append(h.workspace, h.reviewer, started.streamId, 'Part two.');
    await vi.waitFor(() =>
      expect(JSON.stringify(standin.activity(conversationId, streamId))).toContain('Part one. Part two.'),
    );
    expect(
      standin.calls.some((c) => c.status === 403 && c.conversationId === conversationId && streamFacts(c.activity)),
    ).toBe(true);
    await app.live.finish(h.workspace, h.reviewer, started.streamId, ' Part three.');
    expect((await storedMessage(started.streamId)).externalId).toBe(streamId);
    await vi.waitFor(() =>
      expect(JSON.stringify(standin.activity(conversationId, streamId))).toContain('Part one. Part two. Part three.'),
    );
    expect(
      standin.conversationActivities(conversationId).filter((a) => JSON.stringify(a).includes('Part one.')),
    ).toHaveLength(1);
  });

  it('completes a stream the person stopped in a new message, since Teams keeps what it showed', async () => {
    const { app } = h.server;
    const { item, conversationId } = await askPersonally(h, standin, 'explain it all');
    const started = await startIn(item.conversation.id, 'The short of it: ');
    const streamId = await streamOf(conversationId, 'The short of it');
    standin.stopStream(streamId);
    await app.live.append(h.workspace, h.reviewer, started.streamId, 'caching.');
    const followUp = await vi.waitFor(() => {
      const p = sends(conversationId).find(
        (c) =>
          c.status === 201 &&
          c.activity?.type === 'message' &&
          !streamFacts(c.activity) &&
          JSON.stringify(c.activity).includes('caching.'),
      );
      expect(p).toBeDefined();
      return p!.createdId!;
    });
    await app.live.append(h.workspace, h.reviewer, started.streamId, ' And TTLs.');
    await app.live.finish(h.workspace, h.reviewer, started.streamId);
    expect((await storedMessage(started.streamId)).externalId).toBe(followUp);
    await vi.waitFor(() =>
      expect(JSON.stringify(standin.activity(conversationId, followUp))).toContain(
        'The short of it: caching. And TTLs.',
      ),
    );
    // What the stopped stream showed stays as it was.
    expect(JSON.stringify(standin.activity(conversationId, streamId))).not.toContain('caching');
  });
});
