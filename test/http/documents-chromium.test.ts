// The documents pages in a real browser: reached from the chat's menu, in the
// chat's frame, following the system's dark theme like the chat does.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { seedDemo } from '../../src/demo/index.ts';
import { mountDocuments } from '../../src/http/documents/index.ts';
import { keepScreenshot, launchChromium } from '../support/web/chromium.ts';
import { startTestServer, type TestServer } from '../support/web/server.ts';

// The page background of the documents pages (--bg-soft in /assets/app.css) in each theme.
const LIGHT_BG = 'rgb(246, 247, 251)';
const DARK_BG = 'rgb(28, 30, 38)';

describe('the documents pages in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let signinPath: string;
  const pages: Page[] = [];

  /** A browser signed in as the demo admin (the sign-in link works once). */
  async function signedIn(): Promise<Page> {
    const page = await (
      await browser.newContext({ viewport: { width: 1200, height: 800 }, colorScheme: 'light' })
    ).newPage();
    pages.push(page);
    await page.goto(server.url + signinPath);
    await page.getByRole('button', { name: 'Continue as Demo Admin' }).click();
    await expect.poll(() => page.url()).toContain('/account?welcome=1');
    return page;
  }

  beforeAll(async () => {
    server = await startTestServer({ mounts: [mountDocuments] });
    const url = new URL((await seedDemo(server)).signinUrl);
    signinPath = url.pathname + url.search;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await keepScreenshot(pages[0], 'documents-final');
    await browser?.close();
    await server?.close();
  });

  it("opens the demo workspace's documents from the chat's menu, and leads back to the chat", async () => {
    const page = await signedIn();
    onTestFailed(() => keepScreenshot(page, 'failed-documents-menu'));
    await page.goto(`${server.url}/`);
    await expect.poll(() => page.locator('#conv-title').textContent()).toBe('#general');
    // The chat points its Documents entry at the workspace on screen once it has loaded.
    await expect.poll(() => page.locator('#menu-docs').getAttribute('href')).toBe('/docs/demo');
    await page.locator('.user-menu summary').click();
    await page.locator('.user-menu').getByRole('link', { name: 'Documents', exact: true }).click();

    await expect.poll(() => new URL(page.url()).pathname).toBe('/docs/demo');
    expect(await page.locator('h1').textContent()).toContain('Demo');
    expect(await page.locator('.side a[aria-current=page]').textContent()).toBe('Getting started');
    await page.getByRole('link', { name: /^NOTE-\d+$/ }).click();
    await expect.poll(() => page.locator('h1').textContent()).toMatch(/How the demo works/);
    expect(await page.locator('pre.content').textContent()).toContain('@helper help');
    // The frame is the chat's: its top bar names who is signed in.
    expect(await page.locator('.topbar .user-name').textContent()).toBe('Demo Admin');
    await keepScreenshot(page, 'documents-light');

    await page.locator('.user-menu summary').click();
    await page.locator('.user-menu').getByRole('link', { name: 'Chat', exact: true }).click();
    await expect.poll(() => page.locator('#conv-title').textContent()).toBe('#general');
  });

  it('follows the dark theme on the documents pages as the chat does', async () => {
    const page = pages[0];
    onTestFailed(() => keepScreenshot(page, 'failed-documents-dark'));
    const look = () =>
      page.evaluate(() => ({
        body: getComputedStyle(document.body).backgroundColor,
        text: getComputedStyle(document.body).color,
        topbar: getComputedStyle(document.querySelector('.topbar')!).backgroundColor,
      }));
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${server.url}/docs/demo`);
    await page.locator('h1').waitFor();
    const dark = await look();
    expect(dark.body).toBe(DARK_BG);
    expect(dark.text).toBe('rgb(232, 233, 240)');
    await keepScreenshot(page, 'documents-dark');

    await page.emulateMedia({ colorScheme: 'light' });
    const light = await look();
    expect(light.body).toBe(LIGHT_BG);
    expect(light.topbar).not.toBe(dark.topbar);
  });
});
