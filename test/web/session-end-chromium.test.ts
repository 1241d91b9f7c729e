// The web chat open in a real browser (Debian's Chromium) when its session ends
// elsewhere: the event stream ends, its reconnection is refused, and the page
// goes to sign-in by itself, with a way back to where the person was.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { keepScreenshot, launchChromium } from './e2e/browser.ts';
import { openChat } from './support/chat-page.ts';
import { HttpBrowser } from './support/browser.ts';
import { seedOrg, startTestServer, type TestServer } from './support/server.ts';

const PASSWORD = 'correct horse battery';

describe('the web chat when its session ends elsewhere, in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    server = await startTestServer();
    await seedOrg(server, { org: 'Acme', workspace: 'acme', admin: 'alice', member: 'bob', password: PASSWORD });
    browser = await launchChromium();
    page = await openChat(browser, server.url, 'alice', PASSWORD);
  }, 150_000);
  afterAll(async () => {
    await keepScreenshot(page, 'session-end-final');
    await browser?.close();
    await server?.close();
  });

  it('goes to sign-in without a click once another browser changed the password (which signs out the others)', async () => {
    onTestFailed(() => keepScreenshot(page, 'failed-session-end'));
    const where = new URL(page.url());
    const other = new HttpBrowser(server.url);
    await other.signIn('alice', PASSWORD);
    await other.get('/account');
    const changed = await other.form('/account/password', { current: PASSWORD, password: 'a long new passphrase', confirm: 'a long new passphrase' });
    expect(changed.status).toBe(200);

    // The stream ends at once; the browser tries again after its 3 s retry, is refused, and the page finds out why.
    await page.waitForURL((url) => url.pathname === '/signin', { timeout: 30_000 });
    expect(new URL(page.url()).searchParams.get('next')).toBe(where.pathname + where.hash);
    await page.getByLabel('Password').waitFor();
  }, 60_000);
});
