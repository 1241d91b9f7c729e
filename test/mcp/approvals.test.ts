// The approval tools through the SDK's own client, in-process: asking, reading
// the outcome, cancelling, refusals as sentences, and the decision waking a
// waiting `subscribe`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/infra/db/client.ts';
import { createApp, type App } from '../../src/app.ts';
import { ERROR_META_KEY } from '../../src/mcp/errors.ts';
import { parseLink } from '../../src/core/previews/links.ts';
import { pgliteDb } from '../support/db.ts';
import { connectInProcess, makeWorld, silent, testApp, testConfig, textOf } from '../support/world.ts';
import { SLACK_APPROVAL_SHOW } from '../../src/surfaces/slack/topics.ts';

let db: Database;
let app: App;

beforeAll(async () => {
  db = await pgliteDb.open();
  app = await testApp(db);
});
afterAll(async () => {
  await app.close();
  await db.close();
});

type Out = Record<string, any>;
const personId = async (handle: string) => (await app.store.people.get(handle))!.id;
const asOwner = async (handle: string) => ({ personId: await personId(handle), role: 'owner' as const });

async function world() {
  const w = await makeWorld(app);
  const reviewer = await connectInProcess(app, w.reviewer.agent, w.ws.slug);
  return { w, reviewer };
}

