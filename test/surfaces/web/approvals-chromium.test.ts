// In a real browser (Debian's Chromium): an approver sees the request at the
// top of their inbox, approves it from the web card with a reason, and the
// Slack stand-in receives chat.update for every Slack card of it; a decision
// made in Slack reaches the open web card live.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { pgliteDb } from '../../support/db.ts';
import { dmChannelId } from '../../support/slack/defaults.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import {
  blockText,
  cardPosted,
  hasButtons,
  PASSWORD,
  startApprovalsWorld,
  USERS,
  type ApprovalsWorld,
} from '../../support/slack/approvals-world.ts';
import { keepScreenshot, launchChromium } from '../../support/web/chromium.ts';

describe('approving from the web card in Chromium', () => {
  let db: Database;
  let standin: SlackStandin;
  let world: ApprovalsWorld;
  let mcp: Awaited<ReturnType<ApprovalsWorld['mcp']>>;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    [db, standin, browser] = await Promise.all([pgliteDb.open(), startSlackStandin(), launchChromium()]);
    world = await startApprovalsWorld({ database: db, standin });
    mcp = await world.mcp();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  });
  afterAll(async () => {
    await keepScreenshot(page, 'approvals-final');
    await browser?.close();
    await mcp?.close();
    await world?.stop();
    await standin?.close();
    await db?.close();
  });

  const shootOnFailure = (name: string) => onTestFailed(() => keepScreenshot(page, `failed-approvals-${name}`));
  const ask = async (title: string) =>
    (
      (await mcp.call('request_approval', { title, details: 'Takes about five minutes.' })).structuredContent as {
        approval_id: string;
      }
    ).approval_id;
  const card = (title: string) => page.locator('.approval-card', { hasText: title });

  it('approves from the inbox card, and every Slack card of the approval is updated', async () => {
    shootOnFailure('approve');
    const id = await ask('Deploy the release candidate');
    const slackCards = await Promise.all([
      cardPosted(standin, dmChannelId(USERS.alice), id),
      cardPosted(standin, dmChannelId(USERS.bob), id),
    ]);

    await page.goto(`${world.server.url}/signin`);
    await page.getByLabel('Handle').fill('alice');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: /sign in/i }).click();
    await page.locator('#conv-title').waitFor();
    await page.locator('#nav-inbox').click();
    await page.getByRole('heading', { name: /Waiting for your decision/ }).waitFor();
    const mine = card('Deploy the release candidate');
    expect(await mine.locator('.body').textContent()).toBe('Takes about five minutes.');
    await mine.getByLabel('Reason').fill('Green across the board');
    await mine.getByRole('button', { name: 'Approve' }).click();

    await expect
      .poll(() => card('Deploy the release candidate').locator('.approval-outcome').textContent())
      .toMatch(/^Approved by @alice in the web chat at \d\d:\d\d UTC — “Green across the board”$/);
    expect(await card('Deploy the release candidate').getByRole('button', { name: 'Approve' }).count()).toBe(0);

    await vi.waitFor(
      () => {
        for (const c of slackCards) {
          const update = standin
            .callsTo('chat.update')
            .find((u) => u.args.channel === c.channel && u.args.ts === c.ts && u.status === 200);
          expect(update, `chat.update for ${c.channel}`).toBeDefined();
        }
      },
      { timeout: 10_000 },
    );
    for (const c of slackCards) {
      const now = standin.message(c.channel, c.ts)!;
      expect(hasButtons(now)).toBe(false);
      expect(blockText(now)).toContain('Approved by @alice in the web chat');
    }
    await keepScreenshot(page, 'approvals');
  });

  it('shows a new request live in the open inbox, and the decision made in Slack on its card', async () => {
    shootOnFailure('live');
    const id = await ask('Purge the CDN cache');
    await card('Purge the CDN cache').getByRole('button', { name: 'Approve' }).waitFor({ timeout: 10_000 });
    const forBob = await cardPosted(standin, dmChannelId(USERS.bob), id);
    await world.click(USERS.bob, forBob, 'approve');
    await expect
      .poll(() => card('Purge the CDN cache').locator('.approval-outcome').textContent(), { timeout: 10_000 })
      .toMatch(/^Approved by @bob in Slack at \d\d:\d\d UTC$/);
    expect(await card('Purge the CDN cache').getByRole('button', { name: 'Approve' }).count()).toBe(0);
  });

  it('shows a request asked in a channel live among its messages, and rejects it there with a reason', async () => {
    shootOnFailure('channel');
    await page.locator('#channel-list a', { hasText: 'general' }).click();
    await page.locator('#composer-input').fill('@deployer can you roll back the search index?');
    await page.locator('#composer-input').press('Enter');
    const item = await vi.waitFor(async () => {
      const found = (await world.app.messaging.checkInbox(world.deployer, world.ws, 50)).items.find((i) =>
        i.message.body.includes('roll back the search index'),
      );
      if (!found) throw new Error('not delivered yet');
      return found;
    });
    const { approval_id: id } = (
      await mcp.call('request_approval', { title: 'Roll back the search index', conversation: item.conversation.id })
    ).structuredContent as { approval_id: string };
    const inChannel = page.locator('#main .messages .approval-card', { hasText: 'Roll back the search index' });
    await inChannel.getByRole('button', { name: 'Reject' }).waitFor({ timeout: 10_000 });
    const slackCard = await cardPosted(standin, dmChannelId(USERS.bob), id);
    await inChannel.getByLabel('Reason').fill('Wait for the reindex');
    await inChannel.getByRole('button', { name: 'Reject' }).click();
    await expect
      .poll(() => inChannel.locator('.approval-outcome').textContent())
      .toMatch(/^Rejected by @alice in the web chat at \d\d:\d\d UTC — “Wait for the reindex”$/);
    await vi.waitFor(
      () =>
        expect(blockText(standin.message(slackCard.channel, slackCard.ts)!)).toContain(
          'Rejected by @alice in the web chat',
        ),
      { timeout: 10_000 },
    );
  });

  it('keeps a reason being typed when the card is drawn again (a reminder arrives meanwhile)', async () => {
    shootOnFailure('redraw');
    const id = await ask('Rotate the signing keys');
    await page.locator('#nav-inbox').click();
    const mine = card('Rotate the signing keys');
    await mine.getByRole('button', { name: 'Reject' }).waitFor({ timeout: 10_000 });
    const reason = mine.getByLabel('Reason');
    await reason.fill('Not during the freeze');
    const before = await mine.elementHandle();
    // A reminder publishes the pending approval again: the open inbox draws its card anew.
    expect(await world.app.approvals.remind(world.ws.id, id)).toBe(true);
    await vi.waitFor(async () => expect(await before!.evaluate((el) => el.isConnected)).toBe(false), {
      timeout: 10_000,
    });
    await expect
      .poll(() => card('Rotate the signing keys').getByLabel('Reason').inputValue())
      .toBe('Not during the freeze');
    await page.keyboard.type(', please');
    await card('Rotate the signing keys').getByRole('button', { name: 'Reject' }).click();
    await expect
      .poll(() => card('Rotate the signing keys').locator('.approval-outcome').textContent())
      .toMatch(/^Rejected by @alice in the web chat at \d\d:\d\d UTC — “Not during the freeze, please”$/);
  });

  it("opens an approval's own link (the one its card's time carries) and an intake item's at that item", async () => {
    shootOnFailure('links');
    const id = await ask('Renew the TLS certificate');
    await page.locator('#nav-inbox').click();
    const permalink = card('Renew the TLS certificate').locator('a.permalink');
    expect(await permalink.getAttribute('href')).toBe(`#/w/eng/approvals/${id}`);
    await page.goto(`${world.server.url}/#/w/eng/approvals/${id}`);
    await page.getByRole('heading', { name: 'Approval' }).waitFor();
    expect(await page.locator('.approval-page .approval-title').textContent()).toBe('Renew the TLS certificate');
    await page.locator('.approval-page').getByRole('button', { name: 'Approve' }).waitFor();

    const item = await world.app.intake.file(world.deployer, world.ws, {
      title: 'Certificates expire unnoticed',
      kind: 'bug',
      summary: 'Nobody is told before a certificate expires.',
      sourceIds: [],
    });
    await page.goto(`${world.server.url}/#/w/eng/intake/${item.id}`);
    const linked = page.locator('.intake-item.linked');
    await linked.waitFor();
    expect(await linked.getAttribute('data-id')).toBe(item.id);
    expect(await page.evaluate(() => document.activeElement?.closest('.intake-item')?.getAttribute('data-id'))).toBe(
      item.id,
    );
  });
});
