// An agent at work in Teams: in a personal chat a status is an informative
// streaming update and the answer streams in (typing activities with
// streamType and streamSequence, then the final message); in a channel a
// status is a typing indicator and a streamed answer is posted, then updated.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import type { InboxItem } from '../../../src/core/messaging/message.ts';
import { pgliteDb } from '../../support/db.ts';
import { adaptiveCardAction, personalMessage } from '../../support/teams/activities.ts';
import { startTeamsStandin, type TeamsStandin, type WireActivity } from '../../support/teams/standin.ts';
import { inbox, mentionAndReceive, startHarness, type Harness } from '../../support/teams/harness.ts';

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
    const click = adaptiveCardAction(standin, {
      verb: 'chooseAgent',
      data: { sb: 'pickAgent', agentId: h.reviewer.id },
      cardActivityId: '1760000000200',
    });
    expect((await h.post(click)).status).toBe(200);
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  async function askPersonally(text: string): Promise<{ item: InboxItem; conversationId: string }> {
    const hello = personalMessage(standin, { text });
    expect((await h.post(hello)).status).toBe(200);
    const item = await vi.waitFor(async () => {
      const found = (await inbox(h)).find((i) => i.message.body === text);
      expect(found).toBeDefined();
      return found!;
    });
    return { item, conversationId: hello.conversation.id };
  }

  const sends = (conversationId: string) =>
    standin.calls.filter((c) => c.op === 'sendToConversation' && c.conversationId === conversationId);

  it('shows a status as an informative update in a personal chat, streams the answer in the same stream, and ends it with the final message', async () => {
    const { app } = h.server;
    const { item, conversationId } = await askPersonally('what broke last night?');
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
});
