// In a real browser (Debian's Chromium), with the Slack stand-in: an owner lets
// an agent listen and bridges #general to Slack from the channel's settings
// panel, the header says so and follows a change made at the CLI; the intake
// page counts items per source and status, filters them by source, and triages
// an item from its panel; a person turns done notices off from their settings.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { runCommand } from '../../../src/cli/control.ts';
import { hashPassword } from '../../../src/http/auth/index.ts';
import { mentionAndReceive, startHarness, type Harness } from '../../support/slack/harness.ts';
import { pgliteDb, postgresDb } from '../../support/db.ts';
import { SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import { keepScreenshot, launchChromium } from '../../support/web/chromium.ts';
import { chatOf } from '../../../src/surfaces/web/index.ts';

const PASSWORD = 'correct horse battery';

describe('channel settings, header and intake page in Chromium', () => {
  let db: Database;
  let standin: SlackStandin;
  let h: Harness;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    [db, standin, browser] = await Promise.all([
      (postgresDb() ?? pgliteDb).open(),
      startSlackStandin(),
      launchChromium(),
    ]);
    standin.setChannelMembers('C0BRIDGED', [SLACK_DEFAULTS.botUserId]);
    standin.handle('conversations.info', ({ args }) => ({ ok: true, channel: { id: args.channel, name: 'eng-chat' } }));
    h = await startHarness({ database: db, standin, seed: true, allMounts: true });
    const alice = (await h.server.app.store.people.get('alice'))!;
    await h.server.app.store.people.setPasswordHash(alice.id, await hashPassword(PASSWORD));
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(`${h.server.url}/signin`);
    await page.getByLabel('Handle').fill('alice');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: /sign in/i }).click();
    await page.locator('#conv-title').waitFor();
  }, 120_000); // a cold start (database, Slack stand-in, server, sign-ins) on a loaded machine
  afterAll(async () => {
    await keepScreenshot(page, 'settings-final');
    await browser?.close();
    await h?.stop();
    await standin?.close();
    await db?.close();
  });
  const shootOnFailure = (name: string) => onTestFailed(() => keepScreenshot(page, `failed-settings-${name}`));

  it('lets an owner add a listening agent and a Slack bridge from the settings panel; the header shows both', async () => {
    shootOnFailure('panel');
    expect(await page.locator('#conv-title').textContent()).toBe('#general');
    await page.locator('#channel-settings').click();
    const dialog = page.locator('dialog[open]');
    await dialog.getByText('No agent listens to this channel').waitFor();
    await dialog.getByLabel('Let an agent listen').selectOption('alice/reviewer');
    await dialog.locator('#listen-add').click();
    await dialog.locator('#listener-list', { hasText: '@alice/reviewer' }).waitFor();

    // Only the chat apps configured here are offered (Slack), with how their channel ids look.
    expect(await dialog.locator('#bridge-surface option').allTextContents()).toEqual(['Slack']);
    expect(await dialog.getByLabel('Outside channel id').getAttribute('placeholder')).toBe('C0123ABCD');
    await dialog.getByLabel('Outside channel id').fill('C0BRIDGED');
    await dialog.locator('#bridge-add').click();
    await dialog.locator('#bridge-list', { hasText: 'Slack #eng-chat' }).waitFor();
    await dialog.locator('#settings-close').click();

    await expect.poll(() => page.locator('#conv-listening').textContent()).toBe('listening: @alice/reviewer');
    expect(await page.locator('#conv-bridges').textContent()).toBe(
      'Bridged with Slack #eng-chat: everyone there reads this channel.',
    );
    await keepScreenshot(page, 'settings-header');
  });

  it('says why a bridge cannot be made, in the panel', async () => {
    shootOnFailure('refusal');
    await page.locator('#channel-settings').click();
    const dialog = page.locator('dialog[open]');
    await dialog.getByLabel('Outside channel id').fill('C0NOTTHERE');
    await dialog.locator('#bridge-add').click();
    await expect
      .poll(() => dialog.getByRole('alert').textContent())
      .toMatch(
        /^The Slack channel C0NOTTHERE in the team \w+ was not found\. Check the id, and invite the Switchboard app to the channel\.$/,
      );
    await dialog.locator('#settings-close').click();
    await dialog.waitFor({ state: 'detached' });
  });

  it('updates the header live when an agent stops listening at the CLI', async () => {
    shootOnFailure('live');
    const r = await runCommand(h.server.app, 'channel unlisten', {
      workspace: 'eng',
      channel: 'general',
      agent: 'alice/reviewer',
    });
    expect(r.output?.data.removed).toBe(true);
    await expect.poll(() => page.locator('#conv-listening').isHidden()).toBe(true);
    await runCommand(h.server.app, 'channel listen', { workspace: 'eng', channel: 'general', agent: 'alice/reviewer' });
    await expect.poll(() => page.locator('#conv-listening').textContent()).toBe('listening: @alice/reviewer');
  });

  it('shows intake with counts per source and status, filters it by source, and opens a web source in the chat', async () => {
    shootOnFailure('intake');
    const { app } = h.server;
    const alice = (await app.store.people.get('alice'))!;
    const general = (await app.store.chat.channelByName(h.workspace.id, 'general'))!;
    const posted = await chatOf(app).chat.post(
      await chatOf(app).chat.viewer(alice.id, 'eng'),
      general.conversationId,
      '@reviewer please add a dark mode',
    );
    await app.intake.file(h.reviewer, h.workspace, {
      title: 'Dark mode',
      kind: 'feature request',
      summary: 'People want a dark theme.',
      sourceIds: [posted.message!.id],
    });
    // A Slack user without a linked account asks for a fix: Switchboard files it by itself.
    await mentionAndReceive(h, 'the deploy button fails');

    await page.locator('#nav-intake').click();
    await page.locator('#intake-list').waitFor();
    const bySource = await page.locator('#intake-by-source').textContent();
    expect(bySource).toContain('Slack 1');
    expect(bySource).toContain('Web chat 1');
    expect(await page.locator('#intake-by-status').textContent()).toBe('By status: new 2');
    expect(await page.locator('.intake-item').count()).toBe(2);

    await page.locator('#intake-surface').selectOption('slack');
    await expect.poll(() => page.locator('.intake-item').count()).toBe(1);
    expect(page.url()).toContain('/intake?surface=slack');
    expect(await page.locator('.intake-item .intake-title').textContent()).toMatch(/the deploy button fails/);
    expect(await page.locator('.intake-item .source-link').getAttribute('href')).toMatch(/^https:\/\//);
    expect(await page.locator('#intake-by-source').textContent()).toBe(bySource);

    await page.locator('#intake-surface').selectOption('web');
    await page.locator('.intake-item', { hasText: 'Dark mode' }).waitFor();
    expect(await page.locator('.intake-item').count()).toBe(1);
    await keepScreenshot(page, 'settings-intake');
    await page.locator('.intake-item .source-link', { hasText: 'Open in the chat' }).click();
    await expect.poll(() => page.locator('#conv-title').textContent()).toBe('#general');
  }, 60_000);

  it('triages an item from its panel on the intake page, and says in the panel why a change is refused', async () => {
    shootOnFailure('triage');
    await page.locator('#nav-intake').click();
    const item = page.locator('.intake-item', { hasText: 'Dark mode' });
    await item.locator('.intake-triage').click();
    const dialog = page.locator('dialog[open]');
    await dialog.locator('#triage-save').click();
    await expect
      .poll(() => dialog.getByRole('alert').textContent())
      .toBe('Choose a new status or write a note, then save.');
    await keepScreenshot(page, 'settings-intake-triage-panel');
    await dialog.getByLabel('Status').selectOption('in progress');
    await dialog.getByLabel('Note (optional)').fill('Design picked it up.');
    await dialog.locator('#triage-save').click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => item.getAttribute('data-status')).toBe('in progress');
    expect(await item.locator('.intake-notes').textContent()).toContain('note alice: Design picked it up.');
    await keepScreenshot(page, 'settings-intake-triage');
  });

  it("turns done notices off from the person's settings, the same choice the chat apps' command stores", async () => {
    shootOnFailure('notices');
    const alice = (await h.server.app.store.people.get('alice'))!;
    await page.locator('.user-menu summary').click();
    await page.locator('#menu-settings').click();
    const toggle = page.locator('#notices-toggle');
    await toggle.waitFor();
    expect(await toggle.isChecked()).toBe(true);
    await toggle.uncheck();
    await expect
      .poll(() => page.locator('#notices-status').textContent())
      .toBe('You will not be told when something you asked for is done.');
    expect(await h.server.app.intake.noticesOn({ personId: alice.id })).toBe(false);
    await toggle.check();
    await expect.poll(() => h.server.app.intake.noticesOn({ personId: alice.id })).toBe(true);
  });
});
