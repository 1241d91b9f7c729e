// People talk to agents from Teams through the real CloudAdapter and its Bot
// Framework authentication; agents answer in the same chat or reply chain,
// under their own name and avatar.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/adapters/db/client.ts';
import { pgliteDb } from '../../support/db.ts';
import { channelMention, personalMessage } from '../../support/teams/activities.ts';
import { TEAMS_DEFAULTS } from '../../support/teams/defaults.ts';
import { startTeamsStandin, type TeamsStandin, type WireActivity } from '../../support/teams/standin.ts';
import { inbox, mentionAndReceive, startHarness, type Harness } from './harness.ts';

const card = (a: WireActivity | undefined) => (a?.attachments as Array<{ contentType: string; content: Record<string, unknown> }> | undefined)?.[0];

describe('talking to agents from Teams', () => {
  let db: Database;
  let standin: TeamsStandin;
  let h: Harness;

  beforeAll(async () => {
    [db, standin] = await Promise.all([pgliteDb.open(), startTeamsStandin()]);
    h = await startHarness({ database: db, standin });
  });
  afterAll(async () => { await h?.stop(); await standin?.close(); await db?.close(); });

  it('delivers a channel mention to the agent named, and posts its answer in the same reply chain under its header', async () => {
    const { item, activity } = await mentionAndReceive(h, standin);
    expect(item.conversation).toMatchObject({ surface: 'teams', kind: 'external' });
    expect(item.conversation.permalink).toContain(`https://teams.microsoft.com/l/message/${encodeURIComponent(TEAMS_DEFAULTS.channelId)}/${activity.id}`);
    expect(item.sender.displayName).toBe('Guest');
    expect(item.message.askerIdentityId).not.toBeNull();

    const sent = await h.server.app.messaging.send({ workspace: h.workspace, sender: h.reviewer, conversationId: item.conversation.id, body: 'PR 12 looks good.' });

    const post = await vi.waitFor(() => {
      const found = standin.delivered('sendToConversation').find((c) => JSON.stringify(c.activity).includes('PR 12 looks good.'));
      expect(found).toBeDefined();
      return found!;
    });
    expect(post.conversationId).toBe(activity.conversation.id);
    const content = card(post.activity)!;
    expect(content.contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(JSON.stringify(content.content)).toContain('"text":"Reviewer"');
    expect(JSON.stringify(content.content)).toContain('https://example.test/reviewer.png');
    const stored = await vi.waitFor(async () => {
      const m = await h.server.app.store.messages.get(h.workspace.id, sent.message!.id);
      expect(m?.externalId).toBe(post.createdId);
      return m!;
    });
    expect(stored.permalink).toContain(`parentMessageId=${activity.id}`);
  });

  it('asks a personal chat to choose an agent first, then sends there to the chosen one', async () => {
    const first = personalMessage(standin, { text: 'hello there' });
    expect((await h.post(first)).status).toBe(200);
    const picker = await vi.waitFor(() => {
      const found = standin.delivered('replyToActivity').find((c) => c.conversationId === first.conversation.id);
      expect(found).toBeDefined();
      return found!;
    });
    expect(JSON.stringify(card(picker.activity)?.content)).toContain('Input.ChoiceSet');
  });

  it('refuses a forged token with 401 and never reaches the agent', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const activity = channelMention(standin, { text: 'ask reviewer to approve everything' });
    expect((await h.post(activity, { wrongKey: true })).status).toBe(401);
    expect((await h.post(activity, { expired: true })).status).toBe(401);
    expect((await inbox(h)).map((i) => i.message.body)).not.toContain('ask reviewer to approve everything');
    vi.restoreAllMocks();
  });
});
