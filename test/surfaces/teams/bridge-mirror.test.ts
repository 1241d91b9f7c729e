// A web channel bridged with a Teams channel, end to end: signed activities
// in through the real CloudAdapter, Bot Connector calls out to the Teams
// stand-in, on real PostgreSQL when TEST_DATABASE_URL is set. Messages and
// reply chains mirror both ways under their author's name, edits and deletes
// follow, agents named on Teams get the message once, and our own posts never
// come back.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import type { Viewer } from '../../../src/core/channels/access.ts';
import type { ChatService } from '../../../src/surfaces/web/pages/chat-service.ts';
import { teamsRuntime } from '../../../src/surfaces/teams/index.ts';
import { pgliteDb, postgresDb } from '../../support/db.ts';
import {
  botAdded,
  channelMessage,
  channelMessageDeleted,
  channelMessageEdited,
} from '../../support/teams/activities.ts';
import { botAccountId, TEAMS_DEFAULTS } from '../../support/teams/defaults.ts';
import { startTeamsStandin, type ConnectorCall, type TeamsStandin } from '../../support/teams/standin.ts';
import { inbox, startHarness, type Harness } from '../../support/teams/harness.ts';
import { chatOf } from '../../../src/surfaces/web/index.ts';

const CHANNEL = TEAMS_DEFAULTS.channelId;
const BOB = TEAMS_DEFAULTS.users.bob;

