import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_CHROMIUM, missingSentence, SERVICES } from '../services.ts';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM;
const ARTIFACTS = path.resolve(import.meta.dirname, '../../../test-artifacts');

/**
 * Debian's Chromium, headless, without sandbox (CI runs as root) and without any background traffic. One browser per
 * test process, shared by its files (a launch costs about 2 s of CPU): each file gets a handle whose contexts are its
 * own, and whose close() closes those contexts, not the browser, which ends with the process.
 */
export async function launchChromium(): Promise<Browser> {
  const browser = await sharedBrowser();
  const contexts = new Set<BrowserContext>();
  return Object.assign(Object.create(browser) as Browser, {
    async newContext(options?: BrowserContextOptions) {
      const context = await browser.newContext(options);
      contexts.add(context);
      return context;
    },
    async close() {
      await Promise.all([...contexts].map((c) => c.close().catch(() => {})));
      contexts.clear();
    },
  });
}

let shared: Promise<Browser> | undefined;
async function sharedBrowser(): Promise<Browser> {
  const running = await shared?.catch(() => undefined);
  if (running?.isConnected()) return running;
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      missingSentence(
        SERVICES.chromium,
        process.env.CHROMIUM_PATH ? `CHROMIUM_PATH names ${CHROMIUM}, which does not exist` : `there is no ${CHROMIUM}`,
      ),
    );
  }
  return (shared = chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  }));
}

/** Saves what the page looked like (on failure, and for the record). */
export async function keepScreenshot(page: Page | undefined, name: string) {
  if (!page || page.isClosed()) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  await page
    .screenshot({ path: path.join(ARTIFACTS, `${name.replace(/[^\w.-]+/g, '-').slice(0, 80)}.png`), fullPage: true })
    .catch(() => {});
}
