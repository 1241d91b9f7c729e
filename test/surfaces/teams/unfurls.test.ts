// Switchboard links pasted in Teams: the message extension's
// `composeExtension/queryLink` invoke, signed by the stand-in and authenticated
// by the real SDK, answered with an Adaptive Card for the conversation being
// written in: the item's state when everyone there may see it (an approval is
// its approval card, with buttons only for someone who may decide), a title and
// the link otherwise, nothing for a link to another host.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import { pgliteDb } from '../../support/db.ts';
import { personalMessage, queryLink, type Place } from '../../support/teams/activities.ts';
import { personalConversationId, TEAMS_DEFAULTS, type TeamsUserSeed } from '../../support/teams/defaults.ts';
import { teamsRuntime } from '../../../src/surfaces/teams/index.ts';
import { startTeamsStandin, type TeamsStandin } from '../../support/teams/standin.ts';
import { mentionAndReceive, startHarness, type Harness } from '../../support/teams/harness.ts';

const PUBLIC_URL = 'https://switchboard.test';
const { alice, bob } = TEAMS_DEFAULTS.users;
const carol: TeamsUserSeed = {
  id: '29:1CarolStandinUserIdPq4Rs7Tu1Vw5Xy8Za2Bc6De9Fg3Hi',
  name: 'Carol Diaz',
  aadObjectId: 'ca401000-1e2f-4a3b-9c4d-5e6f7a8b9c0d',
  email: 'carol@switchboard.test',
  givenName: 'Carol',
  surname: 'Diaz',
};
const GROUP = '19:carolandalice_b2c3d4e5@thread.v2';

type Card = {
  body: Array<{ type: string; text?: string }>;
  actions?: Array<{ type: string; verb?: string; title?: string; url?: string }>;
  refresh?: { userIds: string[] };
};
type Answer = {
  composeExtension: {
    type: string;
    attachmentLayout: string;
    attachments: Array<{ contentType: string; content: Card; preview: { content: { title: string } } }>;
    suggestedActions?: { actions: Array<{ type: string; value: string }> };
  };
};

