// A web channel bridged with a Slack channel, end to end: signed Slack events
// in, Web API calls out to the Slack stand-in, on real PostgreSQL when
// TEST_DATABASE_URL is set. Messages and thread replies mirror both ways under
// their author's name, exactly once, and our own posts never come back. What
// people ask there goes through the same rules as anywhere: a guest's request
// is filed as intake, a mention naming nobody reaches the channel's default
// agent (or is told how to name one), and `/switchboard <agent> …` is mirrored.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MESSAGE_EVENT_TYPE } from '../../../src/surfaces/slack/index.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import type { Viewer } from '../../../src/core/channels/access.ts';
import type { ChatService } from '../../../src/surfaces/web/pages/chat-service.ts';
import { SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { appMention, eventCallback, fileShare, message } from '../../support/slack/signed-request.ts';
import type { RecordedCall, SlackStandin } from '../../support/slack/web-api-standin.ts';
import { postCommand, startBridged, type BridgedHarness, type Harness } from '../../support/slack/harness.ts';

const BOT = SLACK_DEFAULTS.botUserId;
const CAROL = 'U0CAROL01';
const CHANNEL = 'C0BRIDGED';

describe('a web channel bridged with a Slack channel', () => {
  let standin: SlackStandin;
  let h: Harness;
  let chat: ChatService;
  let alice: Viewer;
  let general: string;

  const fromSlack = async (text: string, extra: { thread_ts?: string; user?: string } = {}) => {
    const event = message({
      channel: CHANNEL,
      channel_type: 'channel',
      user: extra.user ?? CAROL,
      text,
      ...(extra.thread_ts ? { thread_ts: extra.thread_ts } : {}),
    });
    expect((await h.post(eventCallback(event))).status).toBe(200);
    return event;
  };
  /** Waits for the web message with this body in a conversation. */
  const onWeb = (conversationId: string, body: string) =>
    vi.waitFor(async () => {
      const found = (await chat.history(alice, conversationId)).messages.find((m) => m.body === body);
      if (!found) throw new Error(`"${body}" is not in the web conversation yet`);
      return found;
    });
  /** Waits for our post of a text to the bridged Slack channel. */
  const postedToSlack = (contains: string) =>
    vi.waitFor(() => {
      const calls = standin
        .callsTo('chat.postMessage')
        .filter((c) => c.args.channel === CHANNEL && String(c.args.text).includes(contains) && c.status === 200);
      if (!calls.length) throw new Error(`nothing posted to ${CHANNEL} with "${contains}" yet`);
      return calls;
    });
  const tsOf = (c: RecordedCall) => (c.response as { ts: string }).ts;
  /** What Slack sends back for one of our own posts: a message event carrying the bot id and our metadata. */
  const echoOf = (c: RecordedCall) =>
    message({
      channel: CHANNEL,
      channel_type: 'channel',
      user: BOT,
      text: String(c.args.text),
      ts: tsOf(c),
      ...(c.args.thread_ts ? { thread_ts: String(c.args.thread_ts) } : {}),
      extra: { bot_id: SLACK_DEFAULTS.botId, metadata: c.args.metadata },
    });

  let bridged: BridgedHarness;
  beforeAll(async () => {
    bridged = await startBridged(CHANNEL, {
      real_name: 'Carol Chen',
      display_name: 'carol',
      email: 'carol@example.test',
      image_72: 'https://avatars.example.test/carol.png',
    });
    ({ standin, h, chat, alice, general } = bridged);
  });
  afterAll(async () => {
    await bridged?.stop();
  });

  it('shows a Slack message in the web channel as its author, via Slack, with its link', async () => {
    await fromSlack('Hello from the Slack side');
    const m = await onWeb(general, 'Hello from the Slack side');
    expect(m.sender).toMatchObject({ displayName: 'carol', kind: 'person' });
    expect(m.via).toBe('Slack');
    expect((await chat.history(alice, general)).conversation.channel?.bridges).toEqual([
      { surface: 'Slack', title: CHANNEL },
    ]);
    expect(m.permalink).toMatch(/^https:\/\/switchboard-test\.slack\.com\/archives\/C0BRIDGED\/p\d+/);
    // Nothing is posted back to the channel it came from.
    expect(
      standin.callsTo('chat.postMessage').filter((c) => String(c.args.text).includes('Hello from the Slack side')),
    ).toHaveLength(0);
  });

  it('posts a web message to Slack once, under the author\'s name marked "via web", and ignores its echo', async () => {
    const sent = await chat.post(alice, general, 'Hello from the web side');
    const [call, ...more] = await postedToSlack('Hello from the web side');
    expect(more).toHaveLength(0);
    expect(call.args).toMatchObject({
      username: 'alice (via web)',
      metadata: { event_type: MESSAGE_EVENT_TYPE, event_payload: { switchboard_message_id: sent.message!.id } },
    });
    await vi.waitFor(async () => {
      const map = await h.server.app.store.bridges.counterparts(sent.message!.id);
      expect(map).toEqual([expect.objectContaining({ externalId: tsOf(call), inbound: false })]);
    });
    expect((await h.post(eventCallback(echoOf(call)))).status).toBe(200);
    await fromSlack('after the echo');
    await onWeb(general, 'after the echo');
    const bodies = (await chat.history(alice, general)).messages.map((m) => m.body);
    expect(bodies.filter((b) => b === 'Hello from the web side')).toHaveLength(1);
  });

  it('mirrors thread replies both ways through the message map', async () => {
    // Slack → web: a reply under our mirror of a web message lands in that message's web thread.
    const root = await chat.post(alice, general, 'Thread root written on the web');
    const [rootCall] = await postedToSlack('Thread root written on the web');
    await fromSlack('Slack reply under the web root', { thread_ts: tsOf(rootCall) });
    const thread = await chat.openThread(alice, root.message!.id);
    const reply = await onWeb(thread.id, 'Slack reply under the web root');
    expect(reply.via).toBe('Slack');
    // Web → Slack: a reply in the web thread of a Slack message goes under that Slack message.
    const slackRoot = await fromSlack('Thread root written in Slack');
    const rootOnWeb = await onWeb(general, 'Thread root written in Slack');
    const webThread = await chat.openThread(alice, rootOnWeb.id);
    await chat.post(alice, webThread.id, 'Web reply under the Slack root');
    const [replyCall] = await postedToSlack('Web reply under the Slack root');
    expect(replyCall.args.thread_ts).toBe(slackRoot.ts);
  });

  it("delivers an agent named on Slack once, in the web channel, and posts its answer in the asker's Slack thread", async () => {
    const text = `<@${BOT}> @reviewer can you check the deploy?`;
    const ts = `${Math.floor(Date.now() / 1000)}.424242`;
    // Slack sends a mention as both a message event and an app_mention event.
    await h.post(eventCallback(message({ channel: CHANNEL, channel_type: 'channel', user: CAROL, text, ts })));
    await h.post(eventCallback(appMention({ channel: CHANNEL, user: CAROL, text, ts })));
    const item = await vi.waitFor(async () => {
      const got = (await h.server.app.messaging.checkInbox(h.reviewer, h.workspace, 50)).items.find((i) =>
        i.message.body.includes('can you check the deploy'),
      );
      if (!got) throw new Error('the reviewer has not got it yet');
      return got;
    });
    expect(item.conversation.id).toBe(general);
    await onWeb(general, item.message.body);
    // Handled twice over, it still reached the agent once.
    await fromSlack('a later message');
    await onWeb(general, 'a later message');
    expect(await h.server.app.messaging.unreadCount(h.reviewer, h.workspace)).toBe(0);
    await h.server.app.messaging.send({
      workspace: h.workspace,
      sender: h.reviewer,
      conversationId: general,
      body: 'The deploy looks fine.',
    });
    const [answer] = await postedToSlack('The deploy looks fine.');
    // As the agent itself (people's mirrors say where they wrote; agents' do not).
    expect(answer.args).toMatchObject({
      thread_ts: ts,
      username: 'Reviewer',
      icon_url: 'https://example.test/reviewer.png',
    });
  });

  it('follows a Slack edit and a Slack delete in the web channel', async () => {
    const original = await fromSlack('Deploy at 3pm');
    const m = await onWeb(general, 'Deploy at 3pm');
    const changed = {
      type: 'message',
      subtype: 'message_changed',
      hidden: true,
      channel: CHANNEL,
      channel_type: 'channel',
      ts: `${original.ts}1`,
      event_ts: `${original.ts}1`,
      message: {
        type: 'message',
        user: CAROL,
        text: 'Deploy at 4pm',
        ts: original.ts,
        edited: { user: CAROL, ts: `${original.ts}1` },
      },
      previous_message: { type: 'message', user: CAROL, text: 'Deploy at 3pm', ts: original.ts },
    };
    expect((await h.post(eventCallback(changed))).status).toBe(200);
    await vi.waitFor(async () =>
      expect((await h.server.app.store.messages.get(h.workspace.id, m.id))?.body).toBe('Deploy at 4pm'),
    );
    const deleted = {
      type: 'message',
      subtype: 'message_deleted',
      hidden: true,
      channel: CHANNEL,
      channel_type: 'channel',
      deleted_ts: original.ts,
      ts: `${original.ts}2`,
      event_ts: `${original.ts}2`,
      previous_message: { type: 'message', user: CAROL, text: 'Deploy at 4pm', ts: original.ts },
    };
    expect((await h.post(eventCallback(deleted))).status).toBe(200);
    await vi.waitFor(async () => expect(await h.server.app.store.messages.get(h.workspace.id, m.id)).toBeNull());
    expect((await chat.history(alice, general)).messages.map((x) => x.body)).not.toContain('Deploy at 4pm');
  });

  it('follows a deleted thread root, which Slack sends as a change to a tombstone, as a delete in the web channel', async () => {
    const root = await fromSlack('Release checklist, replies below');
    const m = await onWeb(general, 'Release checklist, replies below');
    const reply = await fromSlack('step one done', { thread_ts: root.ts });
    const rootOnWeb = await chat.openThread(alice, m.id);
    await onWeb(rootOnWeb.id, 'step one done');
    // A thread root with replies is not removed in Slack: it becomes Slackbot's "This message was deleted." in place.
    const thread = {
      thread_ts: root.ts,
      reply_count: 1,
      reply_users_count: 1,
      latest_reply: reply.ts,
      reply_users: [CAROL],
      is_locked: false,
      subscribed: false,
    };
    const tombstoned = {
      type: 'message',
      subtype: 'message_changed',
      hidden: true,
      channel: CHANNEL,
      channel_type: 'channel',
      ts: `${root.ts}3`,
      event_ts: `${root.ts}3`,
      message: {
        type: 'message',
        subtype: 'tombstone',
        text: 'This message was deleted.',
        user: 'USLACKBOT',
        hidden: true,
        ts: root.ts,
        parent_user_id: 'USLACKBOT',
        ...thread,
      },
      previous_message: {
        type: 'message',
        user: CAROL,
        text: 'Release checklist, replies below',
        ts: root.ts,
        ...thread,
      },
    };
    expect((await h.post(eventCallback(tombstoned))).status).toBe(200);
    await vi.waitFor(async () => expect(await h.server.app.store.messages.get(h.workspace.id, m.id)).toBeNull());
    expect((await chat.history(alice, general)).messages.map((x) => x.body)).not.toContain('This message was deleted.');
  });

  it('shows a Slack message with a file attached (file_share) in the web channel, and delivers the agent it names', async () => {
    const text = `<@${BOT}> @reviewer the build fails like this`;
    const shared = fileShare({ channel: CHANNEL, channel_type: 'channel', user: CAROL, text });
    // In a bridged channel the mention event steps aside: the file_share message is all that carries it.
    await h.post(eventCallback(shared));
    await h.post(
      eventCallback(appMention({ channel: CHANNEL, user: CAROL, text, ts: shared.ts, extra: { files: shared.files } })),
    );
    const m = await onWeb(general, '@reviewer the build fails like this');
    expect(m.sender).toMatchObject({ displayName: 'carol', kind: 'person' });
    expect(m.via).toBe('Slack');
    const delivered = await vi.waitFor(async () => {
      const items = (await h.server.app.messaging.checkInbox(h.reviewer, h.workspace, 50)).items.filter(
        (i) => i.message.body === '@reviewer the build fails like this',
      );
      if (!items.length) throw new Error('the reviewer has not got it yet');
      return items;
    });
    expect(delivered).toHaveLength(1);
    expect(delivered[0].conversation.id).toBe(general);
    // Both events were handled before a later message in the channel: the agent got it once.
    await fromSlack('after the file');
    await onWeb(general, 'after the file');
    expect(await h.server.app.messaging.unreadCount(h.reviewer, h.workspace)).toBe(0);
  });

  it("counts everyone in the Slack channel in the web channel's audience, so private content stays out", async () => {
    const { app } = h.server;
    const conv = (await app.store.messages.getConversation(h.workspace.id, general))!;
    // Carol is in the Slack channel and has not linked an account: the bridged channel is read by a guest.
    expect(await app.audiences.of(h.workspace, conv)).toMatchObject({ level: 'guest', unlinked: 1 });
    // Unbridged, the same web channel is read only by people of the workspace.
    const [bridge] = await app.bridges.list(SYSTEM, 'eng');
    await app.store.bridges.remove(h.workspace.id, bridge.id);
    expect(await app.audiences.of(h.workspace, conv)).toMatchObject({ unlinked: 0 });
    expect((await app.audiences.of(h.workspace, conv)).level).not.toBe('guest');
    await app.bridges.add(SYSTEM, {
      workspace: 'eng',
      channel: 'general',
      to: [{ surface: 'slack', channel: CHANNEL }],
    });
  });

  /** Waits for the intake item whose summary is `summary`. */
  const intakeItem = (summary: string) =>
    vi.waitFor(async () => {
      const found = (await h.server.app.intake.list(h.workspace, { limit: 50 })).find((i) => i.summary === summary);
      if (!found) throw new Error(`no intake item "${summary}" yet`);
      return found;
    });
  /** Waits for the inbox item of the reviewer with this body. */
  const reviewerGot = (body: string) =>
    vi.waitFor(async () => {
      const found = (await h.server.app.messaging.checkInbox(h.reviewer, h.workspace, 50)).items.find(
        (i) => i.message.body === body,
      );
      if (!found) throw new Error(`the reviewer has not got "${body}" yet`);
      return found;
    });

  it("files a guest's request to an agent as intake, one item per thread", async () => {
    const asked = await fromSlack(`<@${BOT}> @reviewer please fix the login bug`);
    const item = await intakeItem('@reviewer please fix the login bug');
    expect(item).toMatchObject({ kind: 'bug', status: 'new', filedBy: null });
    expect(item.sources).toEqual([
      expect.objectContaining({ surface: 'slack', permalink: expect.stringMatching(/\/archives\/C0BRIDGED\/p\d+/) }),
    ]);
    // A later request in its Slack thread joins that item; one written in the channel is an item of its own.
    await fromSlack(`<@${BOT}> @reviewer please also fix the logout button`, { thread_ts: asked.ts });
    await reviewerGot('@reviewer please also fix the logout button');
    await vi.waitFor(async () =>
      expect((await intakeItem('@reviewer please fix the login bug')).sources).toHaveLength(2),
    );
    await fromSlack(`<@${BOT}> @reviewer please add an export button`);
    const other = await intakeItem('@reviewer please add an export button');
    expect(other.id).not.toBe(item.id);
  });

  it("sends a mention that names nobody to the channel's default agent, and tells the person how to name one when there is none", async () => {
    const set = await postCommand(h, standin, {
      command: '/switchboard',
      text: 'default reviewer',
      user_id: CAROL,
      channel_id: CHANNEL,
    });
    expect(String((await set.json()).text)).toContain("this channel's default agent");
    await fromSlack(`<@${BOT}> the nightly build is red again`);
    const item = await reviewerGot('the nightly build is red again');
    expect(item.conversation.id).toBe(general);
    const cleared = await postCommand(h, standin, {
      command: '/switchboard',
      text: 'default off',
      user_id: CAROL,
      channel_id: CHANNEL,
    });
    expect(String((await cleared.json()).text)).toContain("cleared this channel's default agent");
    const unnamed = await fromSlack(`<@${BOT}> anyone around to help?`);
    // Still mirrored for the people on the web; Carol alone is told how to name an agent.
    await onWeb(general, 'anyone around to help?');
    const told = await vi.waitFor(() => {
      const c = standin
        .callsTo('chat.postEphemeral')
        .find((x) => x.args.user === CAROL && String(x.args.text).startsWith('Name the agent you want'));
      if (!c) throw new Error('Carol was not told yet');
      return c;
    });
    expect(told.args).toMatchObject({ channel: CHANNEL, thread_ts: unnamed.ts });
    expect(
      (await h.server.app.messaging.checkInbox(h.reviewer, h.workspace, 50)).items.map((i) => i.message.body),
    ).not.toContain('anyone around to help?');
  });

  it('sends a mention that names nobody in a thread to the agents of its web thread', async () => {
    const root = await fromSlack('Is the cache warm after the deploy?');
    await fromSlack(`<@${BOT}> @reviewer please warm it`, { thread_ts: root.ts });
    const asked = await reviewerGot('@reviewer please warm it');
    // No default agent in the channel: only the web thread says who takes part.
    await fromSlack(`<@${BOT}> is it done?`, { thread_ts: root.ts });
    const item = await reviewerGot('is it done?');
    expect(item.conversation.id).toBe(asked.conversation.id);
    expect(item.conversation.id).not.toBe(general);
  });

  it('mirrors `/switchboard <agent> …` through the bridge: stored in the web channel, its Slack post the counterpart for thread replies', async () => {
    const cmd = await postCommand(h, standin, {
      command: '/switchboard',
      text: 'reviewer look at the cache hit rate',
      user_id: CAROL,
      channel_id: CHANNEL,
    });
    expect(cmd.status).toBe(200);
    const [askedPost] = await postedToSlack('look at the cache hit rate');
    expect(String(askedPost.args.text)).toContain(`<@${CAROL}> asked *Reviewer*`);
    const item = await reviewerGot('@reviewer look at the cache hit rate');
    expect(item.conversation.id).toBe(general);
    const onWebSide = await onWeb(general, '@reviewer look at the cache hit rate');
    expect(onWebSide.via).toBe('Slack');
    expect(await h.server.app.store.bridges.counterparts(onWebSide.id)).toEqual([
      expect.objectContaining({ externalId: tsOf(askedPost), inbound: true }),
    ]);
    // The asked post is posted once, and a Slack reply under it lands in the web thread of the request.
    expect(
      standin.callsTo('chat.postMessage').filter((c) => String(c.args.text).includes('look at the cache hit rate')),
    ).toHaveLength(1);
    await fromSlack('the rate dropped after Tuesday', { thread_ts: tsOf(askedPost) });
    const thread = await chat.openThread(alice, onWebSide.id);
    await onWeb(thread.id, 'the rate dropped after Tuesday');
  });

  it('adopts a post Slack made when its answer was lost, instead of posting twice', async () => {
    standin.failNext('chat.postMessage', { dropAfterHandling: true });
    const sent = await chat.post(alice, general, 'Posted while the answer got lost');
    await vi.waitFor(async () => {
      const [row] = await h.server.app.store.bridges.counterparts(sent.message!.id);
      if (!row?.externalId) throw new Error('not recorded yet');
    });
    const stored = standin.messages(CHANNEL).filter((m) => String(m.text).includes('Posted while the answer got lost'));
    expect(stored).toHaveLength(1);
  });
});
