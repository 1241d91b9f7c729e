// Approval cards in the web chat, through its JSON API and event stream: the
// card in the conversation it was asked in, the approver's inbox, deciding
// with a CSRF-protected POST, refusals, late decisions, and live updates.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { pgliteDb } from '../../support/db.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import { startApprovalsWorld, type ApprovalsWorld } from '../../support/slack/approvals-world.ts';
import type { HttpBrowser } from '../../support/web/browser.ts';
import { openEvents } from '../../support/web/sse.ts';

type Card = Record<string, any>;

describe('approval cards in the web chat', () => {
  let db: Database;
  let standin: SlackStandin;
  let world: ApprovalsWorld;
  let mcp: Awaited<ReturnType<ApprovalsWorld['mcp']>>;
  const b = {} as Record<'alice' | 'bob' | 'carol', HttpBrowser>;
  let general: string;

  beforeAll(async () => {
    [db, standin] = await Promise.all([pgliteDb.open(), startSlackStandin()]);
    world = await startApprovalsWorld({ database: db, standin });
    mcp = await world.mcp();
    for (const who of ['alice', 'bob', 'carol'] as const) b[who] = await world.signIn(who);
    general = (await b.alice.api('GET', '/w/eng/sidebar'))
      .json()
      .channels.find((c: { name: string }) => c.name === 'general').id;
  });
  afterAll(async () => {
    await mcp?.close();
    await world?.stop();
    await standin?.close();
    await db?.close();
  });

  const ask = async (args: Record<string, unknown>) =>
    ((await mcp.call('request_approval', args)).structuredContent as { approval_id: string }).approval_id;
  /** Alice asks the agent in #general; the agent asks for approval there. */
  async function askInGeneral(title: string) {
    const posted = await b.alice.api('POST', `/w/eng/conversations/${general}/messages`, {
      body: `@deployer ${title}?`,
    });
    expect(posted.status).toBe(201);
    return ask({ title, conversation: general });
  }
  const cardsIn = async (who: HttpBrowser, conversation: string) =>
    (await who.api('GET', `/w/eng/approvals?conversation=${conversation}`)).json().approvals as Card[];

  it('shows the card in the conversation to everyone who can read it; only approvers may decide', async () => {
    const id = await askInGeneral('Deploy v3');
    const [forBob, forCarol] = await Promise.all([cardsIn(b.bob, general), cardsIn(b.carol, general)]);
    expect(forBob.find((c) => c.id === id)).toMatchObject({
      title: 'Deploy v3',
      status: 'pending',
      outcome: 'Waiting for a decision',
      canDecide: true,
      conversationId: general,
      agent: { label: 'bob/deployer', displayName: 'Deployer' },
    });
    expect([...forBob.find((c) => c.id === id)!.approvers].sort()).toEqual(['alice', 'bob']);
    expect(forCarol.find((c) => c.id === id)).toMatchObject({ status: 'pending', canDecide: false });
  });

  it('lists the approvals waiting for a person in their inbox, and hides the others', async () => {
    const id = await ask({ title: 'Rotate the signing key', approvers: ['alice'] });
    const waiting = async (who: HttpBrowser) =>
      ((await who.api('GET', '/w/eng/approvals')).json().approvals as Card[]).map((c) => c.id);
    expect(await waiting(b.alice)).toContain(id);
    expect(await waiting(b.bob)).not.toContain(id);
    // Bob owns the agent, so he may look at it; Carol is neither approver nor in a conversation it was asked in.
    expect((await b.bob.api('GET', `/w/eng/approvals/${id}`)).json().approval).toMatchObject({ id, canDecide: false });
    const hidden = await b.carol.api('GET', `/w/eng/approvals/${id}`);
    expect(hidden.status).toBe(404);
    expect((await b.carol.api('POST', `/w/eng/approvals/${id}/decision`, { decision: 'approve' })).status).toBe(404);
  });

  it("keeps a person named on one request from reading the agent's other requests", async () => {
    const named = await ask({ title: 'Order more build minutes', approvers: ['carol'] });
    const other = await ask({ title: 'Change the on-call rota' });
    const inbox = (await b.carol.api('GET', '/w/eng/inbox')).json().items as Array<{
      message: { body: string };
      conversation: { id: string };
    }>;
    const notice = inbox.find((i) => i.message.body.includes(named))!;
    expect(inbox.some((i) => i.message.body.includes(other))).toBe(false);
    // The conversation the request came in holds it, and not what the agent asked of others.
    const history = (await b.carol.api('GET', `/w/eng/conversations/${notice.conversation.id}`)).json()
      .messages as Array<{ body: string }>;
    expect(history.map((m) => m.body).join('\n')).toContain(named);
    expect(history.map((m) => m.body).join('\n')).not.toContain(other);
    expect(((await b.carol.api('GET', '/w/eng/approvals')).json().approvals as Card[]).map((c) => c.id)).toEqual([
      named,
    ]);
    expect((await b.carol.api('GET', `/w/eng/approvals/${other}`)).status).toBe(404);
  });

  it('decides with a CSRF-protected POST; refusals say why, and a late decision is told who settled it', async () => {
    const id = await askInGeneral('Drop the legacy tables');
    const forged = await b.bob.api('POST', `/w/eng/approvals/${id}/decision`, { decision: 'approve' }, { csrf: false });
    expect(forged.status).toBe(403);
    expect(forged.json().error.message).toContain('CSRF token');
    const notApprover = await b.carol.api('POST', `/w/eng/approvals/${id}/decision`, { decision: 'approve' });
    expect(notApprover.status).toBe(403);
    expect(notApprover.json().error).toEqual({
      code: 'NOT_PERMITTED',
      message: "Only the agent's owner or an owner of the workspace can decide this approval.",
      rule: 'not_allowed',
    });
    const bad = await b.bob.api('POST', `/w/eng/approvals/${id}/decision`, { decision: 'maybe' });
    expect(bad.status).toBe(400);
    expect((await world.app.approvals.get(world.ws.id, id)).status).toBe('pending');

    const done = await b.bob.api('POST', `/w/eng/approvals/${id}/decision`, {
      decision: 'reject',
      reason: 'Keep them a week longer',
    });
    expect(done.status).toBe(200);
    expect(done.json().approval).toMatchObject({
      status: 'rejected',
      decidedBy: 'bob',
      via: 'web',
      reason: 'Keep them a week longer',
      canDecide: false,
    });
    expect(done.json().approval.outcome).toMatch(
      /^Rejected by @bob in the web chat at \d\d:\d\d UTC — “Keep them a week longer”$/,
    );

    const late = await b.alice.api('POST', `/w/eng/approvals/${id}/decision`, { decision: 'approve' });
    expect(late.status).toBe(409);
    expect(late.json().error).toMatchObject({ code: 'CONFLICT', status: 'rejected', approval_id: id });
    expect(late.json().error.message).toMatch(/already settled: Rejected by @bob in the web chat/);
    const audit = (await world.app.store.audit.list(world.ws.id, 50)).filter(
      (e) => e.target === id && e.action.startsWith('approval.'),
    );
    expect(audit.map((e) => `${e.action} ${e.result}`).sort()).toEqual([
      'approval.approve refused',
      'approval.approve refused',
      'approval.reject rejected',
    ]);
  });

  it("pushes each card live when it is asked and when it settles, in the conversation and in the approver's inbox", async () => {
    const [carolEvents, aliceEvents] = await Promise.all([openEvents(b.carol, 'eng'), openEvents(b.alice, 'eng')]);
    try {
      const inConversation = await askInGeneral('Restart the queue');
      const asked = await carolEvents.next((e) => e.event === 'approval' && e.data.id === inConversation);
      expect(asked.data).toMatchObject({ status: 'pending', canDecide: false });
      // The request is also a message in the conversation, shown live like any other.
      await carolEvents.next(
        (e) =>
          e.event === 'message' &&
          e.data.message.body.startsWith('Approval requested by bob/deployer: Restart the queue'),
      );

      const direct = await ask({ title: 'Raise the rate limit', approvers: ['alice'] });
      await aliceEvents.next((e) => e.event === 'approval' && e.data.id === direct && e.data.canDecide === true);
      await aliceEvents.next((e) => e.event === 'inbox');
      // Asked of no conversation, it reaches Alice in a DM of her own with Switchboard and the agent.
      const dm = await aliceEvents.next(
        (e) =>
          e.event === 'message' &&
          e.data.message.body.startsWith('Approval requested by bob/deployer: Raise the rate limit'),
      );
      expect(dm.data.conversation).toMatchObject({ kind: 'dm', title: 'Switchboard, Deployer' });

      await world.app.approvals.decide({
        approvalId: inConversation,
        workspaceId: world.ws.id,
        decision: 'approved',
        decider: { personId: world.people.bob.id, role: 'editor' },
        via: 'slack',
      });
      const settled = await carolEvents.next(
        (e) => e.event === 'approval' && e.data.id === inConversation && e.data.status === 'approved',
      );
      expect(settled.data.outcome).toMatch(/^Approved by @bob in Slack at/);

      await b.alice.api('POST', `/w/eng/approvals/${direct}/decision`, { decision: 'approve' });
      const resolved = await aliceEvents.next(
        (e) => e.event === 'approval' && e.data.id === direct && e.data.status === 'approved',
      );
      expect(resolved.data).toMatchObject({ decidedBy: 'alice', via: 'web', canDecide: false });
      expect(carolEvents.events.some((e) => e.event === 'approval' && e.data.id === direct)).toBe(false);
    } finally {
      await Promise.all([carolEvents.close(), aliceEvents.close()]);
    }
  });
});
