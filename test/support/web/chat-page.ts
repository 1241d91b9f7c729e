// The Chromium tests' way into the web chat: a fresh browser context, signed in
// with a password on /signin, waiting until the chat shows #general and its
// event stream is open.
import type { Browser, Page } from 'playwright-core';

/**
 * Opens a page of its own (1280×800) in `browser`, signs `handle` in through the sign-in form at `baseUrl`, and
 * resolves once #general is open and the live event stream is ready (`body[data-live="ready"]`), so a test can count
 * on live updates from its first step. `onPageError` hears every uncaught error of the page's scripts.
 */
export async function openChat(
  browser: Browser,
  baseUrl: string,
  handle: string,
  password: string,
  o: { onPageError?: (message: string) => void } = {},
): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  if (o.onPageError) page.on('pageerror', (e) => o.onPageError!(e.message));
  await page.goto(`${baseUrl}/signin`);
  await page.getByLabel('Handle').fill(handle);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: /sign in/i }).click();
  // Generous: on a loaded 2-core machine Chromium, the first page and the event stream can each take many seconds.
  await page.locator('#conv-title', { hasText: '#general' }).waitFor({ timeout: 45_000 });
  await page.waitForFunction(() => document.body.dataset.live === 'ready', null, { timeout: 45_000 });
  return page;
}
