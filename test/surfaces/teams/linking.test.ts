// Account linking from Teams: the link card in the personal chat the first
// time an unlinked person talks to an agent, "link" and "unlink", a fresh link
// from the card, the confirmation once linked, and workspaces that require it.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { TEAMS_LINK_DONE, teamsRuntime } from '../../../src/surfaces/teams/index.ts';
import { linkDoneHandler } from '../../../src/surfaces/teams/linking.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import { pgliteDb } from '../../support/db.ts';
import { adaptiveCardAction, channelMention, channelMessage, personalMessage } from '../../support/teams/activities.ts';
import { TEAMS_DEFAULTS, type TeamsUserSeed } from '../../support/teams/defaults.ts';
import { startTeamsStandin, type TeamsStandin, type WireActivity } from '../../support/teams/standin.ts';
import { inbox, startHarness, type Harness } from '../../support/teams/harness.ts';

const { alice, bob } = TEAMS_DEFAULTS.users;
/** Someone in the team who never linked an account. */
const carol: TeamsUserSeed = {
  id: '29:1CarolStandinUserIdPq4Zx7Lm2Nv8Bw5Kt3Rh6Yd9Jc1Gf0Se',
  name: 'Carol Diaz',
  aadObjectId: 'ca401000-2e4f-4a6b-8c9d-0e1f2a3b4c63',
  email: 'carol@switchboard.test',
  givenName: 'Carol',
  surname: 'Diaz',
};
const text = (a: WireActivity | undefined) => JSON.stringify(a ?? {});
/** The link URL on a link card. */
const linkUrl = (a: WireActivity) => /https:\/\/switchboard\.test\/link\/[A-Za-z0-9_-]+/.exec(text(a))?.[0];

