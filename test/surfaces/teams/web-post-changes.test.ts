// A linked person's own Teams reply chain, opened in the web chat: what they
// write there is posted to Teams, and their web edit or delete of it follows
// there (updateActivity, deleteActivity on that activity id) through the real
// CloudAdapter and the Bot Connector stand-in, also when the edit or delete
// meets the post job half-way.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import type { Viewer } from '../../../src/core/channels/access.ts';
import { DeliveryError } from '../../../src/core/delivery/failure.ts';
import type { SurfaceOutbound } from '../../../src/core/delivery/surface-outbound.ts';
import { pgliteDb, postgresDb } from '../../support/db.ts';
import { TEAMS_DEFAULTS } from '../../support/teams/defaults.ts';
import { startTeamsStandin, type TeamsStandin } from '../../support/teams/standin.ts';
import { mentionAndReceive, startHarness, type Harness } from '../../support/teams/harness.ts';
import { chatOf } from '../../../src/surfaces/web/index.ts';
import { TEAMS_POST_CHANGE } from '../../../src/surfaces/teams/topics.ts';

const WAIT = { timeout: 20_000, interval: 50 };
const database = postgresDb() ?? pgliteDb;

describe(`a linked person's Teams reply chain in the web chat (${database.kind})`, () => {
  let db: Database;
  let standin: TeamsStandin;
  let h: Harness;
  let alice: Viewer;
  let threadId: string;
  let port: SurfaceOutbound;
  let post: SurfaceOutbound['post'];

  beforeAll(async () => {
    [db, standin] = await Promise.all([database.open(), startTeamsStandin()]);
    h = await startHarness({ database: db, standin });
    await h.link(TEAMS_DEFAULTS.users.alice, 'alice');
    const { app } = h.server;
    alice = await chatOf(app).chat.viewer((await app.store.people.get('alice'))!.id, h.workspace.id);
    // Alice asks the agent in the reviews channel: the reply chain is an external conversation she is in.
    threadId = (await mentionAndReceive(h, standin, 'look at the release notes')).item.conversation.id;
    port = app.outbound.get('teams')!;
    post = port.post;
  });
  afterEach(() => {
    port.post = post;
    Reflect.deleteProperty(h.server.app.store.messages, 'get');
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  const stored = (id: string) => h.server.app.store.messages.get(h.workspace.id, id);
  /** The activity id Teams gave the message's post, once it is recorded. */
  const posted = (id: string) =>
    vi.waitFor(async () => {
      const m = await stored(id);
      if (!m?.externalId) throw new Error('the post is not recorded yet');
      return m.externalId;
    }, WAIT);
  const sendOf = (activityId: string) =>
    standin.delivered('sendToConversation').find((c) => c.createdId === activityId)!;
  /** The activity as Teams shows it now (undefined once deleted). */
  const shown = (activityId: string) => standin.activity(sendOf(activityId).conversationId!, activityId);
  /** The post Teams got carrying `text` (a deleted message's post is never recorded on it). */
  const sentWith = (text: string) =>
    vi.waitFor(() => {
      const call = standin.delivered('sendToConversation').find((c) => JSON.stringify(c.activity).includes(text));
      if (!call) throw new Error('not posted to Teams yet');
      return call;
    }, WAIT);
  const changeJobs = async (id: string) =>
    (await h.server.app.store.outbox.list({ topic: TEAMS_POST_CHANGE })).filter((e) => e.payload.messageId === id);

  /**
   * Holds the next Teams post inside its platform call, after the post job read the message, until `release`;
   * with `fail`, that attempt then fails as a passing outage would, and the job's retry reads the message again.
   */
  function holdNextPost(o: { fail?: boolean } = {}) {
    let release!: () => void;
    let reached!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    const held = new Promise<void>((r) => {
      reached = r;
    });
    port.post = async (out) => {
      port.post = post;
      reached();
      await released;
      if (o.fail) throw new DeliveryError({ kind: 'transient', reason: 'Teams answered 502' });
      return post.call(port, out);
    };
    return { held, release };
  }

  /**
   * The next read of message `id` (the web edit's or delete's own) lets the held post go on and returns only once
   * its activity id is recorded: the id lands between that read and the edit's or delete's commit.
   */
  function recordInWindow(id: string, release: () => void) {
    const messages = h.server.app.store.messages;
    const get = messages.get;
    messages.get = async (workspaceId, messageId) => {
      const m = await get(workspaceId, messageId);
      if (messageId !== id) return m;
      Reflect.deleteProperty(messages, 'get');
      release();
      await posted(id);
      return m;
    };
  }

  it('updates and deletes the Teams activity when the person edits or deletes their message in the web chat', async () => {
    const { chat } = chatOf(h.server.app);
    const id = (await chat.post(alice, threadId, 'Release at 3pm')).message!.id;
    const activityId = await posted(id);
    const conversationId = sendOf(activityId).conversationId!;
    expect(JSON.stringify(shown(activityId))).toContain('Release at 3pm');

    await chat.edit(alice, id, 'Release at 4pm');
    const update = await vi.waitFor(() => {
      const call = standin.delivered('updateActivity').find((c) => c.activityId === activityId);
      if (!call) throw new Error('not updated in Teams yet');
      return call;
    }, WAIT);
    expect(update.conversationId).toBe(conversationId);
    expect(JSON.stringify(update.activity)).toContain('Release at 4pm');
    expect(JSON.stringify(shown(activityId))).toContain('Release at 4pm');

    await chat.remove(alice, id);
    await vi.waitFor(
      () => expect(standin.delivered('deleteActivity').filter((c) => c.activityId === activityId)).toHaveLength(1),
      WAIT,
    );
    expect(standin.delivered('deleteActivity').find((c) => c.activityId === activityId)!.conversationId).toBe(
      conversationId,
    );
    expect(shown(activityId)).toBeUndefined();
  });

  it('updates the activity when the post job records it between the edit reading the message and committing', async () => {
    const { chat } = chatOf(h.server.app);
    const { held, release } = holdNextPost();
    const id = (await chat.post(alice, threadId, 'Freeze on Monday')).message!.id;
    await held;
    recordInWindow(id, release);
    await chat.edit(alice, id, 'Freeze on Tuesday');
    const activityId = await posted(id);
    // Teams got the text the post job read before the edit.
    expect(JSON.stringify(sendOf(activityId).activity)).toContain('Freeze on Monday');
    expect(await changeJobs(id)).toHaveLength(1);
    await vi.waitFor(() => expect(JSON.stringify(shown(activityId))).toContain('Freeze on Tuesday'), WAIT);
  });

  it('updates the activity when the edit commits while the post job is posting the old text', async () => {
    const { chat } = chatOf(h.server.app);
    const { held, release } = holdNextPost();
    const id = (await chat.post(alice, threadId, 'Demo in room 1')).message!.id;
    await held;
    await chat.edit(alice, id, 'Demo in room 2');
    release();
    const activityId = await posted(id);
    expect(JSON.stringify(sendOf(activityId).activity)).toContain('Demo in room 1');
    await vi.waitFor(() => expect(JSON.stringify(shown(activityId))).toContain('Demo in room 2'), WAIT);
  });

  it('posts the edited text when the post job reads the message after the edit, and the update after it changes nothing', async () => {
    const { chat } = chatOf(h.server.app);
    const { held, release } = holdNextPost({ fail: true });
    const id = (await chat.post(alice, threadId, 'Lunch at noon')).message!.id;
    await held;
    await chat.edit(alice, id, 'Lunch at one');
    release();
    const activityId = await posted(id);
    expect(JSON.stringify(sendOf(activityId).activity)).toContain('Lunch at one');
    const update = await vi.waitFor(() => {
      const call = standin.delivered('updateActivity').find((c) => c.activityId === activityId);
      if (!call) throw new Error('the change job has not run yet');
      return call;
    }, WAIT);
    expect(JSON.stringify(update.activity)).toContain('Lunch at one');
    expect(
      standin.delivered('sendToConversation').filter((c) => JSON.stringify(c.activity).includes('Lunch at')),
    ).toHaveLength(1);
  });

  it('deletes the activity when the post job records it between the delete reading the message and committing', async () => {
    const { chat } = chatOf(h.server.app);
    const { held, release } = holdNextPost();
    const id = (await chat.post(alice, threadId, 'Typo here')).message!.id;
    await held;
    recordInWindow(id, release);
    await chat.remove(alice, id);
    const activityId = (await sentWith('Typo here')).createdId!;
    expect(await stored(id)).toBeNull();
    await vi.waitFor(() => expect(shown(activityId)).toBeUndefined(), WAIT);
    expect(standin.delivered('deleteActivity').filter((c) => c.activityId === activityId)).toHaveLength(1);
  });

  it('deletes the activity when the delete commits while the post job is posting the message', async () => {
    const { chat } = chatOf(h.server.app);
    const { held, release } = holdNextPost();
    const id = (await chat.post(alice, threadId, 'Wrong thread, sorry')).message!.id;
    await held;
    await chat.remove(alice, id);
    release();
    const activityId = (await sentWith('Wrong thread, sorry')).createdId!;
    await vi.waitFor(() => expect(shown(activityId)).toBeUndefined(), WAIT);
    expect(standin.delivered('deleteActivity').filter((c) => c.activityId === activityId)).toHaveLength(1);
  });
});
