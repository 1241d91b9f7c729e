// Approvals in Slack through the Web API stand-in and signed interactivity
// payloads: the card in the thread it was asked in (or the approvers' DMs),
// an approver's click settling it everywhere, refusals and late clicks told
// only to the person who clicked, the reject modal, and a Slack outage.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { REASON_BLOCK, REASON_INPUT, REASON_VIEW } from '../../../src/surfaces/slack/approvals.ts';
import type { Database } from '../../../src/infra/db/client.ts';
import { slackRuntime } from '../../../src/app-surfaces.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import { pgliteDb } from '../../support/db.ts';
import { dmChannelId, SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { appMention, eventCallback, viewSubmission } from '../../support/slack/signed-request.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import {
  blockText,
  cardPosted,
  cardsIn,
  ephemeralTo,
  hasButtons,
  startApprovalsWorld,
  USERS,
  type ApprovalsWorld,
} from '../../support/slack/approvals-world.ts';
import { SLACK_INBOUND } from '../../../src/surfaces/slack/topics.ts';

type Out = Record<string, any>;

describe('approvals in Slack', () => {
  let db: Database;
  let standin: SlackStandin;
  let world: ApprovalsWorld;
  let mcp: Awaited<ReturnType<ApprovalsWorld['mcp']>>;

  beforeAll(async () => {
    [db, standin] = await Promise.all([pgliteDb.open(), startSlackStandin()]);
    world = await startApprovalsWorld({ database: db, standin });
    mcp = await world.mcp();
    standin.handle('views.open', ({ args }) => ({ ok: true, view: { ...(args.view as object), id: 'V0MODAL001' } }));
  });
  afterAll(async () => {
    await mcp?.close();
    await world?.stop();
    await standin?.close();
    await db?.close();
  });

  const ask = async (args: Record<string, unknown>) =>
    (await mcp.call('request_approval', args)).structuredContent as Out;
  const status = async (id: string) => (await world.app.approvals.get(world.ws.id, id)).status;
  const updatesOf = (channel: string, ts: string) =>
    standin.callsTo('chat.update').filter((c) => c.args.channel === channel && c.args.ts === ts && c.status === 200);

  /** Carol mentions the agent in #general; resolves with the conversation id the agent got and the thread's ts. */
  async function askedInThread(text: string) {
    const mention = appMention({
      user: USERS.carol,
      channel: 'C0GENERAL',
      text: `<@${SLACK_DEFAULTS.botUserId}> @deployer ${text}`,
    });
    expect((await world.post(eventCallback(mention))).status).toBe(200);
    const item = await vi.waitFor(
      async () => {
        const found = (await world.app.messaging.checkInbox(world.deployer, world.ws, 50)).items.find(
          (i) => i.message.body === `@deployer ${text}`,
        );
        if (!found) throw new Error('not delivered yet');
        return found;
      },
      { timeout: 20_000, interval: 50 },
    );
    return { conversationId: item.conversation.id, threadTs: mention.ts };
  }

  it("shows Approve and Reject in the thread it was asked in; an approver's click settles it, updates the card, and wakes the agent waiting in subscribe with the decision", async () => {
    const { conversationId, threadTs } = await askedInThread('ship v2 please');
    const { approval_id: id } = await ask({
      title: 'Deploy v2 to production',
      details: 'Runs **migrations** first.',
      conversation: conversationId,
    });
    const card = await cardPosted(standin, 'C0GENERAL', id);
    expect(card).toMatchObject({ thread_ts: threadTs, username: 'Deployer' });
    expect(hasButtons(card)).toBe(true);
    expect(blockText(card)).toContain('Runs *migrations* first.');
    await vi.waitFor(
      async () =>
        expect((await world.app.store.approvals.views(id, 'slack')).map((v) => v.ref)).toEqual([
          { team: SLACK_DEFAULTS.teamId, channel: 'C0GENERAL', ts: card.ts, thread_ts: threadTs },
        ]),
      { timeout: 20_000, interval: 50 },
    );

    await mcp.call('check_inbox', { limit: 100 });
    const waiting = mcp.call('subscribe', { timeout_seconds: 20 });
    await new Promise((r) => setImmediate(r));
    const res = await world.click(USERS.alice, card, 'approve');
    expect(res.status).toBe(200);
    // A subscribe that ran out its 20 s would return no messages: the decision has to wake it.
    const woke = (await waiting).structuredContent as { messages: Array<{ body: string }> };
    expect(woke.messages.map((m) => m.body)).toEqual([
      expect.stringContaining(`Approval ${id} “Deploy v2 to production”: Approved by @alice in Slack`),
    ]);

    const updated = await vi.waitFor(
      () => {
        const now = cardsIn(standin, 'C0GENERAL', id)[0];
        expect(hasButtons(now)).toBe(false);
        return now;
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(blockText(updated)).toMatch(/Approved by @alice in Slack at \d\d:\d\d UTC/);
    expect(updated.text).toContain('Approved by @alice in Slack');
    expect(standin.callsTo('chat.postEphemeral').filter((c) => c.args.user === USERS.alice)).toHaveLength(0);
  });

  it('without a conversation, DMs each linked approver, and one click updates every DM', async () => {
    const { approval_id: id } = await ask({ title: 'Rotate the API keys' });
    const [forAlice, forBob] = await Promise.all([
      cardPosted(standin, dmChannelId(USERS.alice), id),
      cardPosted(standin, dmChannelId(USERS.bob), id),
    ]);
    // carol is linked but not an approver; dan is not linked at all.
    expect(cardsIn(standin, dmChannelId(USERS.carol), id)).toHaveLength(0);
    expect(cardsIn(standin, dmChannelId(USERS.dan), id)).toHaveLength(0);
    // Each post is kept as a view (just after Slack answered it).
    await vi.waitFor(async () => expect(await world.app.store.approvals.views(id, 'slack')).toHaveLength(2), {
      timeout: 20_000,
      interval: 50,
    });

    await world.click(USERS.bob, forBob, 'approve');
    await vi.waitFor(
      () => {
        for (const c of [forAlice, forBob]) expect(updatesOf(c.channel, c.ts)).toHaveLength(1);
      },
      { timeout: 20_000, interval: 50 },
    );
    for (const c of [forAlice, forBob]) {
      const now = cardsIn(standin, c.channel, id)[0];
      expect(hasButtons(now)).toBe(false);
      expect(blockText(now)).toContain('Approved by @bob in Slack');
    }
  });

  it('shows long details whole, in sections Slack accepts, so the approver sees the last step too', async () => {
    const steps = Array.from(
      { length: 40 },
      (_v, i) => `Step ${i + 1}: migrate shard ${i + 1} of the **orders** database, then check its row counts.`,
    ).join(' ');
    const details = `${steps}\n\nFINAL STEP: drop the \`payments\` table in production`;
    expect(details.length).toBeGreaterThan(3000);
    const { approval_id: id } = await ask({ title: 'Migrate the orders database', details });
    const card = await cardPosted(standin, dmChannelId(USERS.alice), id);
    const sections = (card.blocks as Array<{ type: string; text?: { text: string } }>)
      .filter((b) => b.type === 'section')
      .map((b) => b.text!.text);
    expect((card.blocks as unknown[]).length).toBeLessThanOrEqual(50);
    for (const text of sections) expect(text.length).toBeLessThanOrEqual(3000);
    expect(sections.join('\n')).toContain('FINAL STEP: drop the `payments` table in production');
    expect(sections.join('\n')).not.toContain('…');
    expect(hasButtons(card)).toBe(true);
  });

  it("refuses a non-approver's and an unlinked user's click ephemerally and changes nothing; a later click is told who settled it", async () => {
    const { conversationId } = await askedInThread('may I restart the workers?');
    const { approval_id: id } = await ask({ title: 'Restart the workers', conversation: conversationId });
    const card = await cardPosted(standin, 'C0GENERAL', id);

    await world.click(USERS.carol, card, 'approve');
    const refused = await ephemeralTo(
      standin,
      USERS.carol,
      "Only the agent's owner or an owner of the workspace can decide this approval.",
    );
    expect(refused.args).toMatchObject({ channel: 'C0GENERAL', thread_ts: card.thread_ts });
    await world.click(USERS.dan, card, 'reject');
    // The core's reason with Slack's hint (SwitchboardError.withHint), naming the configured command.
    await ephemeralTo(
      standin,
      USERS.dan,
      'Link your chat account to Switchboard before deciding approvals. Use the link I sent you in a DM, or `/switchboard link` gives you a new one.',
    );
    expect(await status(id)).toBe('pending');
    expect(updatesOf('C0GENERAL', card.ts)).toHaveLength(0);
    expect(standin.callsTo('views.open')).toHaveLength(0);

    await world.click(USERS.bob, card, 'approve');
    await vi.waitFor(async () => expect(await status(id)).toBe('approved'), { timeout: 20_000, interval: 50 });
    await world.click(USERS.alice, card, 'approve');
    const late = await ephemeralTo(standin, USERS.alice, 'This approval was already approved by @bob in Slack at');
    expect(late.args.text).toMatch(/already approved by @bob in Slack at \d\d:\d\d UTC; your click changed nothing\./);
    expect((await world.app.approvals.get(world.ws.id, id)).decidedBy).toBe(world.people.bob.id);

    const audit = (await world.app.store.audit.list(world.ws.id, 100)).filter(
      (e) => e.target === id && e.action.startsWith('approval.'),
    );
    expect(audit.map((e) => [e.result, (e.details as { why?: string }).why ?? ''])).toEqual(
      expect.arrayContaining([
        ['refused', "Only the agent's owner or an owner of the workspace can decide this approval."],
        ['refused', expect.stringContaining('Link your chat account')],
        ['approved', ''],
        ['refused', 'already settled'],
      ]),
    );
  });

  it('asks why on Reject in a modal; the reason reaches the card and the agent', async () => {
    const { conversationId } = await askedInThread('drop the old tables?');
    const { approval_id: id } = await ask({ title: 'Drop the old tables', conversation: conversationId });
    const card = await cardPosted(standin, 'C0GENERAL', id);
    await world.click(USERS.bob, card, 'reject');
    const opened = await vi.waitFor(
      () => {
        const call = standin
          .callsTo('views.open')
          .find((c) => String((c.args.view as { private_metadata: string }).private_metadata).includes(id));
        if (!call) throw new Error('no modal yet');
        return call;
      },
      { timeout: 20_000, interval: 50 },
    );
    const view = opened.args.view as { callback_id: string; private_metadata: string };
    expect(view.callback_id).toBe(REASON_VIEW);
    expect(await status(id)).toBe('pending');

    const submitted = await world.post(
      viewSubmission({
        user: USERS.bob,
        view: {
          callback_id: REASON_VIEW,
          private_metadata: view.private_metadata,
          values: { [REASON_BLOCK]: { [REASON_INPUT]: { type: 'plain_text_input', value: 'Back up first' } } },
        },
      }),
    );
    expect(submitted.status).toBe(200);
    await vi.waitFor(
      async () =>
        expect(await world.app.approvals.get(world.ws.id, id)).toMatchObject({
          status: 'rejected',
          reason: 'Back up first',
          decidedVia: 'slack',
        }),
      { timeout: 20_000, interval: 50 },
    );
    await vi.waitFor(
      () => expect(blockText(cardsIn(standin, 'C0GENERAL', id)[0])).toContain('Rejected by @bob in Slack'),
      { timeout: 20_000, interval: 50 },
    );
    expect(blockText(cardsIn(standin, 'C0GENERAL', id)[0])).toContain('Back up first');
    const got = (await mcp.call('get_approval', { approval_id: id })).structuredContent as Out;
    expect(got).toMatchObject({ status: 'rejected', decided_by: 'bob', via: 'slack', reason: 'Back up first' });
  });

  it('shows a cancelled or expired approval as such on every card, without buttons', async () => {
    const { approval_id: cancelled } = await ask({ title: 'Resize the volumes' });
    const { approval_id: expiring } = await ask({ title: 'Renew the certificate', expires_in: 3600 });
    const cards = await Promise.all([cancelled, expiring].map((id) => cardPosted(standin, dmChannelId(USERS.bob), id)));
    expect(blockText(cards[1])).toContain('expires <!date^');
    expect((await mcp.call('cancel_approval', { approval_id: cancelled })).isError).toBeFalsy();
    // What the approval.expire job does when its time comes.
    expect(await world.app.approvals.expire(world.ws.id, expiring)).toBe(true);
    await vi.waitFor(
      () => {
        const [c, e] = [
          cardsIn(standin, dmChannelId(USERS.bob), cancelled)[0],
          cardsIn(standin, dmChannelId(USERS.bob), expiring)[0],
        ];
        expect([hasButtons(c), hasButtons(e)]).toEqual([false, false]);
        expect(blockText(c)).toMatch(/Cancelled by the agent at \d\d:\d\d UTC/);
        expect(blockText(e)).toMatch(/Expired at \d\d:\d\d UTC without a decision/);
      },
      { timeout: 20_000, interval: 50 },
    );
    await world.click(USERS.bob, cards[1], 'approve');
    await ephemeralTo(standin, USERS.bob, 'This approval was already expired at');
  });

  it('does not let a guest approve what they asked for, even once linked', async () => {
    const mention = appMention({
      user: USERS.dan,
      channel: 'C0GENERAL',
      text: `<@${SLACK_DEFAULTS.botUserId}> @deployer wipe the cache`,
    });
    await world.post(eventCallback(mention));
    const item = await vi.waitFor(
      async () => {
        const found = (await world.app.messaging.checkInbox(world.deployer, world.ws, 50)).items.find(
          (i) => i.message.body === '@deployer wipe the cache',
        );
        if (!found) throw new Error('not delivered yet');
        return found;
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(item.asker.personId).toBeNull();
    const { approval_id: id } = await ask({ title: 'Wipe the cache', conversation: item.conversation.id });
    const card = await cardPosted(standin, 'C0GENERAL', id);
    // Dan links his Slack account to a new person who owns the workspace (an org admin).
    const dan = await world.app.orgs.addPerson(SYSTEM, { handle: 'dan', org: 'acme', role: 'admin' });
    const rt = slackRuntime(world.app);
    const identity = (await rt.identities.find({
      surface: 'slack',
      tenantId: SLACK_DEFAULTS.teamId,
      externalUserId: USERS.dan,
    }))!;
    await rt.identities.link(identity.id, dan.id, new Date());
    await world.click(USERS.dan, card, 'approve');
    await ephemeralTo(standin, USERS.dan, 'You asked for this as a guest, so someone else has to decide it.');
    expect(await status(id)).toBe('pending');
    // Nor as his person anywhere else (the web chat, Teams, his agent's MCP client), where the Slack account is not the one deciding.
    const web = await world.app.approvals
      .decide({
        approvalId: id,
        workspaceId: world.ws.id,
        decision: 'approved',
        decider: { personId: dan.id, role: 'owner' },
        via: 'web',
      })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(web).toMatchObject({
      code: 'NOT_PERMITTED',
      message: 'You asked for this as a guest, so someone else has to decide it.',
    });
    expect(await status(id)).toBe('pending');
  });

  /** Makes the core's decide throw `fail()` for the next `times` calls, then decide as usual. */
  function decideFails(times: number, fail: () => Error) {
    const { approvals } = world.app;
    const decide = approvals.decide;
    let left = times;
    approvals.decide = (async (...a: Parameters<typeof decide>) => {
      if (left > 0) {
        left--;
        throw fail();
      }
      return decide.apply(approvals, a);
    }) as typeof decide;
    return { left: () => left, restore: () => Reflect.deleteProperty(approvals, 'decide') };
  }
  const ephemeralsTo = (user: string) =>
    standin.callsTo('chat.postEphemeral').filter((c) => c.args.user === user).length;
  const clickJobs = () => world.app.store.outbox.list({ topic: SLACK_INBOUND });

  it('hands a click that meets a failure other than a refusal back to its stored job, which decides it; the person is told nothing', async () => {
    const { approval_id: id } = await ask({ title: 'Purge the CDN cache', approvers: ['alice'] });
    const card = await cardPosted(standin, dmChannelId(USERS.alice), id);
    const before = new Set((await clickJobs()).map((e) => e.id));
    const toldBefore = ephemeralsTo(USERS.alice);
    const failing = decideFails(2, () => new Error('socket hang up'));
    try {
      expect((await world.click(USERS.alice, card, 'approve')).status).toBe(200);
      await vi.waitFor(async () => expect(await status(id)).toBe('approved'), { timeout: 20_000, interval: 50 });
    } finally {
      failing.restore();
    }
    expect(failing.left()).toBe(0);
    const job = await vi.waitFor(
      async () => {
        const [e] = (await clickJobs()).filter((x) => !before.has(x.id));
        expect(e).toMatchObject({ status: 'done', attempts: 3 });
        return e;
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(job.lastError).toBe('socket hang up');
    expect(ephemeralsTo(USERS.alice)).toBe(toldBefore);
  });

  it('tells the person once, when their click is finally given up, and decides nothing', async () => {
    const { approval_id: id } = await ask({ title: 'Drop the staging database', approvers: ['alice'] });
    const card = await cardPosted(standin, dmChannelId(USERS.alice), id);
    const before = new Set((await clickJobs()).map((e) => e.id));
    const toldBefore = ephemeralsTo(USERS.alice);
    const failing = decideFails(1_000, () => new Error('socket hang up'));
    try {
      expect((await world.click(USERS.alice, card, 'approve')).status).toBe(200);
      // Given up after maxAttempts (8 by default) for an error not known to pass; told on that last attempt, not before.
      await vi.waitFor(
        async () => {
          const [job] = (await clickJobs()).filter((x) => !before.has(x.id));
          expect(job).toMatchObject({
            status: 'failed',
            attempts: 8,
            lastError: 'gave up after 8 attempts: socket hang up',
          });
        },
        { timeout: 60_000, interval: 50 },
      );
      const told = await ephemeralTo(standin, USERS.alice, 'could not handle your click on this approval');
      expect(told.args).toMatchObject({ channel: dmChannelId(USERS.alice) });
    } finally {
      failing.restore();
    }
    expect(ephemeralsTo(USERS.alice)).toBe(toldBefore + 1);
    expect(await status(id)).toBe('pending');
  });

  it('keeps an approval asked while Slack is down pending and visible on the web, and posts the card once Slack is back', async () => {
    standin.failNext('chat.postMessage', { status: 500 }, 3);
    const { approval_id: id } = await ask({ title: 'Scale the cluster', approvers: ['alice'] });
    expect(await status(id)).toBe('pending');
    const alice = await world.signIn('alice');
    const waiting = (await alice.api('GET', '/w/eng/approvals')).json().approvals as Array<{
      id: string;
      status: string;
      canDecide: boolean;
    }>;
    expect(waiting.find((a) => a.id === id)).toMatchObject({ status: 'pending', canDecide: true });

    const card = await cardPosted(standin, dmChannelId(USERS.alice), id);
    const tries = standin.callsTo('chat.postMessage').filter((c) => JSON.stringify(c.args.metadata ?? {}).includes(id));
    expect(tries.map((c) => c.status)).toEqual([500, 500, 500, 200]);
    expect(hasButtons(card)).toBe(true);
    expect(cardsIn(standin, dmChannelId(USERS.bob), id)).toHaveLength(0);
  });
});
