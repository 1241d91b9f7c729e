// Teams with the manifest's RSC permissions sends the bot every channel and
// group chat message, not only mentions. Through the real CloudAdapter (Bot
// Framework JWTs from the stand-in), on real PostgreSQL when available: the
// bot answers only when mentioned, a listening agent hears the whole channel
// flagged overheard, and the channel is told when listening starts and stops.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { listeningCommands } from '../../../src/cli/listening-commands.ts';
import type { InboxItem } from '../../../src/core/messaging/message.ts';
import { pgliteDb, postgresDb } from '../../support/db.ts';
import { TEAMS_DEFAULTS } from '../../support/teams/defaults.ts';
import { channelMention, channelMessage, groupChatMessage } from '../../support/teams/activities.ts';
import { startTeamsStandin, type TeamsStandin } from '../../support/teams/standin.ts';
import { inbox, startHarness, type Harness } from '../../support/teams/harness.ts';

const WAIT = { timeout: 20_000, interval: 50 };
const database = postgresDb() ?? pgliteDb;

describe(`Teams messages that do not mention the bot (${database.kind})`, () => {
  let db: Database;
  let standin: TeamsStandin;
  let h: Harness;
  const seen: InboxItem[] = [];

  const received = (body: string) =>
    vi.waitFor(async () => {
      seen.push(...(await inbox(h)));
      const found = seen.find((i) => i.message.body === body);
      if (!found) throw new Error(`the reviewer has not received "${body}"`);
      return found;
    }, WAIT);
  /** Everything the bot said in a conversation (replies and posts). */
  const botSaid = (conversationId: string) =>
    [...standin.delivered('replyToActivity'), ...standin.delivered('sendToConversation')].filter(
      (c) => c.conversationId === conversationId,
    );

  beforeAll(async () => {
    [db, standin] = await Promise.all([database.open(), startTeamsStandin()]);
    h = await startHarness({ database: db, standin });
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  it('are not answered, and reach no agent, while nobody listens to the channel', async () => {
    // A command word and an agent's name, without the mention: written to the channel, not to the bot.
    const plain = channelMessage(standin, { text: 'help' });
    const asked = channelMessage(standin, { text: 'ask reviewer to look at PR 7', threadRootId: plain.id });
    const chat = groupChatMessage(standin, { text: 'agents', mention: false });
    for (const a of [plain, asked, chat]) expect((await h.post(a)).status).toBe(200);
    // Activities of one conversation are handled in order: once these mentions are delivered, the plain ones were handled.
    await h.post(channelMention(standin, { text: 'ask reviewer to look at PR 8', threadRootId: plain.id }));
    await h.post(groupChatMessage(standin, { text: 'ask reviewer to look at PR 9' }));
    await received('ask reviewer to look at PR 8');
    await received('ask reviewer to look at PR 9');
    expect(seen.map((i) => i.message.body)).not.toContain('ask reviewer to look at PR 7');
    expect(botSaid(plain.conversation.id)).toEqual([]);
    expect(botSaid(chat.conversation.id).filter((c) => JSON.stringify(c.activity).includes('Agents here'))).toEqual([]);
  });

  const CHANNEL = TEAMS_DEFAULTS.channelId;
  const listen = (stop = false) =>
    listeningCommands['channel listen'](h.server.app, {
      workspace: 'eng',
      channel: `teams:${CHANNEL}`,
      agent: 'alice/reviewer',
      stop,
    });
  /** The bot's new post in the channel itself (not in a reply chain) that says `text`. */
  const channelNote = (text: string) =>
    vi.waitFor(() => {
      const found = standin
        .delivered('sendToConversation')
        .find((c) => c.conversationId === CHANNEL && JSON.stringify(c.activity).includes(text));
      if (!found) throw new Error(`no "${text}" in the channel yet`);
      return found;
    }, WAIT);

  it('tells the channel when an agent starts listening, and from then on the agent overhears every channel message', async () => {
    const out = await listen();
    expect(out.text).toContain(`alice/reviewer now listens to Teams channel ${CHANNEL}`);
    const note = await channelNote('now listens to this channel');
    expect(JSON.stringify(note.activity)).toContain('answers only when someone mentions it');

    const plain = channelMessage(standin, { text: 'the export to CSV drops accents' });
    expect((await h.post(plain)).status).toBe(200);
    const item = await received('the export to CSV drops accents');
    expect(item.overheard).toBe(true);
    expect(item.conversation).toMatchObject({ surface: 'teams', kind: 'external' });
    expect(item.message.permalink).toContain(
      `https://teams.microsoft.com/l/message/${encodeURIComponent(CHANNEL)}/${plain.id}`,
    );
    // A reply in the chain nobody addressed is heard too, in the same conversation.
    await h.post(channelMessage(standin, { text: 'same for umlauts', threadRootId: plain.id }));
    expect(await received('same for umlauts')).toMatchObject({
      overheard: true,
      conversation: { id: item.conversation.id },
    });
    // Another channel, and a group chat, have no listener (each followed by a mention there, handled after it).
    const other = '19:0therChannel7f3a@thread.tacv2';
    const elsewhere = channelMessage(standin, { text: 'elsewhere', channelId: other });
    await h.post(elsewhere);
    await h.post(
      channelMention(standin, { text: 'ask reviewer to look elsewhere', channelId: other, threadRootId: elsewhere.id }),
    );
    await h.post(groupChatMessage(standin, { text: 'in the group chat', mention: false }));
    await h.post(groupChatMessage(standin, { text: 'ask reviewer to read the group chat' }));
    await received('ask reviewer to look elsewhere');
    await received('ask reviewer to read the group chat');
    expect(seen.map((i) => i.message.body)).not.toEqual(expect.arrayContaining(['elsewhere']));
    expect(seen.map((i) => i.message.body)).not.toEqual(expect.arrayContaining(['in the group chat']));
    expect(botSaid(plain.conversation.id)).toEqual([]);
  });

  it('refuses the agent a post in the chain it only overheard, and lets it answer there once mentioned', async () => {
    const item = await received('the export to CSV drops accents');
    const refused = h.server.app.messaging.send({
      workspace: h.workspace,
      sender: h.reviewer,
      conversationId: item.conversation.id,
      body: 'I can fix that',
    });
    await expect(refused).rejects.toThrow(/only overheard that conversation/);

    const root = item.message.externalId!;
    await h.post(channelMention(standin, { text: '@reviewer can you take this?', threadRootId: root }));
    expect(await received('@reviewer can you take this?')).toMatchObject({
      overheard: false,
      conversation: { id: item.conversation.id },
    });
    await h.server.app.messaging.send({
      workspace: h.workspace,
      sender: h.reviewer,
      conversationId: item.conversation.id,
      body: 'On it: the encoder drops them.',
    });
    const posted = await vi.waitFor(() => {
      const found = standin
        .delivered('sendToConversation')
        .find((c) => JSON.stringify(c.activity).includes('the encoder drops them'));
      if (!found) throw new Error('not posted yet');
      return found;
    }, WAIT);
    expect(posted.conversationId).toBe(`${CHANNEL};messageid=${root}`);
  });

  it('stops hearing the channel once unlistened, and the channel is told', async () => {
    expect((await listen(true)).text).toBe(`alice/reviewer no longer listens to Teams channel ${CHANNEL}.`);
    await channelNote('no longer listens to this channel');
    const after = channelMessage(standin, { text: 'after unlisten' });
    await h.post(after);
    await h.post(channelMention(standin, { text: 'ask reviewer to ping', threadRootId: after.id }));
    await received('ask reviewer to ping');
    expect(seen.map((i) => i.message.body)).not.toEqual(expect.arrayContaining(['after unlisten']));
  });
});