describe('Switchboard links in Teams', () => {
  let db: Database;
  let teams: TeamsStandin;
  let h: Harness;
  let approvalLink: string;

  beforeAll(async () => {
    [db, teams] = await Promise.all([pgliteDb.open(), startTeamsStandin()]);
    h = await startHarness({ database: db, standin: teams });
    const { app } = h.server;
    await app.orgs.addPerson(SYSTEM, { handle: 'bob', org: 'acme', displayName: 'Bob' });
    await h.link(alice, 'alice');
    await h.link(bob, 'bob');
    teams.setMembers(TEAMS_DEFAULTS.channelId, [alice, bob]);
    teams.setMembers(GROUP, [alice, carol]);
    // Alice's personal chat with the bot, and an approval asked in a reply chain of #reviews.
    expect((await h.post(personalMessage(teams, { text: 'hello', from: alice }))).status).toBe(200);
    const { item } = await mentionAndReceive(h, teams);
    const a = await app.approvals.request(h.reviewer, h.workspace, {
      title: 'Merge PR 12',
      details: 'Touches the billing code.',
      conversationId: item.conversation.id,
    });
    approvalLink = `${PUBLIC_URL}/#/w/eng/approvals/${a.id}`;
  });
  afterAll(async () => {
    await h?.stop();
    await teams?.close();
    await db?.close();
  });

  async function paste(url: string, from: TeamsUserSeed, place: Place = { kind: 'channel' }) {
    const res = await h.post(queryLink(teams, { url, from, place }));
    expect(res.status).toBe(200);
    return (res.body as Answer).composeExtension;
  }
  const cardOf = async (url: string, from: TeamsUserSeed, place?: Place) => {
    const answer = await paste(url, from, place);
    expect(answer).toMatchObject({ type: 'result', attachmentLayout: 'list' });
    expect(answer.attachments).toHaveLength(1);
    expect(answer.attachments[0].contentType).toBe('application/vnd.microsoft.card.adaptive');
    // Worked out for this conversation: Teams must not show the same card elsewhere.
    expect(answer.suggestedActions?.actions).toEqual([
      expect.objectContaining({ type: 'setCachePolicy', value: '{"type":"no-cache"}' }),
    ]);
    return { card: answer.attachments[0].content, title: answer.attachments[0].preview.content.title };
  };
  const verbs = (c: Card) => (c.actions ?? []).flatMap((a) => (a.verb ? [a.verb] : []));
  const texts = (c: Card) => JSON.stringify(c.body);

  it("answers an approval link with the approval card for the channel's members, its buttons only for someone who may decide", async () => {
    const byApprover = await cardOf(approvalLink, alice);
    expect(byApprover.title).toBe('Merge PR 12');
    expect(texts(byApprover.card)).toContain('Touches the billing code.');
    expect(verbs(byApprover.card)).toEqual(['approve', 'reject']);
    // The approvers Teams knows see it refreshed, up to date, wherever it was pasted.
    expect(byApprover.card.refresh?.userIds).toEqual([alice.id]);

    const byMember = await cardOf(approvalLink, bob);
    expect(texts(byMember.card)).toContain('Merge PR 12');
    expect(verbs(byMember.card)).toEqual([]);
  });

  it('answers with a title and the link only where someone unlinked reads, or in a chat the bot is not in', async () => {
    for (const [from, place] of [
      [alice, { kind: 'groupChat', chatId: GROUP }],
      [alice, { kind: 'personal', chatId: 'a:1AliceAndCarolChat' }],
    ] as Array<[TeamsUserSeed, Place]>) {
      const { card, title } = await cardOf(approvalLink, from, place);
      expect(title).toBe('Switchboard link');
      expect(card.body).toEqual([expect.objectContaining({ text: 'Switchboard link' })]);
      expect(card.actions).toEqual([{ type: 'Action.OpenUrl', title: 'Open in Switchboard', url: approvalLink }]);
      expect(JSON.stringify(card)).not.toMatch(/Merge PR 12|billing/);
    }
    // A chat between people is no chat with the bot: what the bot posts to Alice still goes to her own.
    const user = await teamsRuntime(h.server.app.surfaceModules).users.get(teams.userTenantId, alice.aadObjectId);
    expect(user?.personalConversationId).toBe(personalConversationId(alice.id, teams.appId));
  });

  it('answers in the personal chat with the bot for the person in it, and answers a document link with its card', async () => {
    const { card } = await cardOf(approvalLink, alice, { kind: 'personal' });
    expect(verbs(card)).toEqual(['approve', 'reject']);

    const { app } = h.server;
    const access = {
      role: 'owner' as const,
      hasSeat: true,
      agentId: null,
      personHandle: 'alice',
      org: { name: 'Acme', slug: 'acme' },
    };
    const collection = await app.documents.createCollection(h.workspace, access, { type: 'runbooks' });
    const doc = await app.documents.create(h.workspace, access, {
      collection: collection.key,
      title: 'Restart the queue',
      summary: 'What to do when jobs pile up.',
    });
    const docLink = `${PUBLIC_URL}/docs/eng/d/${doc.identifier}`;
    const shown = await cardOf(docLink, bob);
    expect(shown.title).toBe(`${doc.identifier}: Restart the queue`);
    expect(texts(shown.card)).toContain('What to do when jobs pile up.');
    expect(shown.card.actions).toEqual([{ type: 'Action.OpenUrl', title: 'Open in Switchboard', url: docLink }]);
  });

  it('adds nothing for a link to another host, and answers a resent invoke again', async () => {
    expect((await paste(`https://elsewhere.example/#/w/eng/approvals/x`, alice)).attachments).toEqual([]);
    const invoke = queryLink(teams, { url: approvalLink, from: alice });
    const first = await h.post(invoke);
    const again = await h.post(invoke);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
  });
});
