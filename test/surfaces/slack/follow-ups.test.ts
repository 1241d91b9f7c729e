// Thread follow-ups, group DMs and the slash command's unknown first word,
// through the real Bolt mount and the Slack stand-in: a reply in a thread an
// agent took part in reaches it without a second mention, other threads stay
// private, group DMs (mpim) work like channels, and a word that is neither a
// command nor an agent is answered with the agents here and how to ask one.
// Events are handled one at a time here, so "was not delivered" can be checked
// by waiting for a later message instead of for a timer.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import type { InboxItem } from '../../../src/core/messaging/message.ts';
import { pgliteDb } from '../../support/db.ts';
import { SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import {
  appMention,
  eventCallback,
  message,
  nextEventTs,
  threadBroadcast,
} from '../../support/slack/signed-request.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import { postCommand, startHarness, type Harness } from '../../support/slack/harness.ts';

const BOT = `<@${SLACK_DEFAULTS.botUserId}>`;
const CAROL = 'U0CAROL01';
const DAVE = 'U0DAVE001';
const COMMAND = '/sb';

describe('Slack thread follow-ups, group DMs and unknown command words', () => {
  let db: Database;
  let standin: SlackStandin;
  let h: Harness;
  const seen: InboxItem[] = [];

  /** Everything the reviewer got so far (check_inbox marks items read, so they are kept here). */
  const reviewerInbox = async () => {
    seen.push(...(await h.server.app.messaging.checkInbox(h.reviewer, h.workspace, 50)).items);
    return seen;
  };
  const received = (body: string) =>
    vi.waitFor(
      async () => {
        const found = (await reviewerInbox()).find((i) => i.message.body === body);
        if (!found) throw new Error(`the reviewer has not received "${body}"`);
        return found;
      },
      { timeout: 20_000, interval: 50 },
    );
  const send = async (event: Parameters<typeof eventCallback>[0]) => {
    const res = await h.post(eventCallback(event));
    expect(res.status).toBe(200);
  };
  const reply = (
    text: string,
    thread_ts: string,
    channel = 'C0GENERAL',
    channel_type: 'channel' | 'group' | 'mpim' = 'channel',
    user = DAVE,
  ) => send(message({ user, channel, channel_type, text, thread_ts }));

  beforeAll(async () => {
    [db, standin] = await Promise.all([pgliteDb.open(), startSlackStandin()]);
    h = await startHarness({ database: db, standin, seed: true, env: { SLACK_COMMAND: COMMAND } });
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  it('delivers a reply in a thread the agent took part in, without a second mention, in the same conversation', async () => {
    const ts = nextEventTs();
    await send(appMention({ user: CAROL, channel: 'C0GENERAL', ts, text: `${BOT} @reviewer is the build green?` }));
    const first = await received('@reviewer is the build green?');
    await reply('it failed on the lint step', ts);
    const followUp = await received('it failed on the lint step');
    expect(followUp.conversation.id).toBe(first.conversation.id);
    expect(followUp.message.externalId).not.toBe(first.message.externalId);
  });

  it("delivers a reply also sent to the channel (thread_broadcast) in the thread's conversation", async () => {
    const ts = nextEventTs();
    await send(appMention({ user: CAROL, channel: 'C0GENERAL', ts, text: `${BOT} @reviewer did the migration run?` }));
    const first = await received('@reviewer did the migration run?');
    await send(
      threadBroadcast({
        user: DAVE,
        channel: 'C0GENERAL',
        channel_type: 'channel',
        thread_ts: ts,
        text: 'it ran, everyone: the schema changed',
        root: { user: CAROL, text: `${BOT} @reviewer did the migration run?` },
      }),
    );
    const broadcast = await received('it ran, everyone: the schema changed');
    expect(broadcast.conversation.id).toBe(first.conversation.id);
  });

  it('keeps replies in threads no agent took part in, and top-level chatter, away from agents', async () => {
    const ts = nextEventTs();
    await send(message({ user: CAROL, channel: 'C0GENERAL', channel_type: 'channel', text: 'lunch anyone?', ts }));
    await reply('yes, at noon', ts);
    // A later follow-up in an agent's thread is handled after those two.
    const agentThread = nextEventTs();
    await send(
      appMention({ user: CAROL, channel: 'C0GENERAL', ts: agentThread, text: `${BOT} @reviewer marker thread` }),
    );
    await reply('marker reply', agentThread);
    await received('marker reply');
    const bodies = (await reviewerInbox()).map((i) => i.message.body);
    expect(bodies).not.toContain('lunch anyone?');
    expect(bodies).not.toContain('yes, at noon');
  });

  it('delivers a reply that mentions the app once, although Slack sends it both as a message and as a mention', async () => {
    const ts = nextEventTs();
    await send(appMention({ user: CAROL, channel: 'C0GENERAL', ts, text: `${BOT} @reviewer thread for a double` }));
    await received('@reviewer thread for a double');
    const replyTs = nextEventTs();
    const text = `${BOT} what about the docs?`;
    await send(
      message({ user: DAVE, channel: 'C0GENERAL', channel_type: 'channel', text, ts: replyTs, thread_ts: ts }),
    );
    await send(appMention({ user: DAVE, channel: 'C0GENERAL', text, ts: replyTs, thread_ts: ts }));
    await reply('marker after the double', ts);
    await received('marker after the double');
    expect((await reviewerInbox()).filter((i) => i.message.body === 'what about the docs?')).toHaveLength(1);
  });

  it('works in a group DM: a mention starts a thread there, replies in it follow, other messages do not', async () => {
    const ts = nextEventTs();
    await send(appMention({ user: CAROL, channel: 'G0GROUPDM1', ts, text: `${BOT} @reviewer from the group DM` }));
    const first = await received('@reviewer from the group DM');
    expect(first.conversation.surface).toBe('slack');
    await send(message({ user: DAVE, channel: 'G0GROUPDM1', channel_type: 'mpim', text: 'not for agents' }));
    await reply('group follow-up', ts, 'G0GROUPDM1', 'mpim');
    const followUp = await received('group follow-up');
    expect(followUp.conversation.id).toBe(first.conversation.id);
    expect((await reviewerInbox()).map((i) => i.message.body)).not.toContain('not for agents');
  });

  it('answers a slash command whose first word is neither a command nor an agent with the agents here and how to ask, naming the configured command', async () => {
    const res = await postCommand(h, standin, {
      command: COMMAND,
      text: 'revewer please look',
      user_id: CAROL,
      channel_id: 'C0GENERAL',
    });
    const answer = (await res.json()) as { response_type: string; text: string };
    expect(answer.response_type).toBe('ephemeral');
    expect(answer.text).toContain('`revewer` is not one of my commands.');
    expect(answer.text).toContain('There is no agent `@revewer`');
    expect(answer.text).toContain('`@reviewer` — Reviewer: reviews pull requests');
    expect(answer.text).toContain(`\`${COMMAND} reviewer look at #418\``);
    expect(answer.text).toContain(`\`${COMMAND} help\` lists the commands.`);
    expect(answer.text).not.toContain('/switchboard');
  });
});
