// Approvals shown in Teams, Slack and the web settle once, wherever the click
// happens: a Teams click (Action.Execute invoke) is answered with the updated
// card and rewrites the Slack card and the web view; a Slack click rewrites the
// Teams card with updateActivity. The Action.Submit fallback and refusals too.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mountWebChat } from '../../../src/http/surface-mount.ts';
import { APPROVE_ACTION } from '../../../src/surfaces/slack/approvals.ts';
import { slackRuntime } from '../../../src/app-surfaces.ts';
import type { Database } from '../../../src/infra/db/client.ts';
import { TEAMS_APPROVAL_SHOW } from '../../../src/surfaces/teams/index.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import type { Approval } from '../../../src/core/approvals/approval.ts';
import { hashPassword } from '../../../src/http/auth/index.ts';
import { pgliteDb } from '../../support/db.ts';
import { dmChannelId, SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { blockActions, postSigned } from '../../support/slack/signed-request.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import { adaptiveCardAction, cardSubmit, personalMessage } from '../../support/teams/activities.ts';
import { TEAMS_DEFAULTS } from '../../support/teams/defaults.ts';
import { startTeamsStandin, type TeamsStandin, type WireActivity } from '../../support/teams/standin.ts';
import { HttpBrowser } from '../../support/web/browser.ts';
import { mentionAndReceive, startHarness, type Harness } from '../../support/teams/harness.ts';

const SLACK_ALICE = 'U0ALICE01';
const PASSWORD = 'correct horse battery';
const { alice, bob } = TEAMS_DEFAULTS.users;

type CardJson = {
  body: unknown[];
  actions?: Array<{ verb?: string; fallback?: { type: string } }>;
  refresh?: { userIds: string[] };
  version: string;
};
const cardOf = (a: WireActivity | undefined) =>
  (a?.attachments as Array<{ content: CardJson }> | undefined)?.[0]?.content;

describe('approvals in Teams, next to Slack and the web', () => {
  let db: Database;
  let teams: TeamsStandin;
  let slack: SlackStandin;
  let h: Harness;
  let personalChat: string;

  beforeAll(async () => {
    [db, teams, slack] = await Promise.all([pgliteDb.open(), startTeamsStandin(), startSlackStandin()]);
    h = await startHarness({ database: db, standin: teams, slackStandin: slack, mounts: [mountWebChat] });
    const { app } = h.server;
    const person = (await app.store.people.get('alice'))!;
    await app.store.people.setPasswordHash(person.id, await hashPassword(PASSWORD));
    slack.setUser(SLACK_ALICE, { real_name: 'Alice', display_name: 'alice' });
    const rt = slackRuntime(app);
    const slackIdentity = await rt.identities.upsert({
      surface: 'slack',
      tenantId: SLACK_DEFAULTS.teamId,
      externalUserId: SLACK_ALICE,
    });
    await rt.identities.link(slackIdentity.id, person.id, new Date());
    await h.link(alice, 'alice');
    await app.orgs.addPerson(SYSTEM, { handle: 'bob', org: 'acme', displayName: 'Bob' });
    await h.link(bob, 'bob');
    // Alice and Bob each have a personal chat with the bot (how the approval card reaches approvers there).
    for (const from of [alice, bob]) {
      const hello = personalMessage(teams, { text: 'hello', from });
      expect((await h.post(hello)).status).toBe(200);
      if (from === alice) personalChat = hello.conversation.id;
    }
  });
  afterAll(async () => {
    await h?.stop();
    await Promise.all([teams?.close(), slack?.close()]);
    await db?.close();
  });

  const request = (title: string) =>
    h.server.app.approvals.request(h.reviewer, h.workspace, { title, details: 'Ship it to production.' });
  /** The Teams card of an approval in Alice's personal chat, as last written. */
  const teamsCard = (id: string) =>
    vi.waitFor(
      () => {
        const found = teams.conversationActivities(personalChat).find((a) => JSON.stringify(a).includes(id));
        if (!found) throw new Error('no Teams card yet');
        return found;
      },
      { timeout: 10_000 },
    );
  const slackCard = (id: string) =>
    vi.waitFor(
      () => {
        const found = slack
          .messages(dmChannelId(SLACK_ALICE))
          .find((m) => JSON.stringify(m.metadata ?? {}).includes(id));
        if (!found) throw new Error('no Slack card yet');
        return found;
      },
      { timeout: 10_000 },
    );
  const status = async (id: string): Promise<Approval> => h.server.app.approvals.get(h.workspace.id, id);
  const click = (verb: string, a: Approval, cardActivityId: string, from = alice) =>
    h.post(
      adaptiveCardAction(teams, {
        verb,
        from,
        cardActivityId,
        data: { sb: 'approval', approvalId: a.id, workspaceId: a.workspaceId },
      }),
    );

  it('shows an Adaptive Card 1.5 with Action.Execute buttons (Action.Submit fallback) and a refresh for the approvers', async () => {
    const a = await request('Deploy v1');
    const card = cardOf(await teamsCard(a.id))!;
    expect(card.version).toBe('1.5');
    expect(card.actions?.map((x) => x.verb)).toEqual(['approve', 'reject']);
    expect(card.actions?.every((x) => x.fallback?.type === 'Action.Submit')).toBe(true);
    // Alice owns the agent and the workspace: she is the approver whose card refreshes (her Teams user id).
    expect(card.refresh?.userIds).toEqual([alice.id]);
    // The view is recorded once Teams has answered the post, a moment after the stand-in has the card.
    await vi.waitFor(async () => expect(await h.server.app.store.approvals.views(a.id, 'teams')).toHaveLength(1), {
      timeout: 10_000,
    });
  });

  it('posts a card once when the job runs again after Teams took it but before its view was stored', async () => {
    const { approvals } = h.server.app.store;
    const addView = approvals.addView;
    let failures = 1;
    approvals.addView = (async (...args: Parameters<typeof addView>) => {
      if (args[0].surface === 'teams' && failures > 0) {
        failures--;
        throw new Error('the view could not be written');
      }
      return addView.apply(approvals, args);
    }) as typeof addView;
    try {
      const a = await request('Deploy v1.1');
      await vi.waitFor(async () => expect(await h.server.app.store.approvals.views(a.id, 'teams')).toHaveLength(1), {
        timeout: 20_000,
      });
      const [job] = (await h.server.app.store.outbox.list({ topic: TEAMS_APPROVAL_SHOW })).filter(
        (e) => e.payload.approvalId === a.id,
      );
      expect(job).toMatchObject({ status: 'done', attempts: 2, lastError: 'the view could not be written' });
      const [view] = await h.server.app.store.approvals.views(a.id, 'teams');
      const cards = teams.conversationActivities(personalChat).filter((x) => JSON.stringify(x).includes(a.id));
      expect(cards.map((c) => c.id)).toEqual([view.ref.activity]);
    } finally {
      Reflect.deleteProperty(approvals, 'addView');
    }
    expect(failures).toBe(0);
  });

  it('shows an approval asked in a Teams reply chain in that reply chain, not in personal chats', async () => {
    const { item, activity } = await mentionAndReceive(h, teams, 'deploy when ready');
    const a = await h.server.app.approvals.request(h.reviewer, h.workspace, {
      title: 'Deploy from the thread',
      details: 'v7',
      conversationId: item.conversation.id,
    });
    const card = await vi.waitFor(
      () => {
        const found = teams
          .conversationActivities(activity.conversation.id)
          .find((x) => JSON.stringify(x).includes(a.id));
        expect(found).toBeDefined();
        return found!;
      },
      { timeout: 10_000 },
    );
    expect(cardOf(card)?.actions?.map((x) => x.verb)).toEqual(['approve', 'reject']);
    expect(teams.conversationActivities(personalChat).some((x) => JSON.stringify(x).includes(a.id))).toBe(false);
    // The view is recorded once Teams has answered the post, a moment after the stand-in holds the card.
    await vi.waitFor(
      async () => {
        expect(await h.server.app.store.approvals.views(a.id, 'teams')).toMatchObject([
          { ref: { conversation: activity.conversation.id, activity: card.id } },
        ]);
      },
      { timeout: 10_000 },
    );
  });

  it('a click in Teams settles it, answers with the updated card, and updates the Slack card and the web view', async () => {
    const a = await request('Deploy v2');
    const [card, slackBefore] = await Promise.all([teamsCard(a.id), slackCard(a.id)]);
    expect(JSON.stringify(slackBefore.blocks)).toContain(APPROVE_ACTION);

    const res = await click('approve', a, card.id!);

    expect(res.status).toBe(200);
    const body = res.body as { statusCode: number; type: string; value: CardJson };
    expect(body).toMatchObject({ statusCode: 200, type: 'application/vnd.microsoft.card.adaptive' });
    expect(JSON.stringify(body.value)).toContain('Approved by @alice in Teams');
    expect(body.value.actions).toBeUndefined();
    expect(await status(a.id)).toMatchObject({ status: 'approved', decidedVia: 'teams' });
    await vi.waitFor(
      () => {
        const now = slack.messages(dmChannelId(SLACK_ALICE)).find((m) => m.ts === slackBefore.ts)!;
        expect(JSON.stringify(now.blocks)).toContain('Approved by @alice in Teams');
        expect(JSON.stringify(now.blocks)).not.toContain(APPROVE_ACTION);
      },
      { timeout: 10_000 },
    );
    const web = new HttpBrowser(h.server.url);
    await web.signIn('alice', PASSWORD);
    const view = await web.api('GET', `/w/eng/approvals/${a.id}`);
    expect(view.status).toBe(200);
    expect(JSON.parse(view.text).approval).toMatchObject({
      status: 'approved',
      via: 'teams',
      decidedBy: 'alice',
      canDecide: false,
    });
    // The Teams card itself is rewritten for everyone who sees it.
    await vi.waitFor(
      () => expect(JSON.stringify(teams.activity(personalChat, card.id!))).toContain('Approved by @alice in Teams'),
      { timeout: 20_000, interval: 50 },
    );
  });

  it('a click in Slack updates the Teams card with updateActivity', async () => {
    const a = await request('Deploy v3');
    const [card, slackBefore] = await Promise.all([teamsCard(a.id), slackCard(a.id)]);

    const res = await postSigned(
      `${h.server.url}/slack/events`,
      blockActions({
        user: SLACK_ALICE,
        channel: dmChannelId(SLACK_ALICE),
        message: { ts: slackBefore.ts, text: slackBefore.text, blocks: slackBefore.blocks as unknown[] },
        actions: [{ action_id: APPROVE_ACTION, value: a.id, block_id: `approval:${a.id}`, text: 'Approve' }],
        response_url: `${slack.origin}/hooks/actions/unused`,
      }),
    );
    expect(res.status).toBe(200);

    const update = await vi.waitFor(
      () => {
        const found = teams.delivered('updateActivity').find((c) => c.activityId === card.id);
        expect(found).toBeDefined();
        return found!;
      },
      { timeout: 10_000 },
    );
    expect(update.conversationId).toBe(personalChat);
    const now = cardOf(teams.activity(personalChat, card.id!))!;
    expect(JSON.stringify(now)).toContain('Approved by @alice in Slack');
    expect(now.actions).toBeUndefined();
    expect(now.refresh).toBeUndefined();
  });

  it('answers a refused click with the card and the reason, and a late click with who settled it; nothing changes', async () => {
    const a = await request('Deploy v4');
    const card = await teamsCard(a.id);

    const refused = await click('approve', a, card.id!, bob);
    expect(JSON.stringify(refused.body)).toContain('Only the agent');
    expect((refused.body as { value: CardJson }).value.actions).toBeUndefined();
    expect((await status(a.id)).status).toBe('pending');
    // Someone whose Teams account is not linked is told how to link in Teams, not in another app.
    const stranger = {
      ...bob,
      id: '29:1CarolStandinUserIdNotLinked0Aa',
      aadObjectId: 'c4r01000-1d2e-4f3a-8b9c-0d1e2f3a4b63',
      name: 'Carol Unlinked',
    };
    const unlinked = JSON.stringify((await click('approve', a, card.id!, stranger)).body);
    expect(unlinked).toContain(
      'Link your chat account to Switchboard before deciding approvals. Use the link card Switchboard sent you in your personal chat',
    );
    expect(unlinked).not.toContain('Slack');
    expect((await status(a.id)).status).toBe('pending');

    expect((await click('reject', a, card.id!)).status).toBe(200);
    const late = await click('approve', a, card.id!);
    expect(JSON.stringify(late.body)).toContain('already settled');
    expect(await status(a.id)).toMatchObject({ status: 'rejected', decidedVia: 'teams' });
  });

  it('takes the Action.Submit fallback of older clients', async () => {
    const a = await request('Deploy v5');
    const card = await teamsCard(a.id);

    const res = await h.post(
      cardSubmit(teams, {
        cardActivityId: card.id!,
        data: { sb: 'approval', verb: 'approve', approvalId: a.id, workspaceId: a.workspaceId },
      }),
    );

    expect(res.status).toBe(200);
    // A submit is a message activity: stored, acknowledged, then handled by its inbound job (an invoke is answered inline).
    await vi.waitFor(
      async () => expect(await status(a.id)).toMatchObject({ status: 'approved', decidedVia: 'teams' }),
      { timeout: 20_000, interval: 50 },
    );
    await vi.waitFor(
      () => expect(JSON.stringify(teams.activity(personalChat, card.id!))).toContain('Approved by @alice in Teams'),
      { timeout: 20_000, interval: 50 },
    );
  });

  it('a refresh gives the approver the buttons and anyone else the card without them', async () => {
    const a = await request('Deploy v6');
    const card = await teamsCard(a.id);
    const forAlice = await h.post(
      adaptiveCardAction(teams, {
        verb: 'refresh',
        trigger: 'automatic',
        cardActivityId: card.id!,
        data: { sb: 'approval', approvalId: a.id, workspaceId: a.workspaceId },
      }),
    );
    const forBob = await h.post(
      adaptiveCardAction(teams, {
        verb: 'refresh',
        from: bob,
        trigger: 'automatic',
        cardActivityId: card.id!,
        data: { sb: 'approval', approvalId: a.id, workspaceId: a.workspaceId },
      }),
    );
    expect((forAlice.body as { value: CardJson }).value.actions?.map((x) => x.verb)).toEqual(['approve', 'reject']);
    expect((forBob.body as { value: CardJson }).value.actions).toBeUndefined();
    expect((await status(a.id)).status).toBe('pending');
  });
});
