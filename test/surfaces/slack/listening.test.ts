// A Slack channel with a listening agent, through the real Slack mount (signed
// requests) and the Web API stand-in, on real PostgreSQL: the channel is told
// when listening starts, plain channel messages reach the agent flagged
// overheard, and the agent answers in a thread only once mentioned there.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { SLACK_INBOUND } from '../../../src/surfaces/slack/topics.ts';
import { listeningCommands } from '../../../src/cli/listening-commands.ts';
import type { InboxItem } from '../../../src/core/messaging/message.ts';
import { pgliteDb, postgresDb } from '../../support/db.ts';
import { SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { appMention, eventCallback, message } from '../../support/slack/signed-request.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import { startHarness, type Harness } from '../../support/slack/harness.ts';

const BOT = `<@${SLACK_DEFAULTS.botUserId}>`;
const CAROL = 'U0CAROL01';
const CHANNEL = 'C0GENERAL';
const database = postgresDb() ?? pgliteDb;

describe(`a listening agent in a Slack channel (${database.kind})`, () => {
  let db: Database;
  let standin: SlackStandin;
  let h: Harness;
  const seen: InboxItem[] = [];

  const received = (body: string) =>
    vi.waitFor(
      async () => {
        seen.push(...(await h.server.app.messaging.checkInbox(h.reviewer, h.workspace, 50)).items);
        const found = seen.find((i) => i.message.body === body);
        if (!found) throw new Error(`the reviewer has not received "${body}"`);
        return found;
      },
      { timeout: 20_000, interval: 50 },
    );
  const say = (text: string, extra: { thread_ts?: string } = {}) =>
    h.post(eventCallback(message({ user: CAROL, channel: CHANNEL, channel_type: 'channel', text, ...extra })));

  beforeAll(async () => {
    [db, standin] = await Promise.all([database.open(), startSlackStandin()]);
    standin.setUser(CAROL, { real_name: 'Carol Chen', display_name: 'carol' });
    h = await startHarness({ database: db, standin, seed: true });
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  it('tells the channel when an agent starts listening, and from then on the agent overhears plain messages', async () => {
    expect((await say('before anyone listens')).status).toBe(200);
    // The 200 only means stored: its inbound job must have run before anyone listens, or the agent could overhear it.
    await vi.waitFor(
      async () => {
        const open = (await h.server.app.store.outbox.list({ topic: SLACK_INBOUND })).filter(
          (e) => e.status !== 'done',
        );
        if (open.length) throw new Error('the message is not handled yet');
      },
      { timeout: 20_000, interval: 50 },
    );
    const out = await listeningCommands['channel listen'](h.server.app, {
      workspace: 'eng',
      channel: `slack:${CHANNEL}`,
      agent: 'alice/reviewer',
    });
    expect(out.text).toContain(`now listens to Slack channel ${CHANNEL}`);
    const note = await vi.waitFor(
      () => {
        const c = standin
          .callsTo('chat.postMessage')
          .find((x) => x.args.channel === CHANNEL && String(x.args.text).includes('now listens to this channel'));
        if (!c) throw new Error('no note in the channel yet');
        return c;
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(note.args.thread_ts).toBeUndefined();
    expect(String(note.args.text)).toContain('answers only when someone mentions it');

    expect((await say('the export to CSV drops accents')).status).toBe(200);
    const item = await received('the export to CSV drops accents');
    expect(item.overheard).toBe(true);
    expect(item.message.permalink).toMatch(/^https?:\/\//);
    expect(seen.find((i) => i.message.body === 'before anyone listens')).toBeUndefined();
  });

  it('refuses the agent a post in the thread it only overheard, and lets it answer once mentioned there', async () => {
    const item = await received('the export to CSV drops accents');
    const refused = h.server.app.messaging.send({
      workspace: h.workspace,
      sender: h.reviewer,
      conversationId: item.conversation.id,
      body: 'I can fix that',
    });
    await expect(refused).rejects.toThrow(/only overheard that conversation/);

    const root = item.message.externalId!;
    await h.post(
      eventCallback(
        appMention({ user: CAROL, channel: CHANNEL, thread_ts: root, text: `${BOT} @reviewer can you take this?` }),
      ),
    );
    const mention = await received('@reviewer can you take this?');
    expect(mention).toMatchObject({ overheard: false, conversation: { id: item.conversation.id } });
    await h.server.app.messaging.send({
      workspace: h.workspace,
      sender: h.reviewer,
      conversationId: item.conversation.id,
      body: 'On it: the encoder drops them.',
    });
    const posted = await vi.waitFor(
      () => {
        const c = standin
          .callsTo('chat.postMessage')
          .find((x) => String(x.args.text).includes('the encoder drops them'));
        if (!c) throw new Error('not posted yet');
        return c;
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(posted.args).toMatchObject({ channel: CHANNEL, thread_ts: root });
  });

  it('stops hearing the channel once unlistened, and the channel is told', async () => {
    await listeningCommands['channel unlisten'](h.server.app, {
      workspace: 'eng',
      channel: `slack:${CHANNEL}`,
      agent: 'alice/reviewer',
    });
    await vi.waitFor(
      () => {
        if (
          !standin
            .callsTo('chat.postMessage')
            .some((x) => String(x.args.text).includes('no longer listens to this channel'))
        )
          throw new Error('no note yet');
      },
      { timeout: 20_000, interval: 50 },
    );
    await say('after unlisten');
    // A later mention is delivered; the plain message before it never was.
    await h.post(eventCallback(appMention({ user: CAROL, channel: CHANNEL, text: `${BOT} @reviewer ping` })));
    await received('@reviewer ping');
    expect(seen.find((i) => i.message.body === 'after unlisten')).toBeUndefined();
  });
});
