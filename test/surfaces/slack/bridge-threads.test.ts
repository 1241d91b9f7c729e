// A Slack channel bridged with a web channel keeps Slack's conversation shape:
// the same conversation, told the same way, as in a Slack channel without a
// bridge. Each case runs once on a plain channel and once on a bridged one, on
// one server: an agent's answer lands in the asker's thread as the agent, a
// reply in that thread reaches the agent, and the done notice of what a
// listener filed goes in the asker's thread; after a restart the thread still
// leads to the agent. Signed Slack events in, the Slack stand-in out.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SYSTEM } from '../../../src/core/actor.ts';
import type { Agent } from '../../../src/core/entities.ts';
import { MESSAGE_EVENT_TYPE } from '../../../src/surfaces/slack/index.ts';
import { chatOf } from '../../../src/surfaces/web/index.ts';
import { SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { appMention, eventCallback, message, nextEventTs } from '../../support/slack/signed-request.ts';
import type { RecordedCall } from '../../support/slack/web-api-standin.ts';
import { startBridged, startHarness, type BridgedHarness, type Harness } from '../../support/slack/harness.ts';
import { takenInboxes } from '../../support/server.ts';

const BOT = SLACK_DEFAULTS.botUserId;
const PLAIN = 'C0PLAINCH';
const BRIDGED = 'C0BRIDGES';
const WAIT = { timeout: 20_000, interval: 50 };

/** Each case: a channel, whether it is bridged with the web #general, and who asks there (unlinked, so a guest). */
const CASES = [
  { name: 'a Slack channel without a bridge', channel: PLAIN, bridged: false, asker: 'U0DANA001' },
  { name: 'a Slack channel bridged with a web channel', channel: BRIDGED, bridged: true, asker: 'U0CAROL01' },
];

describe('threads in Slack, with and without a bridge', () => {
  let bridged: BridgedHarness;
  let h: Harness;
  let triage: Agent;
  /** Everything each agent took from its inbox, by agent id. */
  /** Per channel: the asker's first message and the conversation the agent answered in. */
  const asked = new Map<string, { ts: string; answeredIn: string }>();

  beforeAll(async () => {
    bridged = await startBridged(BRIDGED, { real_name: 'Carol Chen', display_name: 'carol' });
    ({ h } = bridged);
    const { standin } = bridged;
    standin.setUser('U0DANA001', { real_name: 'Dana Diaz', display_name: 'dana' } as never);
    standin.setChannelMembers(PLAIN, [BOT, 'U0DANA001']);
    const { app } = h.server;
    ({ agent: triage } = await app.agents.add(SYSTEM, { name: 'triage', owner: 'alice', displayName: 'Triage' }));
    await app.agents.join(SYSTEM, { agent: 'alice/triage', workspace: 'eng' });
    await app.listening.listen(SYSTEM, 'eng', `slack:${PLAIN}`, 'alice/triage');
    await app.listening.listen(SYSTEM, 'eng', 'general', 'alice/triage');
  });
  afterAll(async () => {
    await h?.stop();
    await bridged?.standin.close();
    await bridged?.db.close();
  });

  const post = async (event: Parameters<typeof eventCallback>[0]) =>
    expect((await h.post(eventCallback(event))).status).toBe(200);
  /** A person's message in a channel (in the thread of `thread_ts`), as Slack sends it. */
  const say = async (channel: string, user: string, text: string, thread_ts?: string) => {
    const event = message({ channel, channel_type: 'channel', user, text, ...(thread_ts ? { thread_ts } : {}) });
    await post(event);
    return event;
  };
  const { got, times } = takenInboxes(() => h);
  /** Our successful posts to a channel whose text contains `text`. */
  const postsTo = (channel: string, text: string) =>
    bridged.standin
      .callsTo('chat.postMessage')
      .filter((c) => c.args.channel === channel && String(c.args.text).includes(text) && c.status === 200);
  const postedTo = (channel: string, text: string) =>
    vi.waitFor(() => {
      const calls = postsTo(channel, text);
      if (!calls.length) throw new Error(`nothing posted to ${channel} with "${text}" yet`);
      return calls;
    }, WAIT);
  /** What Slack sends back for one of our posts: a message event with the bot id and our metadata. */
  const echoOf = (c: RecordedCall) =>
    message({
      channel: String(c.args.channel),
      channel_type: 'channel',
      user: BOT,
      text: String(c.args.text),
      ts: (c.response as { ts: string }).ts,
      ...(c.args.thread_ts ? { thread_ts: String(c.args.thread_ts) } : {}),
      extra: { bot_id: SLACK_DEFAULTS.botId, metadata: c.args.metadata },
    });

  describe.each(CASES)('$name', ({ channel, bridged: isBridged, asker }) => {
    it("posts the agent's answer in the asker's thread, as the agent, once, and never takes its echo back", async () => {
      const { app } = h.server;
      const body = `@reviewer can you check the deploy? (${channel})`;
      const ts = nextEventTs();
      // Slack sends a mention as both a message event and an app_mention event of the same post.
      await post(message({ channel, channel_type: 'channel', user: asker, text: `<@${BOT}> ${body}`, ts }));
      await post(appMention({ channel, user: asker, text: `<@${BOT}> ${body}`, ts }));
      const item = await got(h.reviewer, body);
      const sent = await app.messaging.send({
        workspace: h.workspace,
        sender: h.reviewer,
        conversationId: item.conversation.id,
        body: `The deploy looks fine. (${channel})`,
      });
      asked.set(channel, { ts, answeredIn: sent.conversation!.id });
      const [answer, ...again] = await postedTo(channel, `The deploy looks fine. (${channel})`);
      expect(again).toEqual([]);
      expect(answer.args).toMatchObject({
        thread_ts: ts,
        username: 'Reviewer',
        icon_url: 'https://example.test/reviewer.png',
        metadata: { event_type: MESSAGE_EVENT_TYPE },
      });
      // The first time a guest asks an agent, the link prompt goes to their DM, once.
      const prompts = () => bridged.standin.callsTo('conversations.open').filter((c) => c.args.users === asker);
      await vi.waitFor(() => expect(prompts()).toHaveLength(1), WAIT);
      if (isBridged) {
        // On the web, the answer is in the thread of the mirrored message, as the agent.
        const { chat, alice, general } = bridged;
        const thread = await chat.history(alice, sent.conversation!.id);
        expect(thread.root).toMatchObject({ body, via: 'Slack' });
        expect(thread.messages.at(-1)).toMatchObject({ sender: { displayName: 'Reviewer', kind: 'agent' } });
        expect((await chat.history(alice, general)).messages.map((m) => m.body)).not.toContain(
          `The deploy looks fine. (${channel})`,
        );
      }
      // Our own post coming back changes nothing; a later mention shows both events were handled once.
      await post(echoOf(answer));
      const later = `@reviewer and the staging deploy? (${channel})`;
      await post(appMention({ channel, user: asker, text: `<@${BOT}> ${later}` }));
      await say(channel, asker, `<@${BOT}> ${later}`);
      await got(h.reviewer, later);
      expect(times(h.reviewer, body)).toBe(1);
      expect(times(h.reviewer, `The deploy looks fine. (${channel})`)).toBe(0);
      expect(prompts()).toHaveLength(1);
    });

    it('delivers a reply in that thread to the agent once, and the listener overhears it', async () => {
      const { ts, answeredIn } = asked.get(channel)!;
      const reply = `thanks, also check the logs (${channel})`;
      await say(channel, asker, reply, ts);
      const item = await got(h.reviewer, reply);
      expect(item).toMatchObject({ overheard: false, conversation: { id: answeredIn } });
      expect((await got(triage, reply)).overheard).toBe(true);
      // On the web side of the bridge, a reply in the same thread reaches the agent too, as it does from Slack.
      const fromWeb = `and the alerts, from the web (${channel})`;
      if (isBridged) {
        await bridged.chat.post(bridged.alice, answeredIn, fromWeb);
        expect((await got(h.reviewer, fromWeb)).conversation.id).toBe(answeredIn);
        const [mirrored] = await postedTo(channel, fromWeb);
        expect(mirrored.args).toMatchObject({ thread_ts: ts, username: 'alice (via web)' });
      }
      // A later reply in the same thread comes after it: the first one reached the agent once.
      await say(channel, asker, `and the metrics (${channel})`, ts);
      await got(h.reviewer, `and the metrics (${channel})`);
      expect(times(h.reviewer, reply)).toBe(1);
      expect(times(h.reviewer, fromWeb)).toBe(isBridged ? 1 : 0);
      // The agent answers the follow-up in the same thread.
      await h.server.app.messaging.send({
        workspace: h.workspace,
        sender: h.reviewer,
        conversationId: item.conversation.id,
        body: `Logs are clean. (${channel})`,
      });
      const [answer] = await postedTo(channel, `Logs are clean. (${channel})`);
      expect(answer.args).toMatchObject({ thread_ts: ts, username: 'Reviewer' });
    });

    it("shows the agent's approval card in the asker's thread, once", async () => {
      const { app } = h.server;
      const body = `@reviewer may I roll back version 41? (${channel})`;
      const ts = nextEventTs();
      await post(message({ channel, channel_type: 'channel', user: asker, text: `<@${BOT}> ${body}`, ts }));
      await post(appMention({ channel, user: asker, text: `<@${BOT}> ${body}`, ts }));
      const item = await got(h.reviewer, body);
      const approval = await app.approvals.request(h.reviewer, h.workspace, {
        title: `Roll back to version 40 (${channel})`,
        details: 'Version 41 breaks the export.',
        conversationId: item.conversation.id,
      });
      const [card] = await postedTo(channel, `Roll back to version 40 (${channel})`);
      expect(card.args).toMatchObject({ thread_ts: ts, username: 'Reviewer' });
      await vi.waitFor(async () => expect(await app.approvals.views(approval.id, 'slack')).toHaveLength(1), WAIT);
      expect(postsTo(channel, `Roll back to version 40 (${channel})`)).toHaveLength(1);
      if (isBridged) {
        // On the web, its card is in the thread of the mirrored message.
        const thread = await bridged.chat.history(bridged.alice, approval.conversationId!);
        expect(thread.root?.body).toBe(body);
      }
    });

    it('files what a listener overheard as intake, with the Slack permalink, and tells the asker in their thread once it is done', async () => {
      const { app } = h.server;
      const text = `the export button is broken (${channel})`;
      const plain = await say(channel, asker, text);
      const heard = await got(triage, text);
      expect(heard.overheard).toBe(true);
      const item = await app.intake.file(triage, h.workspace, {
        title: 'Export button broken',
        kind: 'bug',
        summary: text,
        sourceIds: [heard.message.id],
      });
      expect(item.sources).toEqual([
        expect.objectContaining({
          surface: 'slack',
          permalink: expect.stringMatching(new RegExp(`/archives/${channel}/p\\d+`)),
        }),
      ]);
      // An edit in Slack follows to what Switchboard stored (the source quotes it).
      const edited = `the export button is broken on Safari (${channel})`;
      await post({
        type: 'message',
        subtype: 'message_changed',
        hidden: true,
        channel,
        channel_type: 'channel',
        ts: `${plain.ts}1`,
        event_ts: `${plain.ts}1`,
        message: {
          type: 'message',
          user: asker,
          text: edited,
          ts: plain.ts,
          edited: { user: asker, ts: `${plain.ts}1` },
        },
        previous_message: { type: 'message', user: asker, text, ts: plain.ts },
      } as never);
      await vi.waitFor(
        async () => expect((await app.store.messages.get(h.workspace.id, heard.message.id))?.body).toBe(edited),
        WAIT,
      );
      const { told } = await app.intake.update(triage, h.workspace, { id: item.id, status: 'done' });
      expect(told).toBe(1);
      const [notice, ...again] = await postedTo(channel, 'the change you asked for is now live');
      expect(again).toEqual([]);
      expect(notice.args).toMatchObject({ thread_ts: plain.ts, username: 'Switchboard' });
      // Done again after reopening tells nobody twice.
      await app.intake.update(triage, h.workspace, { id: item.id, status: 'in progress' });
      await app.intake.update(triage, h.workspace, { id: item.id, status: 'done' });
      expect(postsTo(channel, 'the change you asked for is now live')).toHaveLength(1);
    });
  });

  it('still leads a reply in the thread to the agent after a restart', async () => {
    await h.stop();
    h = await startHarness({ database: bridged.db, standin: bridged.standin });
    for (const { channel, asker } of CASES) {
      const { ts, answeredIn } = asked.get(channel)!;
      const reply = `one more thing after the restart (${channel})`;
      await say(channel, asker, reply, ts);
      expect((await got(h.reviewer, reply)).conversation.id).toBe(answeredIn);
    }
    // The web chat of the restarted server shows the bridged thread as before.
    const { chat } = chatOf(h.server.app);
    const alice = await chat.viewer((await h.server.app.store.people.get('alice'))!.id, 'eng');
    const thread = await chat.history(alice, asked.get(BRIDGED)!.answeredIn);
    expect(thread.messages.map((m) => m.body)).toContain(`one more thing after the restart (${BRIDGED})`);
  });
});
