// Posts that are not an agent's message are made once even when Slack took
// the post and the answer never came back (the same as a process dying
// between chat.postMessage and recording its ts): the retry finds the post by
// the key in its metadata instead of posting it again.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { pgliteDb, postgresDb } from '../../support/db.ts';
import { SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { appMention, eventCallback, slashCommand } from '../../support/slack/signed-request.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import { cardsIn, startApprovalsWorld, USERS, type ApprovalsWorld } from '../../support/slack/approvals-world.ts';

const LONG = { timeout: 30_000, interval: 50 };

describe('Slack posts made once across a lost answer', () => {
  let db: Database;
  let standin: SlackStandin;
  let world: ApprovalsWorld;
  let mcp: Awaited<ReturnType<ApprovalsWorld['mcp']>>;
  /** Every inbox item bob/deployer has received so far (read once; the inbox is consumed). */
  const seen: Array<{ body: string; conversationId: string }> = [];
  const inboxHas = (body: string) =>
    vi.waitFor(async () => {
      seen.push(
        ...(await world.app.messaging.checkInbox(world.deployer, world.ws, 50)).items.map((i) => ({
          body: i.message.body,
          conversationId: i.conversation.id,
        })),
      );
      const found = seen.find((i) => i.body === body);
      expect(found).toBeDefined();
      return found!;
    }, LONG);

  beforeAll(async () => {
    [db, standin] = await Promise.all([(postgresDb() ?? pgliteDb).open(), startSlackStandin()]);
    world = await startApprovalsWorld({ database: db, standin });
    mcp = await world.mcp();
  });
  afterAll(async () => {
    await mcp?.close();
    await world?.stop();
    await standin?.close();
    await db?.close();
  });

  it('posts an approval card once when Slack stored it but the answer was lost, and keeps that card as the view', async () => {
    const mention = appMention({
      user: USERS.carol,
      channel: 'C0GENERAL',
      text: `<@${SLACK_DEFAULTS.botUserId}> @deployer may I ship?`,
    });
    expect((await world.post(eventCallback(mention))).status).toBe(200);
    const { conversationId } = await inboxHas('@deployer may I ship?');
    const lookupsBefore = standin.callsTo('conversations.replies').length;

    standin.failNext('chat.postMessage', { dropAfterHandling: true });
    const asked = (await mcp.call('request_approval', { title: 'Ship it', conversation: conversationId }))
      .structuredContent as { approval_id: string };
    const views = await vi.waitFor(async () => {
      const v = await world.app.store.approvals.views(asked.approval_id, 'slack');
      expect(v).toHaveLength(1);
      return v;
    }, LONG);

    const cards = cardsIn(standin, 'C0GENERAL', asked.approval_id);
    expect(cards).toHaveLength(1);
    expect(views[0].ref).toMatchObject({ channel: 'C0GENERAL', ts: cards[0].ts, thread_ts: mention.ts });
    expect(standin.callsTo('conversations.replies').length).toBeGreaterThan(lookupsBefore);
  }, 60_000);

  it('posts a slash command\'s "asked" message once when Slack stored it but the answer was lost, and delivers the request once', async () => {
    standin.failNext('chat.postMessage', { dropAfterHandling: true });
    const res = await world.post(
      slashCommand({
        command: '/switchboard',
        text: 'deployer roll back the canary',
        user_id: USERS.carol,
        channel_id: 'C0GENERAL',
        response_url: standin.responseUrl(),
      }),
    );
    expect(res.status).toBe(200);
    await inboxHas('roll back the canary');

    const asks = standin.messages('C0GENERAL').filter((m) => (m.text ?? '').includes('roll back the canary'));
    expect(asks).toHaveLength(1);
    expect(asks[0].text).toContain(`<@${USERS.carol}> asked`);
    expect(seen.filter((i) => i.body === 'roll back the canary')).toHaveLength(1);
    // The lost answer was retried, not told to the person as a failure.
    expect(standin.responseUrlPosts.filter((p) => JSON.stringify(p.body).includes('did not take'))).toEqual([]);
  }, 60_000);
});
