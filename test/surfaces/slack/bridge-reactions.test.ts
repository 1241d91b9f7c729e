// Reactions, edits and deletes across a web channel bridged with a Slack
// channel: signed Slack events in, Web API calls out to the Slack stand-in
// (reactions.add/remove, chat.update, chat.delete), on real PostgreSQL when
// TEST_DATABASE_URL is set. The app's own reactions never come back.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Viewer } from '../../../src/core/channels/access.ts';
import type { ChatService } from '../../../src/surfaces/web/pages/chat-service.ts';
import { SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { eventCallback, message } from '../../support/slack/signed-request.ts';
import type { SlackStandin } from '../../support/slack/web-api-standin.ts';
import { startBridged, type BridgedHarness, type Harness } from '../../support/slack/harness.ts';

const BOT = SLACK_DEFAULTS.botUserId;
const CAROL = 'U0CAROL01';
const CHANNEL = 'C0REACTED';

describe('reactions, edits and deletes across a bridged Slack channel', () => {
  let standin: SlackStandin;
  let h: Harness;
  let chat: ChatService;
  let alice: Viewer;
  let general: string;

  /** Posts on the web and waits for its mirror in Slack; returns the web id and the Slack ts. */
  const mirrored = async (body: string) => {
    const sent = await chat.post(alice, general, body);
    const ts = await vi.waitFor(() => {
      const call = standin
        .callsTo('chat.postMessage')
        .find((c) => c.args.channel === CHANNEL && String(c.args.text).includes(body) && c.status === 200);
      if (!call) throw new Error(`"${body}" is not in Slack yet`);
      return (call.response as { ts: string }).ts;
    });
    await vi.waitFor(async () =>
      expect((await h.server.app.store.bridges.counterparts(sent.message!.id))[0]?.externalId).toBe(ts),
    );
    return { id: sent.message!.id, ts };
  };
  const reaction = (type: 'reaction_added' | 'reaction_removed', user: string, name: string, ts: string) =>
    h.post(
      eventCallback({
        type,
        user,
        reaction: name,
        item: { type: 'message', channel: CHANNEL, ts },
        item_user: BOT,
        event_ts: `${Date.now() / 1000}`,
      }),
    );
  const reactionsOnWeb = async (id: string) =>
    (await chat.history(alice, general)).messages.find((m) => m.id === id)?.reactions;
  const slackReactions = (ts: string) => standin.message(CHANNEL, ts)?.reactions ?? [];

  let bridged: BridgedHarness;
  beforeAll(async () => {
    bridged = await startBridged(CHANNEL, {
      real_name: 'Carol Chen',
      display_name: 'carol',
      email: 'carol@example.test',
    });
    ({ standin, h, chat, alice, general } = bridged);
  });
  afterAll(async () => {
    await bridged?.stop();
  });

  it("puts the app's reaction on the Slack message while someone on the web holds the emoji, and takes it back after", async () => {
    const { id, ts } = await mirrored('Release is out');
    await chat.reactions.set(alice, id, 'thumbsup', true);
    await vi.waitFor(() => expect(slackReactions(ts)).toEqual([{ name: '+1', users: [BOT], count: 1 }]));
    expect(
      standin
        .callsTo('reactions.add')
        .filter((c) => c.args.timestamp === ts)
        .map((c) => c.args),
    ).toEqual([expect.objectContaining({ channel: CHANNEL, name: 'thumbsup' })]);
    await chat.reactions.set(alice, id, 'thumbsup', false);
    await vi.waitFor(() => expect(slackReactions(ts)).toEqual([]));
    expect(standin.callsTo('reactions.remove').filter((c) => c.args.timestamp === ts)).toHaveLength(1);
  });

  it("shows a Slack user's reaction on the web copy as theirs, follows its removal, and ignores the app's own", async () => {
    const { id, ts } = await mirrored('Who is in for lunch?');
    expect((await reaction('reaction_added', CAROL, '+1::skin-tone-3', ts)).status).toBe(200);
    await vi.waitFor(async () =>
      expect(await reactionsOnWeb(id)).toEqual([{ emoji: 'thumbsup', count: 1, mine: false, names: ['carol'] }]),
    );
    // Slack's echo of the app's own reaction changes nothing.
    await reaction('reaction_added', BOT, 'tada', ts);
    await reaction('reaction_removed', CAROL, '+1', ts);
    await vi.waitFor(async () => expect(await reactionsOnWeb(id)).toEqual([]));
    // Carol's reaction is Slack's own: the app never mirrors it back there.
    expect(standin.callsTo('reactions.add').filter((c) => c.args.timestamp === ts)).toHaveLength(0);
  });

  it('updates and deletes the Slack post when its web message is edited or deleted', async () => {
    const { id, ts } = await mirrored('Deploy at 3pm');
    await chat.edit(alice, id, 'Deploy at **4pm**');
    await vi.waitFor(() => expect(standin.message(CHANNEL, ts)?.text).toContain('4pm'));
    expect(standin.callsTo('chat.update').filter((c) => c.args.ts === ts)).toHaveLength(1);
    await chat.remove(alice, id);
    await vi.waitFor(() => expect(standin.message(CHANNEL, ts)).toBeUndefined());
    expect(standin.callsTo('chat.delete').filter((c) => c.args.ts === ts && c.status === 200)).toHaveLength(1);
  });

  it('refuses to edit from the web a message written in Slack', async () => {
    const event = message({ channel: CHANNEL, channel_type: 'channel', user: CAROL, text: 'written in Slack' });
    await h.post(eventCallback(event));
    const copy = await vi.waitFor(async () => {
      const m = (await chat.history(alice, general)).messages.find((x) => x.body === 'written in Slack');
      if (!m) throw new Error('not on the web yet');
      return m;
    });
    await expect(chat.edit(alice, copy.id, 'changed')).rejects.toThrow(/only edit your own messages|written in Slack/);
  });
});
