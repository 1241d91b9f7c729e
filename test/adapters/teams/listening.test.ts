// Teams with the manifest's RSC permissions sends the bot every channel and
// group chat message, not only mentions. Through the real CloudAdapter (Bot
// Framework JWTs from the stand-in), on real PostgreSQL when available: the
// bot answers only when mentioned, a listening agent hears the whole channel
// flagged overheard, and the channel is told when listening starts and stops.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/adapters/db/client.ts';
import type { InboxItem } from '../../../src/domain/messaging/types.ts';
import { pgliteDb, postgresDb } from '../../support/db.ts';
import { channelMention, channelMessage, groupChatMessage } from '../../support/teams/activities.ts';
import { startTeamsStandin, type TeamsStandin } from '../../support/teams/standin.ts';
import { inbox, startHarness, type Harness } from './harness.ts';

const WAIT = { timeout: 20_000, interval: 50 };
const database = postgresDb() ?? pgliteDb;

describe(`Teams messages that do not mention the bot (${database.kind})`, () => {
  let db: Database;
  let standin: TeamsStandin;
  let h: Harness;
  const seen: InboxItem[] = [];

  const received = (body: string) => vi.waitFor(async () => {
    seen.push(...await inbox(h));
    const found = seen.find((i) => i.message.body === body);
    if (!found) throw new Error(`the reviewer has not received "${body}"`);
    return found;
  }, WAIT);
  /** Everything the bot said in a conversation (replies and posts). */
  const botSaid = (conversationId: string) => [...standin.delivered('replyToActivity'), ...standin.delivered('sendToConversation')]
    .filter((c) => c.conversationId === conversationId);

  beforeAll(async () => {
    [db, standin] = await Promise.all([database.open(), startTeamsStandin()]);
    h = await startHarness({ database: db, standin });
  });
  afterAll(async () => { await h?.stop(); await standin?.close(); await db?.close(); });

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
});
