// The web chat's details in a real browser (Debian's Chromium): what is
// clicked before the chat's script has arrived still happens, search hits say
// where they were said and show their text as text, the token dialog does not
// lose a token that was not copied, the demo agent's card explains why its
// token stays with the server, and every button and muted text is readable
// (WCAG contrast of at least 4.5:1) in the light and the dark theme.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { SYSTEM } from '../../../src/core/actor.ts';
import { seedDemo } from '../../../src/demo/index.ts';
import { hashPassword } from '../../../src/http/auth/index.ts';
import { chatOf } from '../../../src/surfaces/web/index.ts';
import { mountDocuments } from '../../../src/http/documents/index.ts';
import { keepScreenshot, launchChromium } from '../../support/web/chromium.ts';
import { contrastOf, type ContrastFinding } from '../../support/web/contrast.ts';
import { startTestServer, type TestServer } from '../../support/web/server.ts';

const PASSWORD = 'correct horse battery';
/** expect.poll gives up after one second; a loaded 2-core machine needs longer. */
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 20_000, interval: 100 });

describe('web chat details in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    server = await startTestServer({ mounts: [mountDocuments] });
    await seedDemo(server);
    const admin = (await server.app.store.people.get('demo-admin'))!;
    await server.app.store.people.setPasswordHash(admin.id, await hashPassword(PASSWORD));
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 860 }, colorScheme: 'light' });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    page = await context.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${server.url}/signin`);
    await page.getByLabel('Handle').fill('demo-admin');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: /sign in/i }).click();
    // The first page load waits for the server to bundle the chat's script; on a loaded machine that takes a while.
    await page.locator('#conv-title', { hasText: '#general' }).waitFor({ timeout: 90_000 });
  }, 180_000);
  afterAll(async () => {
    await keepScreenshot(page, 'details-final');
    await browser?.close();
    await server?.close();
  });

  const shootOnFailure = (name: string) => onTestFailed(() => keepScreenshot(page, `failed-details-${name}`));
  const dialog = () => page.locator('dialog#dialog');

  it('keeps a click on the inbox and on "create a channel" made before the chat\'s script arrived, and does both once it has', async () => {
    shootOnFailure('early');
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/assets/app.js', async (route) => {
      await held;
      await route.continue();
    });
    // The page is parsed but not "loaded": a module script held back delays DOMContentLoaded.
    await page.goto(`${server.url}/`, { waitUntil: 'commit' });
    await page.locator('#new-channel').waitFor();
    // The server drew the workspace menu; the script has not run.
    expect(await page.locator('#workspace-select option').allTextContents()).toEqual(['Demo']);
    expect(await page.locator('main').textContent()).toContain('Loading');
    await page.locator('#nav-inbox').click();
    await page.locator('#new-channel').click();
    expect(await page.evaluate(() => document.documentElement.dataset.chat)).toBe('queued');
    expect(await page.locator('#new-channel').evaluate((b) => getComputedStyle(b).cursor)).toBe('progress');
    expect(new URL(page.url()).hash).toBe('#/inbox');

    release();
    await poll(() => page.locator('#page-title').textContent()).toBe('Inbox');
    expect(new URL(page.url()).hash).toBe('#/w/demo/inbox');
    await poll(() => dialog().locator('#dialog-title').textContent()).toBe('Create a channel');
    expect(await page.evaluate(() => document.documentElement.dataset.chat)).toBe('ready');
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    await page.unroute('**/assets/app.js');
    expect(errors).toEqual([]);
  }, 60_000);

  it("names the channel, or the thread and its channel, of each search hit, and shows a hit's HTML as text", async () => {
    shootOnFailure('search');
    const { chat } = chatOf(server.app);
    const admin = (await server.app.store.people.get('demo-admin'))!;
    const v = await chat.viewer(admin.id, 'demo');
    const general = (await chat.sidebar(v)).channels.find((c) => c.name === 'general')!;
    const root = (await chat.post(v, general.id, 'The owl census <img src=x onerror="window.pwned=1"> starts today'))
      .message!;
    const thread = await chat.openThread(v, root.id);
    await chat.post(v, thread.id, 'Counting the owl <b>nests</b> first');

    await page.locator('#search-input').fill('owl');
    await page.locator('#search-input').press('Enter');
    await poll(() => page.locator('#page-title').textContent()).toBe('Search: owl');
    const hits = page.locator('[aria-label="Search results"] li');
    await poll(() => hits.count()).toBe(2);
    const places = (await hits.locator('.where').allTextContents()).map((t) => t.replace(/ · $/, ''));
    // A thread is named after the first words of the message it started from.
    expect(places.sort()).toEqual([
      '#general',
      'Thread “The owl census <img src=x onerror="window.pwned=1"> starts…” in #general',
    ]);
    expect(await hits.locator('mark').allTextContents()).toEqual(['owl', 'owl']);
    expect(await hits.locator('.excerpt img, .excerpt b').count()).toBe(0);
    // The database cuts the words around a hit without the markup; the marks are the page's own elements.
    const excerpts = (await hits.locator('.excerpt').allTextContents()).join(' ');
    expect(excerpts).toContain('Counting the owl nests first');
    // Both messages are shown whole, so neither is marked as cut.
    expect(excerpts).not.toContain('…');
    expect(excerpts).not.toMatch(/[<>*]/);
    expect(await page.evaluate(() => (window as { pwned?: number }).pwned)).toBeUndefined();
    // A thread hit opens the thread beside its channel.
    await hits.filter({ hasText: 'nests' }).locator('a').click();
    await poll(() => page.locator('#thread-panel .message .body').last().textContent()).toContain('nests');
    expect(await page.locator('#conv-title').textContent()).toBe('#general');
  }, 60_000);

  it('warns before the token dialog closes with the token not copied: Escape twice and a click beside it keep it open', async () => {
    shootOnFailure('token-dialog');
    await page.locator('#nav-agents').click();
    await poll(() => page.locator('#page-title').textContent()).toBe('Agents');
    // The demo agent's card says why its token stays with the server instead of offering a rotation.
    const helper = page.locator('.agent-card', { hasText: 'Helper' });
    expect(await helper.locator('.token-held').textContent()).toMatch(/is the demo agent.*Create an agent of your own/);
    expect(await helper.getByRole('button', { name: 'Rotate token' }).count()).toBe(0);

    await page.getByRole('button', { name: 'Create an agent' }).click();
    await page.getByLabel('Name', { exact: true }).fill('owler');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await poll(() => dialog().locator('#dialog-title').textContent()).toBe('owler is ready');
    await dialog().getByRole('tab', { name: 'Cursor' }).click();
    expect(
      Object.keys(JSON.parse((await dialog().getByRole('tabpanel').locator('pre').textContent())!).mcpServers),
    ).toEqual(['switchboard-owler-demo']);

    const warning = dialog().locator('.close-warning');
    await page.keyboard.press('Escape');
    await poll(() => warning.isVisible()).toBe(true);
    expect(await warning.textContent()).toContain('You have not copied the token yet');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    await page.mouse.click(4, 430);
    expect(await dialog().evaluate((d: HTMLDialogElement) => d.open)).toBe(true);
    await dialog().getByRole('button', { name: 'I saved the token' }).click();
    expect(await warning.isVisible()).toBe(true);
    await keepScreenshot(page, 'details-token-warning');
    await dialog().getByRole('button', { name: 'Close without it' }).click();
    await poll(() => dialog().evaluate((d: HTMLDialogElement) => d.open)).toBe(false);

    // Once the token was copied, the dialog closes at once.
    await page.getByRole('button', { name: 'Create an agent' }).click();
    await page.getByLabel('Name', { exact: true }).fill('owler2');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await poll(() => dialog().locator('#dialog-title').textContent()).toBe('owler2 is ready');
    const tokenBox = dialog().locator('.token-box').first();
    await tokenBox.getByRole('button', { name: 'Copy' }).click();
    await poll(() => tokenBox.getByRole('button').textContent()).toBe('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await tokenBox.locator('pre').textContent());
    await page.keyboard.press('Escape');
    await poll(() => dialog().evaluate((d: HTMLDialogElement) => d.open)).toBe(false);

    // Copying the token by hand (selected, then copied) counts too.
    await page.getByRole('button', { name: 'Create an agent' }).click();
    await page.getByLabel('Name', { exact: true }).fill('owler3');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await poll(() => dialog().locator('#dialog-title').textContent()).toBe('owler3 is ready');
    await dialog()
      .locator('.token-box pre')
      .first()
      .evaluate((pre) => {
        getSelection()!.selectAllChildren(pre);
        // What the browser sends when the person copies the selection.
        pre.dispatchEvent(new ClipboardEvent('copy', { bubbles: true }));
      });
    await dialog().getByRole('button', { name: 'I saved the token' }).click();
    await poll(() => dialog().evaluate((d: HTMLDialogElement) => d.open)).toBe(false);
    expect(errors).toEqual([]);
  }, 90_000);

  it('gives every button and muted text a contrast of at least 4.5:1 in the light and the dark theme', async () => {
    shootOnFailure('contrast');
    // Approval cards: one waiting for the admin (in the inbox, with its buttons), one cancelled (in #general).
    const { app } = server;
    const ws = (await app.store.workspaces.get('demo'))!;
    const helper = (await app.store.agents.byQualifiedName('demo-admin', 'helper'))!;
    const general = (await chatOf(app).chat.sidebar(await chatOf(app).chat.viewer(helper.ownerId, 'demo'))).channels[0]
      .id;
    await app.approvals.request(helper, ws, {
      title: 'Publish the owl report',
      details: 'Takes five minutes.',
      approvers: ['demo-admin'],
    });
    const gone = await app.approvals.request(helper, ws, {
      title: 'Archive last year',
      details: 'No longer needed.',
      conversationId: general,
    });
    await app.approvals.cancel(helper, ws.id, gone.id);
    // An agent of the admin's own (its token dialog comes from a rotation), and a message for the search to find.
    await app.agents.add(SYSTEM, { name: 'shade', owner: 'demo-admin', displayName: 'Shade' });
    await app.agents.join(SYSTEM, { agent: 'demo-admin/shade', workspace: 'demo' });
    await chatOf(app).chat.post(await chatOf(app).chat.viewer(helper.ownerId, 'demo'), general, 'Where do owls sleep?');
    const low: Array<ContrastFinding & { where: string }> = [];
    let checked = 0;
    const audit = async (where: string) => {
      const found = await contrastOf(page);
      checked += found.length;
      low.push(...found.filter((f) => f.ratio < 4.5).map((f) => ({ ...f, where })));
    };
    const views: Array<[string, () => Promise<void>]> = [
      [
        '#general',
        async () => {
          await page.goto(`${server.url}/#/w/demo`);
          await page.locator('.approval-card').waitFor();
          // An agent at work shows a muted status line under the messages (sent once the page follows live events).
          await poll(() => page.evaluate(() => document.body.dataset.live)).toBe('ready');
          await app.live.setStatus(ws, helper, general, null);
          await app.live.setStatus(ws, helper, general, 'is thinking…');
          await page.locator('.live-status').waitFor();
        },
      ],
      [
        'the agents page',
        async () => {
          await page.locator('#nav-agents').click();
          await page.locator('.agent-card').first().waitFor();
        },
      ],
      [
        'the token dialog',
        async () => {
          page.once('dialog', (confirm) => {
            void confirm.accept();
          });
          await page.locator('.agent-card', { hasText: 'Shade' }).getByRole('button', { name: 'Rotate token' }).click();
          await dialog().locator('.token-box').first().waitFor();
          await page.keyboard.press('Escape');
          await dialog().locator('.close-warning').waitFor();
        },
      ],
      [
        'the inbox',
        async () => {
          await page.goto(`${server.url}/#/w/demo/inbox`);
          await page.getByRole('button', { name: 'Approve' }).waitFor();
        },
      ],
      // The results' own list: the inbox shown before has list items too.
      [
        'search results',
        async () => {
          await page.goto(`${server.url}/#/w/demo/search?q=owl`);
          await page.locator('[aria-label="Search results"] li').first().waitFor();
        },
      ],
      [
        'the documents',
        async () => {
          await page.goto(`${server.url}/docs/demo`);
          await page.locator('h1').waitFor();
        },
      ],
      [
        'a document',
        async () => {
          await page.getByRole('link', { name: /^NOTE-\d+$/ }).click();
          await page.locator('pre.content').waitFor();
        },
      ],
      [
        'the account page',
        async () => {
          await page.goto(`${server.url}/account`);
          await page.locator('h1').waitFor();
        },
      ],
    ];
    // Each view is shown once and measured in both themes: the themes are CSS alone (prefers-color-scheme), so the page
    // recolours in place and a view need not be loaded again for the other theme. The theme it is shown in alternates.
    const schemes = ['light', 'dark'] as const;
    let shownIn = 0;
    for (const [name, show] of views) {
      await page.emulateMedia({ colorScheme: schemes[shownIn] });
      await show();
      for (const scheme of [schemes[shownIn], schemes[1 - shownIn]]) {
        await page.emulateMedia({ colorScheme: scheme });
        // A colour in transition would be measured half-way.
        await page.waitForFunction(() =>
          document.getAnimations().every((a) => !(a instanceof CSSTransition) || a.playState === 'finished'),
        );
        await audit(`${name} (${scheme})`);
      }
      if (name === 'the token dialog') {
        await dialog().getByRole('button', { name: 'Close without it' }).click();
      }
      shownIn = 1 - shownIn;
    }
    for (const scheme of schemes) {
      await page.emulateMedia({ colorScheme: scheme });
      await keepScreenshot(page, `details-contrast-${scheme}`);
    }
    // Enough was measured for the check to mean something.
    expect(checked).toBeGreaterThan(100);
    expect(low).toEqual([]);
  }, 180_000);
});
