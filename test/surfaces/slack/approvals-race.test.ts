// Many people deciding one approval at the same moment, from Slack (signed
// button clicks and reject-modal submissions) and from the web (HTTP POSTs):
// exactly one decision wins, every other one is told who settled it, and every
// view ends up showing the same outcome. On PGlite and on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { REASON_BLOCK, REASON_INPUT, REASON_VIEW } from '../../../src/surfaces/slack/approvals.ts';
import type { Database } from '../../../src/infra/db/client.ts';
import { databases } from '../../support/db.ts';
import { dmChannelId, SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { viewSubmission } from '../../support/slack/signed-request.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import type { HttpBrowser } from '../../support/web/browser.ts';
import {
  blockText,
  cardPosted,
  cardsIn,
  hasButtons,
  startApprovalsWorld,
  USERS,
  type ApprovalsWorld,
} from '../../support/slack/approvals-world.ts';
import { SLACK_APPROVAL_UPDATE } from '../../../src/surfaces/slack/topics.ts';

describe.each(databases())('a race to decide one approval ($kind)', (kind) => {
  let db: Database;
  let standin: SlackStandin;
  let world: ApprovalsWorld;
  let web: { alice: HttpBrowser; bob: HttpBrowser };

  beforeAll(async () => {
    [db, standin] = await Promise.all([kind.open(), startSlackStandin()]);
    world = await startApprovalsWorld({ database: db, standin });
    web = { alice: await world.signIn('alice'), bob: await world.signIn('bob') };
  });
  afterAll(async () => {
    await world?.stop();
    await standin?.close();
    await db?.close();
  });

  it('settles once: one winner, one outcome, every loser told who won, every card updated alike', async () => {
    const mcp = await world.mcp();
    const { approval_id: id } = (await mcp.call('request_approval', { title: 'Fail over the database' }))
      .structuredContent as { approval_id: string };
    await mcp.close();
    const cards = await Promise.all([
      cardPosted(standin, dmChannelId(USERS.alice), id),
      cardPosted(standin, dmChannelId(USERS.bob), id),
    ]);
    await vi.waitFor(async () => expect(await world.app.store.approvals.views(id, 'slack')).toHaveLength(2), {
      timeout: 20_000,
      interval: 50,
    });
    const [aliceCard, bobCard] = cards;
    const reject = (user: string, card: typeof aliceCard, reason: string) =>
      world.post(
        viewSubmission({
          user,
          view: {
            callback_id: REASON_VIEW,
            private_metadata: JSON.stringify({ approvalId: id, teamId: SLACK_DEFAULTS.teamId, channel: card.channel }),
            values: { [REASON_BLOCK]: { [REASON_INPUT]: { type: 'plain_text_input', value: reason } } },
          },
        }),
      );
    const decide = (who: HttpBrowser, decision: 'approve' | 'reject') =>
      who.api('POST', `/w/eng/approvals/${id}/decision`, { decision, reason: 'from the web' });

    const slack = [
      ...Array.from({ length: 3 }, () => world.click(USERS.alice, aliceCard, 'approve')),
      ...Array.from({ length: 3 }, () => world.click(USERS.bob, bobCard, 'approve')),
      reject(USERS.alice, aliceCard, 'from a Slack modal'),
      reject(USERS.bob, bobCard, 'from a Slack modal'),
    ];
    const fromWeb = [
      decide(web.alice, 'approve'),
      decide(web.bob, 'reject'),
      decide(web.alice, 'reject'),
      decide(web.bob, 'approve'),
      decide(web.alice, 'approve'),
      decide(web.bob, 'reject'),
    ];
    const [slackRes, webRes] = await Promise.all([Promise.all(slack), Promise.all(fromWeb)]);
    expect(slackRes.map((r) => r.status)).toEqual(slackRes.map(() => 200));

    // Every attempt is recorded: one accepted, all the others refused.
    const attempts = slack.length + fromWeb.length;
    const audit = await vi.waitFor(
      async () => {
        const entries = (await world.app.store.audit.list(world.ws.id, 100)).filter(
          (e) => e.target === id && e.action.startsWith('approval.'),
        );
        expect(entries).toHaveLength(attempts);
        return entries;
      },
      { timeout: 15_000 },
    );
    const accepted = audit.filter((e) => e.result !== 'refused');
    expect(accepted).toHaveLength(1);
    const final = await world.app.approvals.get(world.ws.id, id);
    expect(final.status).toBe(accepted[0].result);
    expect(final.decidedVia).toBe((accepted[0].details as { via: string }).via);
    for (const e of audit.filter((x) => x.result === 'refused'))
      expect((e.details as { why: string }).why).toMatch(/^(already settled|lost the race)$/);

    const webWins = webRes.filter((r) => r.status === 200);
    expect(webWins).toHaveLength(final.decidedVia === 'web' ? 1 : 0);
    for (const r of webRes.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(409);
      expect(r.json().error.message).toMatch(
        /already settled: (Approved|Rejected) by @(alice|bob) in (Slack|the web chat)/,
      );
    }
    const outcome = await world.app.approvals.outcome(final);
    const slackLosers = slack.length - (final.decidedVia === 'slack' ? 1 : 0);
    await vi.waitFor(
      () => {
        const late = standin
          .callsTo('chat.postEphemeral')
          .filter((c) => String(c.args.text).startsWith('This approval was already'));
        expect(late).toHaveLength(slackLosers);
      },
      { timeout: 15_000 },
    );

    await vi.waitFor(
      () => {
        for (const card of [aliceCard, bobCard]) {
          const now = cardsIn(standin, card.channel, id)[0];
          expect(hasButtons(now)).toBe(false);
          expect(blockText(now)).toContain(outcome);
        }
      },
      { timeout: 15_000 },
    );
    expect(
      (await world.app.store.outbox.list({ topic: SLACK_APPROVAL_UPDATE })).filter((e) => e.payload.approvalId === id),
    ).toHaveLength(1);
    const notices = (await world.app.messaging.checkInbox(world.deployer, world.ws, 100)).items.filter((i) =>
      i.message.body.startsWith(`Approval ${id}`),
    );
    expect(notices).toHaveLength(1);
  });
});
