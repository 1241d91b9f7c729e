// Edits and deletes made in Teams follow to what Switchboard stored, in any
// chat or reply chain (not only bridged channels): signed messageUpdate and
// messageDelete activities through the real CloudAdapter and the durable
// inbound job, checked in the store and the agent's search.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { pgliteDb, postgresDb } from '../../support/db.ts';
import {
  channelMention,
  channelMessageEdited,
  groupChatMessage,
  personalMessage,
  type TeamsActivity,
} from '../../support/teams/activities.ts';
import { TEAMS_DEFAULTS } from '../../support/teams/defaults.ts';
import { startTeamsStandin, type TeamsStandin } from '../../support/teams/standin.ts';
import { inbox, startHarness, type Harness } from '../../support/teams/harness.ts';

const WAIT = { timeout: 20_000, interval: 50 };
const ALICE = TEAMS_DEFAULTS.users.alice;

/** Teams' `messageUpdate` (eventType `editMessage`) for a message of the personal chat. */
function personalEdited(target: TeamsStandin, id: string, text: string): TeamsActivity {
  const edited = personalMessage(target, { id, text });
  return { ...edited, type: 'messageUpdate', channelData: { ...edited.channelData, eventType: 'editMessage' } };
}

/** Teams' `messageDelete` (eventType `softDeleteMessage`) for a message of the personal chat. */
function personalDeleted(target: TeamsStandin, id: string): TeamsActivity {
  const { text: _text, attachments: _html, ...gone } = personalMessage(target, { id, text: '' });
  return { ...gone, type: 'messageDelete', channelData: { ...gone.channelData, eventType: 'softDeleteMessage' } };
}

describe('edits and deletes made in Teams', () => {
  let db: Database;
  let standin: TeamsStandin;
  let h: Harness;
  const stored = (id: string) => h.server.app.store.messages.get(h.workspace.id, id);
  const search = (text: string) => h.server.app.messaging.search(h.reviewer, h.workspace, { text, limit: 10 });
  const received = (body: string) =>
    vi.waitFor(async () => {
      const found = (await inbox(h)).find((i) => i.message.body === body);
      if (!found) throw new Error(`"${body}" has not reached the agent yet`);
      return found;
    }, WAIT);

  beforeAll(async () => {
    [db, standin] = await Promise.all([(postgresDb() ?? pgliteDb).open(), startTeamsStandin()]);
    h = await startHarness({ database: db, standin });
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  it("a personal chat message edited, then deleted, changes and then leaves what the agent got; the agent's own answer is untouched", async () => {
    const { app } = h.server;
    await app.store.defaultAgents.set(
      { surface: 'teams', tenantId: standin.userTenantId, scope: 'user', scopeId: ALICE.aadObjectId },
      h.reviewer.id,
      ALICE.aadObjectId,
    );
    const said = personalMessage(standin, { text: 'my password is hunter2' });
    expect((await h.post(said)).status).toBe(200);
    const item = await received('my password is hunter2');
    const answer = await app.messaging.send({
      workspace: h.workspace,
      sender: h.reviewer,
      conversationId: item.conversation.id,
      body: 'Noted, thanks.',
    });
    const posted = await vi.waitFor(async () => {
      const m = await stored(answer.message!.id);
      if (!m?.externalId) throw new Error('the answer is not posted to Teams yet');
      return m;
    }, WAIT);

    // Someone's edit naming the agent's post changes nothing; activities of one conversation run in order.
    expect((await h.post(personalEdited(standin, posted.externalId!, 'hijacked'))).status).toBe(200);
    expect((await h.post(personalEdited(standin, said.id, 'my password is gone'))).status).toBe(200);
    await vi.waitFor(async () => expect((await stored(item.message.id))?.body).toBe('my password is gone'), WAIT);
    expect((await stored(item.message.id))?.editedAt).not.toBeNull();
    expect(await search('hunter2')).toEqual([]);
    expect(await stored(posted.id)).toMatchObject({ body: 'Noted, thanks.', editedAt: null });

    expect((await h.post(personalDeleted(standin, said.id))).status).toBe(200);
    await vi.waitFor(async () => expect(await stored(item.message.id)).toBeNull(), WAIT);
    expect(await stored(posted.id)).not.toBeNull();
  });

  it('a message in a channel reply chain, edited in Teams, reads as edited for the agent', async () => {
    const root = channelMention(standin, { text: 'ask reviewer to check the deploy' });
    expect((await h.post(root)).status).toBe(200);
    await received('ask reviewer to check the deploy');
    const reply = channelMention(standin, { text: 'ask reviewer to use token abc123', threadRootId: root.id });
    expect((await h.post(reply)).status).toBe(200);
    const item = await received('ask reviewer to use token abc123');

    const edited = channelMessageEdited(standin, {
      id: reply.id,
      threadRootId: root.id,
      text: 'ask reviewer to use the token in the vault',
    });
    expect((await h.post(edited)).status).toBe(200);
    await vi.waitFor(
      async () => expect((await stored(item.message.id))?.body).toBe('ask reviewer to use the token in the vault'),
      WAIT,
    );
    expect(await search('abc123')).toEqual([]);
  });

  it('a group chat message edited in Teams changes what the agent got, as in a channel', async () => {
    const said = groupChatMessage(standin, { text: 'ask reviewer to call 555-0100' });
    expect((await h.post(said)).status).toBe(200);
    const item = await received('ask reviewer to call 555-0100');

    // Teams' messageUpdate for a group chat: the same id and conversation, the bot still mentioned in the new text.
    const edited = groupChatMessage(standin, { id: said.id, text: 'ask reviewer to call the front desk' });
    expect(
      (
        await h.post({
          ...edited,
          type: 'messageUpdate',
          channelData: { ...edited.channelData, eventType: 'editMessage' },
        })
      ).status,
    ).toBe(200);
    await vi.waitFor(
      async () => expect((await stored(item.message.id))?.body).toBe('ask reviewer to call the front desk'),
      WAIT,
    );
    expect((await stored(item.message.id))?.editedAt).not.toBeNull();
    expect(await search('555-0100')).toEqual([]);
  });
});
