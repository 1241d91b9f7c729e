// The web chat open in a real browser (Debian's Chromium) when the server ends
// or refuses its event stream:
// - a person taken out of the organization is told so once and for all (the page stops trying), though the session
//   still holds;
// - a server failing with 5xx is tried again, with a note on the page meanwhile, until it answers;
// - a session that ended elsewhere sends the page to sign-in by itself, with a way back to where the person was.
// One server and one page per person for all three (this file took in test/web/access-end-chromium.test.ts, which
// had the same server and people).
import type { Browser, Locator, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { SYSTEM } from '../../../src/core/actor.ts';
import { keepScreenshot, launchChromium } from '../../support/web/chromium.ts';
import { openChat } from '../../support/web/chat-page.ts';
import { HttpBrowser } from '../../support/web/browser.ts';
import { seedOrg, startTestServer, type TestServer } from '../../support/web/server.ts';
import { chatOf } from '../../../src/surfaces/web/index.ts';

const PASSWORD = 'correct horse battery';
const isEvents = (r: Request) => new URL(r.url()).pathname === '/api/chat/w/acme/events';
const live = (page: Page) => page.evaluate(() => document.body.dataset.live);
const TROUBLE =
  /^The server is having trouble, so new messages may not show up here for now\. Trying again in (\d+) s…$/;
/** The seconds the trouble note says the next try is in. */
const nextTryIn = async (note: Locator) => Number(TROUBLE.exec((await note.textContent()) ?? '')?.[1] ?? NaN);

describe('the web chat when its event stream ends or is refused, in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let alice: Page;
  let bob: Page;
  const errors: string[] = [];

  const open = (handle: string) =>
    openChat(browser, server.url, handle, PASSWORD, { onPageError: (m) => errors.push(`${handle}: ${m}`) });

  beforeAll(async () => {
    server = await startTestServer();
    await seedOrg(server, { org: 'Acme', workspace: 'acme', admin: 'alice', member: 'bob', password: PASSWORD });
    browser = await launchChromium();
    [alice, bob] = await Promise.all([open('alice'), open('bob')]);
  }, 180_000);
  afterAll(async () => {
    await keepScreenshot(bob, 'access-end-final');
    await keepScreenshot(alice, 'session-end-final');
    await browser?.close();
    await server?.close();
  });

  it('says the person no longer has access, with a way on, and stops reconnecting, once they were taken out of the organization', async () => {
    onTestFailed(() => keepScreenshot(bob, 'failed-access-end-removed'));
    const where = bob.url();
    let tries = 0;
    bob.on('request', (r) => {
      if (isEvents(r)) tries++;
    });

    await server.app.orgs.removePerson(SYSTEM, 'acme', 'bob');

    // The stream ends at once; the browser's next try (after its 3 s retry) is refused with a 404, and the page says why.
    const heading = bob.getByRole('heading', { name: 'You no longer have access to this workspace' });
    await heading.waitFor({ timeout: 30_000 });
    await keepScreenshot(bob, 'access-ended');
    expect(await bob.locator('#access-ended [role="alert"]').textContent()).toContain(
      'taken out of it or out of its organization',
    );
    expect(await bob.getByRole('link', { name: 'Go to your workspaces' }).getAttribute('href')).toBe('/');
    expect(await bob.getByRole('link', { name: 'sign in again' }).getAttribute('href')).toBe('/signin');
    expect(await live(bob)).toBe('refused');
    // The workspace's channels and conversations go from the page with the access, and the message takes their place.
    expect(await bob.locator('#sidebar').isVisible()).toBe(false);
    expect(await bob.locator('#channel-list').isVisible()).toBe(false);
    // On a narrow screen too, where a button opens the sidebar: the button goes with it.
    const wide = bob.viewportSize();
    await bob.setViewportSize({ width: 600, height: 800 });
    expect(await bob.locator('#menu-toggle').isHidden()).toBe(true);
    expect(await bob.locator('#sidebar').isVisible()).toBe(false);
    if (wide) await bob.setViewportSize(wide);
    expect((await bob.locator('#access-ended').boundingBox())?.x).toBeLessThan(50);
    // Not sent to sign-in: the session still holds, it is the access that ended.
    expect(bob.url()).toBe(where);
    expect(await bob.locator('#live-trouble').count()).toBe(0);

    // It gives up for good: no further try comes in the 5 s after (the browser retries after 3 s).
    const triesThen = tries;
    await bob.waitForTimeout(5_000);
    expect(tries).toBe(triesThen);
    await heading.waitFor();

    // Going on leads to the chat without the workspace, which says what to do.
    await bob.getByRole('link', { name: 'Go to your workspaces' }).click();
    await bob.getByText('You are not in any workspace yet').waitFor({ timeout: 30_000 });
  }, 90_000);

  it("keeps trying while the server answers the stream's reconnection with a 5xx, says the server is having trouble, and recovers", async () => {
    onTestFailed(() => keepScreenshot(alice, 'failed-access-end-5xx'));
    const { app } = server;
    let failed = 0;
    alice.on('response', (r) => {
      if (isEvents(r.request()) && r.status() === 500) failed++;
    });
    // The page's own timers (its tries after a failure, 3 s and then longer) are moved on by the test instead of waited
    // out; the browser's reconnection after a cut stream is its own and keeps real time.
    await alice.clock.install();
    // The server breaks where every workspace request starts (the stream's own check keeps an open stream going)...
    const broken = Object.assign(
      async () => {
        throw new Error('the database is on fire');
      },
      { broken: true },
    );
    Object.defineProperty(chatOf(app).chat, 'viewer', { value: broken, configurable: true, writable: true });
    const note = alice.locator('#live-trouble');
    let later: number;
    try {
      // ...and the open stream is cut, so the browser reconnects by itself and meets the 500.
      server.http.server.closeAllConnections();
      await note.waitFor({ timeout: 30_000 });
      await keepScreenshot(alice, 'server-trouble');
      expect(await note.textContent()).toMatch(TROUBLE);
      expect(await note.getAttribute('role')).toBe('status');
      expect(await live(alice)).toBe('trouble');
      // Still the chat, not a dead end: when the time it named has passed, it tries again (another 500)...
      const first = await nextTryIn(note);
      await alice.clock.fastForward(first * 1000);
      await expect.poll(() => failed, { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
      // ...and names a later time for the next try.
      await expect.poll(() => nextTryIn(note), { timeout: 30_000 }).toBeGreaterThan(first);
      later = await nextTryIn(note);
      expect(await alice.locator('#access-ended').count()).toBe(0);
      expect(await alice.locator('#conv-title').textContent()).toBe('#general');
      expect(new URL(alice.url()).pathname).toBe('/');
    } finally {
      delete (chatOf(app).chat as { viewer?: unknown }).viewer;
    }

    // Once the server answers again, live updates come back by themselves (at the next try) and the note goes.
    await alice.clock.fastForward(later * 1000);
    await alice.waitForFunction(() => document.body.dataset.live === 'ready', null, { timeout: 90_000 });
    await note.waitFor({ state: 'detached' });
    expect(errors).toEqual([]);
  }, 150_000);

  it('goes to sign-in without a click once another browser changed the password (which signs out the others)', async () => {
    onTestFailed(() => keepScreenshot(alice, 'failed-session-end'));
    // The page follows live events again (the test before ends there).
    expect(await live(alice)).toBe('ready');
    const where = new URL(alice.url());
    const other = new HttpBrowser(server.url);
    await other.signIn('alice', PASSWORD);
    await other.get('/account');
    const changed = await other.form('/account/password', {
      current: PASSWORD,
      password: 'a long new passphrase',
      confirm: 'a long new passphrase',
    });
    expect(changed.status).toBe(200);

    // The stream ends at once; the browser tries again after its 3 s retry, is refused, and the page finds out why.
    await alice.waitForURL((url) => url.pathname === '/signin', { timeout: 30_000 });
    expect(new URL(alice.url()).searchParams.get('next')).toBe(where.pathname + where.hash);
    await alice.getByLabel('Password').waitFor();
  }, 60_000);
});
