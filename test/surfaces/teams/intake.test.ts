// Intake from Teams through the real CloudAdapter (Bot Framework JWTs from the
// stand-in): an unlinked person's request becomes an item linked by its Teams
// deep link; when it is done they are told once, in the reply chain where they
// asked; `notices off` / `notices on` to the bot is the same stored choice as
// Slack's slash command.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { pgliteDb, postgresDb } from '../../support/db.ts';
import { channelMention, channelMessage, personalMessage } from '../../support/teams/activities.ts';
import { TEAMS_DEFAULTS } from '../../support/teams/defaults.ts';
import { startTeamsStandin, type TeamsStandin } from '../../support/teams/standin.ts';
import { startHarness, type Harness } from '../../support/teams/harness.ts';

const WAIT = { timeout: 20_000, interval: 50 };
const bob = TEAMS_DEFAULTS.users.bob;
const database = postgresDb() ?? pgliteDb;

describe(`intake from Teams (${database.kind})`, () => {
  let db: Database;
  let standin: TeamsStandin;
  let h: Harness;

  const posted = (conversationId: string, text: string) =>
    standin
      .delivered('sendToConversation')
      .filter((c) => c.conversationId === conversationId && JSON.stringify(c.activity).includes(text));
  /** Bob asks reviewer for something in a new reply chain; resolves with the item it became. */
  const ask = async (text: string) => {
    const mention = channelMention(standin, { text: `ask reviewer to ${text}`, from: bob });
    expect((await h.post(mention)).status).toBe(200);
    const item = await vi.waitFor(async () => {
      const found = (await h.server.app.intake.list(h.workspace, { limit: 50 })).find(
        (i) => i.summary === `ask reviewer to ${text}`,
      );
      if (!found) throw new Error('no intake item yet');
      return found;
    }, WAIT);
    return { mention, item };
  };
  /** What the bot answered Bob in his personal chat to `text`. */
  const tellBot = async (text: string) => {
    const m = personalMessage(standin, { text, from: bob });
    expect((await h.post(m)).status).toBe(200);
    return vi.waitFor(() => {
      const reply = standin.delivered('replyToActivity').find((c) => c.activityId === m.id);
      if (!reply) throw new Error('no answer yet');
      return String(reply.activity?.text);
    }, WAIT);
  };

  beforeAll(async () => {
    [db, standin] = await Promise.all([database.open(), startTeamsStandin()]);
    h = await startHarness({ database: db, standin });
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  it("files an unlinked person's request, and tells them once, in their reply chain, when it is done", async () => {
    const { app } = h.server;
    const { mention, item } = await ask('please add a dark mode to the dashboard');
    expect(item).toMatchObject({ kind: 'feature request', status: 'new', filedBy: null });
    expect(item.sources).toEqual([
      expect.objectContaining({
        surface: 'teams',
        permalink: expect.stringContaining(
          `https://teams.microsoft.com/l/message/${encodeURIComponent(TEAMS_DEFAULTS.channelId)}/${mention.id}`,
        ),
      }),
    ]);

    expect((await app.intake.update(h.reviewer, h.workspace, { id: item.id, status: 'done' })).told).toBe(1);
    const notice = await vi.waitFor(() => {
      const [found] = posted(mention.conversation.id, 'change you asked for is now live');
      if (!found) throw new Error('no notice in Teams yet');
      return found;
    }, WAIT);
    expect(JSON.stringify(notice.activity)).toContain(`${bob.name}, the change you asked for is now live`);
    expect((await app.intake.update(h.reviewer, h.workspace, { id: item.id, status: 'done' })).told).toBe(0);
  });

  it('lets a person opt out with "notices off" to the bot, and back in with "notices on"', async () => {
    const { app } = h.server;
    // Written to the channel without mentioning the bot, it is no command (the mention after it is handled after it).
    const unaddressed = channelMessage(standin, { text: 'notices off', from: bob });
    await h.post(unaddressed);
    await h.post(
      channelMention(standin, { text: 'ask reviewer to check the notices', from: bob, threadRootId: unaddressed.id }),
    );
    await vi.waitFor(async () => {
      const items = (await app.messaging.checkInbox(h.reviewer, h.workspace, 50)).items;
      if (!items.some((i) => i.message.body === 'ask reviewer to check the notices'))
        throw new Error('not delivered yet');
    }, WAIT);
    const bobs = (await app.store.identities.find({
      surface: 'teams',
      tenantId: standin.userTenantId,
      externalUserId: bob.aadObjectId,
    }))!;
    expect(await app.intake.noticesOn({ identityId: bobs.id })).toBe(true);
    expect(standin.delivered('replyToActivity').filter((c) => c.activityId === unaddressed.id)).toEqual([]);

    expect(await tellBot('notices maybe')).toMatch(/"notices off".*"notices on"/);
    expect(await tellBot('notices off')).toContain('You will not be told when something you asked for is done');
    const identity = (await app.store.identities.find({
      surface: 'teams',
      tenantId: standin.userTenantId,
      externalUserId: bob.aadObjectId,
    }))!;
    expect(await app.intake.noticesOn({ identityId: identity.id })).toBe(false);

    const quiet = await ask('please fix the broken CSV export');
    expect(quiet.item.kind).toBe('bug');
    expect((await app.intake.update(h.reviewer, h.workspace, { id: quiet.item.id, status: 'done' })).told).toBe(0);

    expect(await tellBot('Notices on.')).toContain('You will be told, in the thread where you asked');
    expect(await app.intake.noticesOn({ identityId: identity.id })).toBe(true);
    const heard = await ask('please support dark mode in exports');
    expect((await app.intake.update(h.reviewer, h.workspace, { id: heard.item.id, status: 'done' })).told).toBe(1);
    await vi.waitFor(() => {
      if (!posted(heard.mention.conversation.id, 'change you asked for is now live').length)
        throw new Error('no notice yet');
    }, WAIT);
    // The notice for the item done while opted out never went out.
    expect(posted(quiet.mention.conversation.id, 'change you asked for is now live')).toEqual([]);
  });
});
