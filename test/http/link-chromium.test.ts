// The link page in a real browser: open the link from a chat DM while signed
// out, sign in, come back to the page, confirm, and see the account linked.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { slackLinkWording } from '../../src/surfaces/slack/linking.ts';
import { mountLink } from '../../src/http/link/index.ts';
import { keepScreenshot, launchChromium } from '../support/web/chromium.ts';
import { seedOrg, startTestServer, type TestServer } from '../support/web/server.ts';

describe('the link page in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let password: string;

  beforeAll(async () => {
    server = await startTestServer({ mounts: [mountLink] });
    // Slack is not mounted here; its surface registers this wording when it is.
    server.app.links.registerWording('slack', slackLinkWording('/switchboard'));
    ({ password } = await seedOrg(server, { org: 'Acme', workspace: 'acme', admin: 'alice' }));
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 900, height: 700 } })).newPage();
  });
  afterAll(async () => {
    await keepScreenshot(page, 'link-final');
    await browser?.close();
    await server?.close();
  });

  it('signs in on the way and links the chat account with one click', async () => {
    onTestFailed(() => keepScreenshot(page, 'failed-link'));
    const { app } = server;
    const carol = await app.store.identities.upsert(
      { surface: 'slack', tenantId: 'T0CHROME', externalUserId: 'U0CAROL01' },
      { displayName: 'Carol Chen', fetchedAt: new Date() },
    );
    const path = new URL((await app.links.offer(carol, { tenantName: 'Acme Slack' })).url).pathname;

    await page.goto(server.url + path);
    await expect.poll(() => page.url()).toContain('/signin?next=');
    await page.getByLabel('Handle').fill('alice');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();

    await expect.poll(() => new URL(page.url()).pathname).toBe(path);
    await expect.poll(() => page.locator('h1').textContent()).toBe('Link your chat account');
    expect(await page.locator('.link-account').textContent()).toContain(
      'Carol Chen (user U0CAROL01) in the Slack team Acme Slack',
    );
    await keepScreenshot(page, 'link-confirm');
    await page.getByRole('button', { name: 'Link my account' }).click();

    await expect.poll(() => page.locator('[role=status]').textContent()).toBe('Linked as @alice.');
    expect((await app.store.identities.get(carol.id))?.personId).toBe((await app.store.people.get('alice'))!.id);

    // Going back and posting again is refused: the link worked once.
    await page.goto(server.url + path);
    await expect.poll(() => page.locator('[role=alert]').textContent()).toContain('already used');
  });
});