describe('linking a Teams account', () => {
  let db: Database;
  let standin: TeamsStandin;
  let h: Harness;
  let bobsChat: string;

  beforeAll(async () => {
    [db, standin] = await Promise.all([pgliteDb.open(), startTeamsStandin()]);
    h = await startHarness({ database: db, standin });
    await h.server.app.orgs.addPerson(SYSTEM, { handle: 'bob', org: 'acme', displayName: 'Bob' });
    bobsChat = personalMessage(standin, { text: 'x', from: bob }).conversation.id;
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  const cardsIn = (conversationId: string) =>
    standin.conversationActivities(conversationId).filter((a) => text(a).includes('/link/'));

  it('sends the link card to the personal chat the first time an unlinked person talks to an agent, and only then', async () => {
    // Bob has never chatted with the bot personally: it starts the chat.
    expect((await h.post(channelMention(standin, { text: 'ask reviewer to look at PR 1', from: bob }))).status).toBe(
      200,
    );
    const [card] = await vi.waitFor(
      () => {
        const found = cardsIn(bobsChat);
        expect(found).toHaveLength(1);
        return found;
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(standin.delivered('createConversation')).toMatchObject([{ parameters: { members: [{ id: bob.id }] } }]);
    expect(text(card)).toContain('Link your account');
    expect(text(card)).toContain('Send me a new link');

    expect((await h.post(channelMention(standin, { text: 'ask reviewer to look at PR 2', from: bob }))).status).toBe(
      200,
    );
    await vi.waitFor(async () => expect((await inbox(h)).some((i) => i.message.body.includes('PR 2'))).toBe(true), {
      timeout: 20_000,
      interval: 50,
    });
    expect(cardsIn(bobsChat)).toHaveLength(1);
  });

  it("links with the card's link, confirms in the personal chat, and then Bob writes as himself", async () => {
    const reply = personalMessage(standin, { text: 'link', from: bob });
    expect((await h.post(reply)).status).toBe(200);
    const card = await vi.waitFor(
      () => {
        const found = standin.delivered('replyToActivity').find((c) => c.activityId === reply.id);
        expect(found).toBeDefined();
        return found!.activity!;
      },
      { timeout: 20_000, interval: 50 },
    );
    const url = linkUrl(card)!;
    expect(url).toBeDefined();

    const person = (await h.server.app.store.people.get('bob'))!;
    await h.server.app.links.confirm(url.split('/').at(-1)!, person.id);

    const confirmations = () =>
      standin.conversationActivities(bobsChat).filter((a) => text(a).includes('Linked as @bob'));
    await vi.waitFor(() => expect(confirmations()).toHaveLength(1), { timeout: 20_000, interval: 50 });
    // The job running again after its post (its outcome lost in a crash) finds the post recorded and does not repeat it.
    const job = await vi.waitFor(
      async () => {
        const [done] = await h.server.app.store.outbox.list({ topic: TEAMS_LINK_DONE, status: 'done' });
        expect(done).toBeDefined();
        return done;
      },
      { timeout: 20_000, interval: 50 },
    );
    await linkDoneHandler(teamsRuntime(h.server.app.surfaceModules))(job.payload, {
      attempt: job.attempts + 1,
      entryId: job.id,
    });
    expect(confirmations()).toHaveLength(1);
    expect((await h.post(channelMention(standin, { text: 'ask reviewer to look at PR 3', from: bob }))).status).toBe(
      200,
    );
    const item = await vi.waitFor(
      async () => {
        const found = (await inbox(h)).find((i) => i.message.body.includes('PR 3'));
        expect(found).toBeDefined();
        return found!;
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(item.sender).toMatchObject({ kind: 'person', name: 'bob' });
  });

  it('gives a fresh link from the card, says who an account is linked as, and unlinks on "unlink"', async () => {
    const again = await h.post(
      adaptiveCardAction(standin, {
        verb: 'linkAgain',
        data: { sb: 'link' },
        cardActivityId: '1760000000100',
        from: alice,
      }),
    );
    expect(again.status).toBe(200);
    expect(JSON.stringify(again.body)).toMatch(/switchboard\.test\/link\//);

    const linked = personalMessage(standin, { text: 'link', from: bob });
    await h.post(linked);
    await vi.waitFor(
      () =>
        expect(text(standin.delivered('replyToActivity').find((c) => c.activityId === linked.id)?.activity)).toContain(
          'linked as @bob',
        ),
      { timeout: 20_000, interval: 50 },
    );

    const unlink = personalMessage(standin, { text: 'unlink', from: bob });
    await h.post(unlink);
    await vi.waitFor(
      () =>
        expect(text(standin.delivered('replyToActivity').find((c) => c.activityId === unlink.id)?.activity)).toContain(
          'no longer linked to @bob',
        ),
      { timeout: 20_000, interval: 50 },
    );
  });

  it('answers nobody unlinked where the workspace requires linking, and says how to link', async () => {
    await h.server.app.store.workspaces.update(h.workspace.id, { requireLinking: true });
    try {
      const mention = channelMention(standin, { text: 'ask reviewer to look at PR 4', from: bob });
      expect((await h.post(mention)).status).toBe(200);
      const answer = await vi.waitFor(
        () => {
          const found = standin.delivered('replyToActivity').find((c) => c.activityId === mention.id);
          expect(found).toBeDefined();
          return found!.activity!;
        },
        { timeout: 20_000, interval: 50 },
      );
      expect(text(answer)).toContain('answers only people who have linked their Teams account');
      expect((await inbox(h)).some((i) => i.message.body.includes('PR 4'))).toBe(false);
    } finally {
      await h.server.app.store.workspaces.update(h.workspace.id, { requireLinking: false });
    }
  });

  it("says nothing where linking is required to an unlinked person's reply that does not mention the bot, even in a chain an agent is in", async () => {
    const start = channelMention(standin, { text: 'ask reviewer to look at PR 5' });
    expect((await h.post(start)).status).toBe(200);
    await vi.waitFor(async () => expect((await inbox(h)).some((i) => i.message.body.includes('PR 5'))).toBe(true), {
      timeout: 20_000,
      interval: 50,
    });
    await h.server.app.store.workspaces.update(h.workspace.id, { requireLinking: true });
    try {
      const chain = start.conversation.id;
      const reply = channelMessage(standin, {
        text: 'I think PR 5 breaks the build',
        threadRootId: start.id,
        from: carol,
      });
      expect((await h.post(reply)).status).toBe(200);
      // Activities of one reply chain are handled in order: once this mention is refused, the reply before it was handled.
      const marker = channelMention(standin, {
        text: 'ask reviewer to look at PR 6',
        threadRootId: start.id,
        from: carol,
      });
      expect((await h.post(marker)).status).toBe(200);
      await vi.waitFor(
        () => expect(standin.delivered('replyToActivity').some((c) => c.activityId === marker.id)).toBe(true),
        { timeout: 20_000, interval: 50 },
      );
      const saidInChain = [...standin.delivered('replyToActivity'), ...standin.delivered('sendToConversation')].filter(
        (c) => c.conversationId === chain,
      );
      // The bot said one thing in the chain: the refusal of the mention, not of the reply.
      expect(saidInChain.map((c) => c.activityId)).toEqual([marker.id]);
      expect((await inbox(h)).some((i) => i.message.body.includes('breaks the build'))).toBe(false);
    } finally {
      await h.server.app.store.workspaces.update(h.workspace.id, { requireLinking: false });
    }
  });
});