describe('a web channel bridged with a Teams channel', () => {
  let db: Database;
  let standin: TeamsStandin;
  let h: Harness;
  let chat: ChatService;
  let alice: Viewer;
  let general: string;

  const fromTeams = async (text: string, extra: { threadRootId?: string; mention?: boolean } = {}) => {
    const activity = channelMessage(standin, { text, from: BOB, ...extra });
    expect((await h.post(activity)).status).toBe(200);
    return activity;
  };
  /** Waits for the web message with this body in a conversation. */
  const onWeb = (conversationId: string, body: string) =>
    vi.waitFor(async () => {
      const found = (await chat.history(alice, conversationId)).messages.find((m) => m.body === body);
      if (!found) throw new Error(`"${body}" is not in the web conversation yet`);
      return found;
    });
  const postsWith = (text: string) =>
    standin.delivered('sendToConversation').filter((c) => JSON.stringify(c.activity).includes(text));
  /** Waits for our post of a text into the bridged channel (or one of its reply chains). */
  const postedToTeams = (text: string) =>
    vi.waitFor(() => {
      const calls = postsWith(text);
      if (!calls.length) throw new Error(`nothing posted to Teams with "${text}" yet`);
      return calls;
    });
  /** What a Teams client would show of one of our posts, were it sent back to the bot. */
  const echoOf = (c: ConnectorCall) => ({
    ...channelMessage(standin, { text: String(c.activity?.text ?? ''), id: c.createdId }),
    from: { id: botAccountId(standin.appId), name: TEAMS_DEFAULTS.botName },
  });

  beforeAll(async () => {
    [db, standin] = await Promise.all([(postgresDb() ?? pgliteDb).open(), startTeamsStandin()]);
    h = await startHarness({ database: db, standin });
    const { app } = h.server;
    expect((await h.post(botAdded(standin, { scope: 'team' }))).status).toBe(200);
    await vi.waitFor(async () =>
      expect(await teamsRuntime(app.surfaceModules).references.serviceUrlOf(standin.userTenantId)).not.toBeNull(),
    );
    chat = chatOf(app).chat;
    alice = await chat.viewer((await app.store.people.get('alice'))!.id, 'eng');
    await app.bridges.add(SYSTEM, {
      workspace: 'eng',
      channel: 'general',
      to: [{ surface: 'teams', channel: CHANNEL }],
    });
    general = (await app.store.chat.channelByName(h.workspace.id, 'general'))!.conversationId;
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  it('shows a Teams channel message in the web channel as its author, via Teams, with its link', async () => {
    const sent = await fromTeams('Hello from the Teams side');
    const m = await onWeb(general, 'Hello from the Teams side');
    expect(m.sender).toMatchObject({ displayName: BOB.name, kind: 'person' });
    expect(m.via).toBe('Teams');
    expect(m.permalink).toContain(`https://teams.microsoft.com/l/message/${encodeURIComponent(CHANNEL)}/${sent.id}`);
    expect((await chat.history(alice, general)).conversation.channel?.bridges).toEqual([
      { surface: 'Teams', title: CHANNEL },
    ]);
    // Nothing goes back into the channel it came from.
    expect(postsWith('Hello from the Teams side')).toHaveLength(0);
  });

  it('posts a web message to the Teams channel once, under the author\'s name marked "via web", and ignores its echo', async () => {
    const sent = await chat.post(alice, general, 'Hello from the web side');
    const [call, ...more] = await postedToTeams('Hello from the web side');
    expect(more).toHaveLength(0);
    // A new post in the channel itself, headed with who wrote it and where.
    expect(call.conversationId).toBe(CHANNEL);
    expect(call.activity).toMatchObject({
      textFormat: 'markdown',
      text: '**alice** (via web)\n\nHello from the web side',
    });
    await vi.waitFor(async () => {
      expect(await h.server.app.store.bridges.counterparts(sent.message!.id)).toEqual([
        expect.objectContaining({ externalId: call.createdId, inbound: false }),
      ]);
    });
    expect((await h.post(echoOf(call))).status).toBe(200);
    await fromTeams('after the echo');
    await onWeb(general, 'after the echo');
    const bodies = (await chat.history(alice, general)).messages.map((m) => m.body);
    expect(bodies.filter((b) => b.includes('Hello from the web side'))).toHaveLength(1);
    expect(postsWith('Hello from the web side')).toHaveLength(1);
  });

  it('mirrors reply chains both ways through the message map', async () => {
    // Teams → web: a reply under our mirror of a web message lands in that message's web thread.
    const root = await chat.post(alice, general, 'Thread root written on the web');
    const [rootCall] = await postedToTeams('Thread root written on the web');
    await vi.waitFor(async () =>
      expect((await h.server.app.store.bridges.counterparts(root.message!.id))[0]?.externalId).toBe(rootCall.createdId),
    );
    await fromTeams('Teams reply under the web root', { threadRootId: rootCall.createdId });
    const thread = await chat.openThread(alice, root.message!.id);
    expect((await onWeb(thread.id, 'Teams reply under the web root')).via).toBe('Teams');
    // Web → Teams: a reply in the web thread of a Teams message goes into that message's reply chain.
    const teamsRoot = await fromTeams('Thread root written in Teams');
    const rootOnWeb = await onWeb(general, 'Thread root written in Teams');
    const webThread = await chat.openThread(alice, rootOnWeb.id);
    await chat.post(alice, webThread.id, 'Web reply under the Teams root');
    const [replyCall] = await postedToTeams('Web reply under the Teams root');
    expect(replyCall.conversationId).toBe(`${CHANNEL};messageid=${teamsRoot.id}`);
  });

  it("delivers an agent named on Teams once, in the web channel, and posts its answer in the asker's reply chain", async () => {
    const asked = channelMessage(standin, { text: '@reviewer can you check the deploy?', from: BOB });
    expect((await h.post(asked)).status).toBe(200);
    // Teams sends an activity again when it missed our answer; it is handled once.
    expect((await h.post(asked)).status).toBe(200);
    const item = await vi.waitFor(async () => {
      const got = (await inbox(h)).find((i) => i.message.body.includes('can you check the deploy'));
      if (!got) throw new Error('the reviewer has not got it yet');
      return got;
    });
    expect(item.conversation.id).toBe(general);
    await fromTeams('a later message');
    await onWeb(general, 'a later message');
    expect(await h.server.app.messaging.unreadCount(h.reviewer, h.workspace)).toBe(0);
    expect(
      (await chat.history(alice, general)).messages.filter((m) => m.body.includes('can you check the deploy')),
    ).toHaveLength(1);
    // Mentioning the bot and naming the agent the Teams way works too.
    const pr7 = await fromTeams('ask reviewer to look at PR 7', { mention: true });
    await vi.waitFor(async () =>
      expect((await inbox(h)).map((i) => i.message.body)).toContain('ask reviewer to look at PR 7'),
    );
    await h.server.app.messaging.send({
      workspace: h.workspace,
      sender: h.reviewer,
      conversationId: general,
      body: 'The deploy looks fine.',
    });
    const [answer] = await postedToTeams('The deploy looks fine.');
    // As the agent itself, in the reply chain of the message it answers (the last one it got in the channel).
    expect(answer.conversationId).toBe(`${CHANNEL};messageid=${pr7.id}`);
    expect(answer.activity?.text).toBe('**Reviewer** (alice/reviewer)\n\nThe deploy looks fine.');
  });

  it('mirrors a mention of the bot that names no agent, and tells the person how to name one', async () => {
    const asked = await fromTeams('could someone look at the flaky test', { mention: true });
    await onWeb(general, 'could someone look at the flaky test');
    const told = await vi.waitFor(() => {
      const replies = standin.delivered('replyToActivity').filter((c) => c.activityId === asked.id);
      if (!replies.length) throw new Error('Bob was not answered yet');
      return replies;
    });
    expect(JSON.stringify(told)).toContain('Name the agent you want');
    expect((await inbox(h)).map((i) => i.message.body)).not.toContain('could someone look at the flaky test');
  });

  it('follows a Teams edit and a Teams delete in the web channel', async () => {
    const original = await fromTeams('Deploy at 3pm');
    const m = await onWeb(general, 'Deploy at 3pm');
    expect(
      (await h.post(channelMessageEdited(standin, { id: original.id, text: 'Deploy at 4pm', from: BOB }))).status,
    ).toBe(200);
    await vi.waitFor(async () =>
      expect((await h.server.app.store.messages.get(h.workspace.id, m.id))?.body).toBe('Deploy at 4pm'),
    );
    // A second edit of the same message is its own event, not a resend of the first.
    expect(
      (await h.post(channelMessageEdited(standin, { id: original.id, text: 'Deploy at 5pm', from: BOB }))).status,
    ).toBe(200);
    await vi.waitFor(async () =>
      expect((await h.server.app.store.messages.get(h.workspace.id, m.id))?.body).toBe('Deploy at 5pm'),
    );
    expect((await h.post(channelMessageDeleted(standin, { id: original.id, from: BOB }))).status).toBe(200);
    await vi.waitFor(async () => expect(await h.server.app.store.messages.get(h.workspace.id, m.id)).toBeNull());
    expect((await chat.history(alice, general)).messages.map((x) => x.body)).not.toContain('Deploy at 5pm');
  });

  it('makes the Teams copy follow a web edit and a web delete', async () => {
    const { app } = h.server;
    const sent = await chat.post(alice, general, 'Standup at 9');
    const [call] = await postedToTeams('Standup at 9');
    await vi.waitFor(async () =>
      expect((await app.store.bridges.counterparts(sent.message!.id))[0]?.externalId).toBe(call.createdId),
    );
    await chat.edit(alice, sent.message!.id, 'Standup at 10');
    const updated = await vi.waitFor(() => {
      const found = standin.delivered('updateActivity').find((c) => c.activityId === call.createdId);
      if (!found) throw new Error('the Teams copy is not updated yet');
      return found;
    });
    expect(updated.conversationId).toBe(CHANNEL);
    expect(updated.activity?.text).toBe('**alice** (via web)\n\nStandup at 10');
    await chat.remove(alice, sent.message!.id);
    await vi.waitFor(() =>
      expect(standin.delivered('deleteActivity').map((c) => c.activityId)).toContain(call.createdId),
    );
    expect(standin.activity(CHANNEL, call.createdId!)).toBeUndefined();
  });

  it('counts everyone in the Teams channel in the audience, unless an owner allowed private content there', async () => {
    const { app } = h.server;
    const conv = (await app.store.messages.getConversation(h.workspace.id, general))!;
    // Alice and Bob are in the Teams channel and have not linked accounts: #general is read by guests.
    expect(await app.audiences.of(h.workspace, conv)).toMatchObject({ level: 'guest', unlinked: 2 });
    // A restricted channel bridged with the owner's consent keeps the audience its web members give it.
    const secret = await app.store.messages.conversation({
      workspaceId: h.workspace.id,
      kind: 'channel',
      key: 'channel:secret',
      title: 'secret',
      surface: 'web',
    });
    await app.store.chat.createChannel({
      conversationId: secret.id,
      workspaceId: h.workspace.id,
      name: 'secret',
      restricted: true,
      description: '',
      createdBy: null,
    });
    await expect(
      app.bridges.add(SYSTEM, {
        workspace: 'eng',
        channel: 'secret',
        to: [{ surface: 'teams', channel: TEAMS_DEFAULTS.generalChannelId }],
      }),
    ).rejects.toThrow(/#secret is a restricted channel/);
    await app.bridges.add(SYSTEM, {
      workspace: 'eng',
      channel: 'secret',
      to: [{ surface: 'teams', channel: TEAMS_DEFAULTS.generalChannelId }],
      allowPrivate: true,
    });
    expect(await app.audiences.of(h.workspace, secret)).toMatchObject({ unlinked: 0 });
  });
});