describe('MCP approval tools', () => {
  it('lists request_approval, get_approval and cancel_approval with input and output schemas', async () => {
    const { reviewer } = await world();
    const { tools } = await reviewer.client.listTools();
    for (const name of ['request_approval', 'get_approval', 'cancel_approval']) {
      const tool = tools.find((t) => t.name === name);
      expect(tool?.outputSchema?.type, name).toBe('object');
    }
    const request = tools.find((t) => t.name === 'request_approval')!;
    expect(Object.keys(request.inputSchema.properties ?? {})).toEqual([
      'title',
      'details',
      'conversation',
      'approvers',
      'expires_in',
      'ask_owner_here',
    ]);
    await reviewer.close();
  });

  it('asks for approval and reads who decided, where, when and why', async () => {
    const { w, reviewer } = await world();
    const asked = await reviewer.call('request_approval', {
      title: 'Deploy #418',
      details: 'Ship **v2** to production.',
      approvers: [w.alice],
      expires_in: 3600,
    });
    expect(asked.isError).toBeFalsy();
    const out = asked.structuredContent as Out;
    expect(out).toMatchObject({ status: 'pending', approvers: [w.alice], conversation_id: null });
    expect(Date.parse(out.expires_at) - Date.now()).toBeGreaterThan(3500_000);
    expect(textOf(asked)).toContain(`@${w.alice} may decide it`);
    // A link the agent can share: pasted in Slack or Teams, it unfurls as this approval.
    expect(parseLink(out.url, app.config.publicUrl)).toMatchObject({ kind: 'approval', id: out.approval_id });

    const pending = (await reviewer.call('get_approval', { approval_id: out.approval_id })).structuredContent as Out;
    expect(pending).toMatchObject({
      status: 'pending',
      outcome: 'Waiting for a decision',
      decided_by: null,
      via: null,
      decided_at: null,
      reason: null,
    });

    await app.approvals.decide({
      approvalId: out.approval_id,
      workspaceId: w.ws.id,
      decision: 'rejected',
      decider: await asOwner(w.alice),
      via: 'web',
      reason: 'Not on a Friday',
    });
    const got = await reviewer.call('get_approval', { approval_id: out.approval_id });
    expect(got.structuredContent).toMatchObject({
      approval_id: out.approval_id,
      title: 'Deploy #418',
      status: 'rejected',
      decided_by: w.alice,
      via: 'web',
      reason: 'Not on a Friday',
    });
    expect(Date.parse((got.structuredContent as Out).decided_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(textOf(got)).toMatch(
      new RegExp(`Rejected by @${w.alice} in the web chat at \\d\\d:\\d\\d UTC — “Not on a Friday”`),
    );
    await reviewer.close();
  });

  it('wakes a waiting subscribe with the decision at once, long before its timeout', async () => {
    const { w, reviewer } = await world();
    const { approval_id: id } = (await reviewer.call('request_approval', { title: 'Rotate the API keys' }))
      .structuredContent as Out;
    await reviewer.call('check_inbox', { limit: 100 });
    const waiting = reviewer.call('subscribe', { timeout_seconds: 20 });
    await new Promise((r) => setImmediate(r));
    const started = Date.now();
    await app.approvals.decide({
      approvalId: id,
      workspaceId: w.ws.id,
      decision: 'approved',
      decider: await asOwner(w.bob),
      via: 'slack',
    });
    const got = (await waiting).structuredContent as {
      messages: Array<{ body: string; sender: { name: string } }>;
      timed_out: boolean;
    };
    // Woken by the decision, not by the 20 s timeout (the bound leaves room for a loaded machine).
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(got.timed_out).toBe(false);
    expect(got.messages.map((m) => m.body)).toEqual([
      expect.stringMatching(new RegExp(`^Approval ${id} “Rotate the API keys”: Approved by @${w.bob} in Slack`)),
    ]);
    expect(got.messages[0].sender.name).toBe('switchboard');
    await reviewer.close();
  });

  it('lets the requesting agent cancel while pending, then says it is settled', async () => {
    const { w, reviewer } = await world();
    const builder = await connectInProcess(app, w.builder.agent, w.ws.slug);
    const { approval_id: id } = (await reviewer.call('request_approval', { title: 'Drop the staging database' }))
      .structuredContent as Out;

    const foreign = await builder.call('cancel_approval', { approval_id: id });
    expect(foreign.isError).toBe(true);
    expect(textOf(foreign)).toContain(`The approval ${id} was not found`);
    expect((await builder.call('get_approval', { approval_id: id })).isError).toBe(true);

    const cancelled = await reviewer.call('cancel_approval', { approval_id: id });
    expect(cancelled.structuredContent).toEqual({ approval_id: id, status: 'cancelled' });
    const again = await reviewer.call('cancel_approval', { approval_id: id });
    expect(again.isError).toBe(true);
    expect(textOf(again)).toMatch(/already settled: Cancelled by the agent at \d\d:\d\d UTC/);
    expect(again._meta?.[ERROR_META_KEY]).toMatchObject({ code: 'CONFLICT', status: 'cancelled' });

    const audit = (await app.store.audit.list(w.ws.id, 50)).filter(
      (e) => e.target === id || e.target === 'Drop the staging database',
    );
    expect(audit.map((e) => `${e.action} ${e.result}`)).toEqual(
      expect.arrayContaining([
        'request_approval pending',
        'approval.cancel cancelled',
        'cancel_approval refused: CONFLICT',
      ]),
    );
    await Promise.all([builder.close(), reviewer.close()]);
  });

  it('refuses unknown approvers and foreign conversations with sentences that say what to do, and audits them', async () => {
    const { w, reviewer } = await world();
    const unknown = await reviewer.call('request_approval', { title: 'Deploy', approvers: ['nobody-here'] });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toBe(
      '"nobody-here" is not a person who can reach this workspace; approvers are person handles (call list_agents: kind "person").',
    );
    expect(unknown._meta?.[ERROR_META_KEY]).toEqual({ code: 'INVALID_INPUT' });

    const other = await makeWorld(app);
    const sent = await app.messaging.send({
      workspace: other.ws,
      sender: other.builder.agent,
      to: ['reviewer'],
      body: 'elsewhere',
    });
    const foreign = await reviewer.call('request_approval', { title: 'Deploy', conversation: sent.conversation!.id });
    expect(textOf(foreign)).toContain('Ask in a conversation you received a message in');

    const [entry] = (await app.store.audit.list(w.ws.id, 5)).filter((e) => e.action === 'request_approval');
    expect(entry).toMatchObject({ agentId: w.reviewer.agent.id, target: 'Deploy', result: 'refused: NOT_FOUND' });

    const tooSoon = await reviewer.call('request_approval', { title: 'Deploy', expires_in: 1 });
    expect(tooSoon.isError).toBe(true);
    expect(textOf(tooSoon)).toMatch(/expires_in/);
    await reviewer.close();
  });

  it('asks a person named twice (bob, @bob) once: one approver, one line, one notice', async () => {
    const { w, reviewer } = await world();
    const r = await reviewer.call('request_approval', {
      title: 'dup approvers',
      approvers: [w.bob, w.alice, w.bob, `@${w.bob}`],
    });
    expect(r.structuredContent).toMatchObject({ status: 'pending', approvers: [w.bob, w.alice] });
    expect(textOf(r)).toContain(`@${w.bob}, @${w.alice} may decide it.`);
    const bob = (await app.store.agents.personAgent(await personId(w.bob)))!;
    const inbox = await app.messaging.checkInbox(bob, w.ws, 50);
    expect(inbox.items.filter((i) => i.message.body.includes('dup approvers'))).toHaveLength(1);
    await reviewer.close();
  });

  it("asks in the conversation it was asked in, and the people there are the default approvers' inbox", async () => {
    const { w, reviewer } = await world();
    const sent = await app.messaging.send({
      workspace: w.ws,
      sender: w.builder.agent,
      to: ['reviewer'],
      body: 'Can you ship it?',
    });
    const r = await reviewer.call('request_approval', { title: 'Ship it', conversation: sent.conversation!.id });
    const out = r.structuredContent as Out;
    expect(out).toMatchObject({ status: 'pending', conversation_id: sent.conversation!.id });
    // By default the agent's owner (bob) and the workspace's owners (alice, the org admin) decide.
    expect([...out.approvers].sort()).toEqual([w.alice, w.bob].sort());
    expect((await app.store.approvals.listForConversation(w.ws.id, sent.conversation!.id)).map((a) => a.id)).toEqual([
      out.approval_id,
    ]);
    await reviewer.close();
  });

  it('reminds the approvers after APPROVAL_REMINDER_MINUTES, while nobody has decided', async () => {
    const reminding = await createApp(testConfig({ APPROVAL_REMINDER_MINUTES: '30' }), {
      database: db,
      logger: silent,
      migrate: false,
    });
    try {
      const w = await makeWorld(reminding);
      const a = await reminding.approvals.request(w.reviewer.agent, w.ws, { title: 'Renew the domain', details: '' });
      const job = (await reminding.store.outbox.list({ topic: 'approval.remind' })).find(
        (e) => e.payload.approvalId === a.id,
      )!;
      expect(job.runAt.getTime() - a.createdAt.getTime()).toBeGreaterThanOrEqual(30 * 60_000 - 1_000);
      // What the job does when it runs: a reminder in every approver's inbox.
      expect(await reminding.approvals.remind(w.ws.id, a.id)).toBe(true);
      const alice = (await reminding.store.agents.personAgent(await personId(w.alice)))!;
      const inbox = await reminding.messaging.checkInbox(alice, w.ws, 50);
      expect(inbox.items.map((i) => i.message.body)).toContain(
        `Reminder: ${w.bob}/reviewer is still waiting for a decision on “Renew the domain” (approval ${a.id}).`,
      );
      await reminding.approvals.cancel(w.reviewer.agent, w.ws.id, a.id);
      expect(await reminding.approvals.remind(w.ws.id, a.id)).toBe(false);
    } finally {
      await reminding.close();
    }
  });

  it('queues the Slack card even from a process without the Slack mount (mcp-stdio), when Slack is configured', async () => {
    const stdioLike = await createApp(testConfig({ SLACK_SIGNING_SECRET: 'signing-secret' }), {
      database: db,
      logger: silent,
      migrate: false,
    });
    try {
      const w = await makeWorld(stdioLike);
      const a = await stdioLike.approvals.request(w.reviewer.agent, w.ws, { title: 'Tag the release', details: '' });
      expect(
        (await stdioLike.store.outbox.list({ topic: SLACK_APPROVAL_SHOW })).map((e) => e.payload.approvalId),
      ).toContain(a.id);
    } finally {
      await stdioLike.close();
    }
  });
});
