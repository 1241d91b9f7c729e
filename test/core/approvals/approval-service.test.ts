import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import type { App } from '../../../src/app.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import type { SwitchboardError } from '../../../src/core/errors.ts';
import { databases } from '../../support/db.ts';
import { makeWorld, testApp, type World } from '../../support/world.ts';
import { SLACK_APPROVAL_SHOW, SLACK_APPROVAL_UPDATE } from '../../../src/surfaces/slack/topics.ts';

const refusal = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    return e as SwitchboardError;
  }
  throw new Error('expected a refusal');
};

describe.each(databases())('approvals on $kind', (kind) => {
  let database: Database;
  let app: App;
  let w: World;
  let ids: { alice: string; bob: string; carol: string };

  beforeAll(async () => {
    database = await kind.open();
    app = await testApp(database);
    app.surfaces.add('slack');
    w = await makeWorld(app);
    await app.orgs.addPerson(SYSTEM, { handle: `carol-${w.suffix}`, org: w.org });
    const get = async (h: string) => (await app.store.people.get(h))!.id;
    ids = { alice: await get(w.alice), bob: await get(w.bob), carol: await get(`carol-${w.suffix}`) };
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  const ask = (extra: Record<string, unknown> = {}) =>
    app.approvals.request(w.reviewer.agent, w.ws, {
      title: 'Deploy #418',
      details: 'Ship it to production.',
      ...extra,
    });
  const as = (personId: string | null, role: 'owner' | 'editor' | 'viewer' | null = 'owner') => ({ personId, role });

  it("stores the request first, queues it for every surface and puts it in the approvers' inboxes", async () => {
    const a = await ask();
    expect(a.status).toBe('pending');
    const shows = await app.store.outbox.list({ topic: SLACK_APPROVAL_SHOW });
    expect(shows.some((e) => e.payload.approvalId === a.id)).toBe(true);
    // Default approvers: the agent's owner (bob) and the workspace's owners (alice, the org admin).
    for (const handle of [w.alice, w.bob]) {
      const pa = (await app.store.agents.personAgent((await app.store.people.get(handle))!.id))!;
      const inbox = await app.store.messages.takeUnread(pa.id, w.ws.id, 10);
      expect(inbox.items.map((i) => i.message.body).join('\n')).toContain(
        `Approval requested by ${w.bob}/reviewer: Deploy #418`,
      );
    }
  });

  it('asked in a conversation, tells approvers who are not in it in their own DM, without adding them to it', async () => {
    // Carol writes to the agent in a DM; the agent asks there. Approvers (bob, alice) were not in that DM.
    const carol = (await app.store.agents.personAgent(ids.carol))!;
    const sent = await app.messaging.send({
      workspace: w.ws,
      sender: carol,
      to: [`${w.bob}/reviewer`],
      body: 'Please deploy #418',
    });
    expect(sent.recipients).toEqual([expect.objectContaining({ status: 'delivered' })]);
    const dm = sent.message!.conversationId;
    const before = await app.store.messages.participants(dm);
    const a = await ask({ conversationId: dm });
    expect((await app.store.messages.participants(dm)).sort()).toEqual(before.sort());
    for (const id of [ids.alice, ids.bob]) {
      const pa = (await app.store.agents.personAgent(id))!;
      const items = (await app.store.messages.takeUnread(pa.id, w.ws.id, 50)).items.filter((i) =>
        i.message.body.includes(`(approval ${a.id})`),
      );
      expect(items).toHaveLength(1);
      expect(items[0].conversation.id).not.toBe(dm);
    }
  });

  it('settles once under many concurrent decisions from Slack and the web', async () => {
    const a = await ask();
    const attempts = Array.from({ length: 12 }, (_, i) =>
      app.approvals
        .decide({
          approvalId: a.id,
          workspaceId: w.ws.id,
          decision: i % 2 ? 'approved' : 'rejected',
          decider: as(i % 3 ? ids.alice : ids.bob),
          via: i % 2 ? 'slack' : 'web',
        })
        .then(
          (r) => ({ ok: true as const, r }),
          (e: SwitchboardError) => ({ ok: false as const, e }),
        ),
    );
    const results = await Promise.all(attempts);
    const winners = results.filter((r) => r.ok);
    expect(winners).toHaveLength(1);
    const final = await app.approvals.get(w.ws.id, a.id);
    const won = winners[0].r!;
    expect(final).toMatchObject({ status: won.status, decidedBy: won.decidedBy, decidedVia: won.decidedVia });
    for (const r of results.filter((x) => !x.ok)) {
      expect(r.e!.code).toBe('CONFLICT');
      expect(r.e!.message).toMatch(/already settled: (Approved|Rejected) by @/);
    }
    expect(
      (await app.store.outbox.list({ topic: SLACK_APPROVAL_UPDATE })).filter((e) => e.payload.approvalId === a.id),
    ).toHaveLength(1);
  });

  it('tells the requesting agent the outcome in its inbox, with the reason', async () => {
    const a = await ask();
    await app.messaging.checkInbox(w.reviewer.agent, w.ws, 100);
    await app.approvals.decide({
      approvalId: a.id,
      workspaceId: w.ws.id,
      decision: 'rejected',
      decider: as(ids.alice),
      via: 'web',
      reason: 'Not on a Friday',
    });
    const inbox = await app.messaging.checkInbox(w.reviewer.agent, w.ws, 10);
    expect(inbox.items.at(-1)!.message.body).toMatch(
      new RegExp(
        `Approval ${a.id} “Deploy #418”: Rejected by @${w.alice} in the web chat at \\d\\d:\\d\\d UTC — “Not on a Friday”`,
      ),
    );
  });

  it('says where a decision was made as people call it: an MCP client, a chat app by its name (capitalised when not registered here)', async () => {
    for (const [via, where] of [
      ['mcp', 'an MCP client'],
      ['discord', 'Discord'],
    ] as const) {
      const settled = await app.approvals.decide({
        approvalId: (await ask()).id,
        workspaceId: w.ws.id,
        decision: 'approved',
        decider: as(ids.alice),
        via,
      });
      expect(await app.approvals.outcome(settled)).toMatch(
        new RegExp(`^Approved by @${w.alice} in ${where} at \\d\\d:\\d\\d UTC$`),
      );
    }
  });

  it('refuses guests, agents and people who are not approvers, and changes nothing', async () => {
    const a = await ask({ approvers: [w.alice] });
    const tries = [
      [as(null, null), 'Link your chat account'],
      [{ ...as(ids.alice), isAgent: true }, 'Agents cannot decide'],
      [as(ids.carol, 'viewer'), 'Only the approvers this request names'],
      [as(ids.alice, null), 'do not have access'],
    ] as const;
    for (const [decider, text] of tries) {
      const e = await refusal(
        app.approvals.decide({ approvalId: a.id, workspaceId: w.ws.id, decision: 'approved', decider, via: 'slack' }),
      );
      expect(e.code).toBe('NOT_PERMITTED');
      expect(e.message).toContain(text);
    }
    expect((await app.approvals.get(w.ws.id, a.id)).status).toBe('pending');
    const audit = await app.store.audit.list(w.ws.id, 50);
    expect(audit.filter((e) => e.target === a.id && e.result === 'refused')).toHaveLength(4);
  });

  it('lets only the requesting agent cancel, and only while pending', async () => {
    const a = await ask();
    expect((await refusal(app.approvals.cancel(w.builder.agent, w.ws.id, a.id))).message).toContain(
      'Only the agent that requested',
    );
    expect((await app.approvals.cancel(w.reviewer.agent, w.ws.id, a.id)).status).toBe('cancelled');
    expect((await refusal(app.approvals.cancel(w.reviewer.agent, w.ws.id, a.id))).message).toContain(
      'Cancelled by the agent',
    );
  });

  it('expires through a scheduled job and updates every view', async () => {
    const a = await ask({ expiresInSeconds: 1 });
    const job = (await app.store.outbox.list({ topic: 'approval.expire' })).find((e) => e.payload.approvalId === a.id)!;
    expect(job.runAt.getTime()).toBe(a.expiresAt!.getTime());
    expect(await app.approvals.expire(w.ws.id, a.id)).toBe(true);
    expect(await app.approvals.expire(w.ws.id, a.id)).toBe(false);
    expect((await app.approvals.get(w.ws.id, a.id)).status).toBe('expired');
    const e = await refusal(
      app.approvals.decide({
        approvalId: a.id,
        workspaceId: w.ws.id,
        decision: 'approved',
        decider: as(ids.alice),
        via: 'web',
      }),
    );
    expect(e.message).toContain('Expired');
  });

  it('refuses approvers who cannot reach the workspace', async () => {
    const e = await refusal(ask({ approvers: ['nobody-here'] }));
    expect(e.code).toBe('INVALID_INPUT');
    expect(e.message).toContain('approvers are person handles');
  });
});
