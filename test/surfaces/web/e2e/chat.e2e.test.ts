import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { SYSTEM } from '../../../../src/core/actor.ts';
import { DEMO, startDemo } from '../../../../src/demo/index.ts';
import { mountMcp } from '../../../../src/mcp/http.ts';
import { startTestServer, type TestServer } from '../../../support/web/server.ts';
import { keepScreenshot, launchChromium } from '../../../support/web/chromium.ts';

/**
 * The newcomer's path in a real browser: `serve --demo` (seed and the demo
 * agent as an MCP client over HTTP), sign in with the printed link, talk to
 * the agent in #general, open a thread, and see unread counts move.
 */
describe('the web chat in Chromium, with the demo agent connected over MCP', () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let signinPath: string;

  beforeAll(async () => {
    // Slack configured (not mounted): its messages below are labelled as it registers ("via Slack", "View in Slack").
    server = await startTestServer({
      mounts: [mountMcp],
      env: { SLACK_SIGNING_SECRET: 'e2e-signing-secret', SLACK_BOT_TOKEN: 'xoxb-e2e' },
    });
    const demo = await startDemo(server);
    signinPath = new URL(demo.signinUrl).pathname + new URL(demo.signinUrl).search;
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
  });
  afterAll(async () => {
    await keepScreenshot(page, 'chat-final');
    await browser?.close();
    await server?.close();
  });

  const shootOnFailure = (name: string) => onTestFailed(() => keepScreenshot(page, `failed-${name}`));
  const composer = () => page.locator('#composer-input');
  const channelLink = (name: string) => page.locator('#channel-list a', { hasText: name });

  it('signs in with the one-time link and lands in #general', async () => {
    shootOnFailure('signin');
    await page.goto(server.url + signinPath);
    await page.getByRole('button', { name: 'Continue as Demo Admin' }).click();
    await expect.poll(() => page.url()).toContain('/account?welcome=1');
    await page.getByRole('link', { name: 'Go to the chat' }).click();
    await expect.poll(() => page.locator('#conv-title').textContent()).toBe('#general');
    await expect.poll(() => page.locator('.message .body').first().textContent()).toContain('Welcome to Switchboard');
  });

  it('mentions the demo agent in #general and shows its answer live, without reloading', async () => {
    shootOnFailure('mention');
    await page.evaluate(() => {
      (window as unknown as { sameDocument: boolean }).sameDocument = true;
    });
    await composer().fill('@helper agents');
    await composer().press('Enter');
    const reply = page.locator('.message', { hasText: 'Here is who is in this workspace' });
    await reply.waitFor({ timeout: 20_000 });
    expect(await reply.locator('.sender').textContent()).toBe('Helper');
    expect(await reply.locator('.tag').textContent()).toBe('agent');
    expect(await reply.locator('.body').textContent()).toContain('Demo Admin (@demo-admin)');
    expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
  });

  it('opens a thread on a message, asks the agent there, and counts the replies', async () => {
    shootOnFailure('thread');
    const mine = page.locator('#main .message').filter({ has: page.getByText('@helper agents', { exact: true }) });
    await mine.hover();
    await mine.getByRole('button', { name: 'Reply in thread' }).click();
    const panel = page.locator('#thread-panel');
    await panel.waitFor({ state: 'visible' });
    expect(await panel.locator('.root .body').textContent()).toBe('@helper agents');
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.id))
      .toMatch(/composer/);
    await page.keyboard.type('@helper hello from the thread');
    await page.keyboard.press('Enter');
    await panel.locator('.message', { hasText: 'You said: "hello from the thread"' }).waitFor({ timeout: 20_000 });
    await expect.poll(() => mine.locator('.thread-link').textContent()).toBe('2 replies');
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'hidden' });
  });

  it('counts unread messages in the sidebar and clears them when the conversation is opened', async () => {
    shootOnFailure('unread');
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.locator('.agent-card', { hasText: 'Helper' }).locator('.presence.on').waitFor();
    // Someone else writes in #general, mentioning the admin, while the admin looks at the agents page.
    const { app } = server;
    const bob = await app.orgs.addPerson(SYSTEM, { handle: 'bob', org: 'demo', displayName: 'Bob' });
    const ws = (await app.store.workspaces.get(DEMO.workspace))!;
    const bobAgent = (await app.store.agents.personAgent(bob.id))!;
    const general = (await app.store.chat.channelByName(ws.id, 'general'))!;
    const conversation = (await app.store.messages.getConversation(ws.id, general.conversationId))!;
    const admin = (await app.agents.directory(ws)).find((d) => d.agent.name === DEMO.admin)!;
    await app.messaging.send({
      workspace: ws,
      sender: bobAgent,
      conversation,
      recipients: [admin],
      body: 'Hi @demo-admin, the report is ready',
      surface: 'web',
    });

    await expect
      .poll(() => channelLink('general').locator('.badge').textContent(), { timeout: 10_000 })
      .toBe('1 unread');
    await expect.poll(() => page.locator('#nav-inbox').getAttribute('aria-label')).toBe('Inbox, 1 unread');
    await expect.poll(() => page.title()).toMatch(/^\(2\) /);
    await channelLink('general').click();
    await page.locator('.message', { hasText: 'the report is ready' }).waitFor();
    await expect.poll(() => channelLink('general').locator('.badge').count()).toBe(0);
    await expect.poll(() => page.locator('#nav-inbox').getAttribute('aria-label')).toBe('Inbox');
    await keepScreenshot(page, 'chat');

    // A permalink a platform reports becomes a "View in Slack" link only when it is a web address.
    const fromSlack = (body: string, permalink: string) =>
      app.messaging.send({
        workspace: ws,
        sender: bobAgent,
        conversation,
        recipients: [],
        body,
        surface: 'slack',
        permalink,
      });
    await fromSlack('posted in Slack with a javascript: permalink', 'javascript:alert(1)');
    await fromSlack(
      'posted in Slack with a web permalink',
      'https://acme.slack.com/archives/C0GENERAL/p1700000000000100',
    );
    await page.locator('.message', { hasText: 'with a web permalink' }).waitFor();
    expect(
      await page
        .locator('.message', { hasText: 'with a web permalink' })
        .getByRole('link', { name: 'View in Slack' })
        .getAttribute('href'),
    ).toBe('https://acme.slack.com/archives/C0GENERAL/p1700000000000100');
    expect(await page.locator('.message', { hasText: 'with a web permalink' }).locator('.tag.via').textContent()).toBe(
      'via Slack',
    );
    expect(await page.locator('.message', { hasText: 'with a javascript: permalink' }).locator('a').count()).toBe(0);

    // Markdown renders as formatted HTML; a script or a javascript: link in it neither runs nor links.
    await app.messaging.send({
      workspace: ws,
      sender: bobAgent,
      conversation,
      recipients: [],
      surface: 'web',
      body: 'Markdown **check** [docs](https://example.com/docs) [bad](javascript:window.pwned=1) <script>window.pwned=2</script> <img src=x onerror="window.pwned=3">',
    });
    const md = page.locator('.message', { hasText: 'Markdown' }).last().locator('.body');
    await md.locator('strong', { hasText: 'check' }).waitFor({ timeout: 10_000 });
    expect(await md.locator('a', { hasText: 'docs' }).getAttribute('href')).toBe('https://example.com/docs');
    expect(await md.locator('a', { hasText: 'docs' }).getAttribute('rel')).toBe('noopener noreferrer nofollow');
    expect(await md.locator('a', { hasText: 'bad' }).count()).toBe(0);
    expect(await md.locator('script, img').count()).toBe(0);
    expect(await md.textContent()).toContain('<script>window.pwned=2</script>');
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
  });

  it('pages the inbox: the older page shows what the first left out, and the badge drops to 0 once both were seen', async () => {
    shootOnFailure('inbox-pages');
    const { app } = server;
    const ws = (await app.store.workspaces.get(DEMO.workspace))!;
    const admin = (await app.agents.directory(ws)).find((d) => d.agent.name === DEMO.admin)!.agent;
    const system = await app.orgs.systemAgent();
    for (let i = 1; i <= 52; i++) await app.messaging.notice(ws, system, admin, `Inbox notice ${i}`);
    const inboxLink = page.locator('#nav-inbox');
    await expect.poll(() => inboxLink.getAttribute('aria-label'), { timeout: 10_000 }).toBe('Inbox, 52 unread');

    await inboxLink.click();
    const items = page.locator('#main .list .list-item');
    await items.first().filter({ hasText: 'Inbox notice 52' }).waitFor();
    expect(await items.count()).toBe(50);
    expect(await items.locator('.excerpt').allTextContents()).not.toContain('Inbox notice 2');
    await expect.poll(() => inboxLink.getAttribute('aria-label')).toBe('Inbox, 2 unread');

    // The pager is plain links, reached and followed with the keyboard.
    const olderLink = page
      .getByRole('navigation', { name: 'Inbox pages' })
      .getByRole('link', { name: 'Older', exact: true });
    await olderLink.focus();
    await page.keyboard.press('Enter');
    await expect
      .poll(() => items.locator('.excerpt').allTextContents())
      .toEqual(expect.arrayContaining(['Inbox notice 2', 'Inbox notice 1']));
    expect(new URL(page.url()).hash).toBe('#/w/demo/inbox?page=2');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('page-title');
    await expect.poll(() => inboxLink.getAttribute('aria-label')).toBe('Inbox');
    expect(await page.getByRole('link', { name: 'Older', exact: true }).count()).toBe(0);
    await page.getByRole('link', { name: 'Newer', exact: true }).click();
    await items.first().filter({ hasText: 'Inbox notice 52' }).waitFor();
    expect(new URL(page.url()).hash).toBe('#/w/demo/inbox');
  });

  it('creates an agent and shows its token once with the MCP configuration', async () => {
    shootOnFailure('create-agent');
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('button', { name: 'Create an agent' }).click();
    const dialog = page.locator('dialog');
    await dialog.getByLabel('Name', { exact: true }).fill('builder');
    await dialog.getByLabel('Display name').fill('Builder');
    await dialog.getByLabel('Role (one line)').fill('Builds things');
    await dialog.getByRole('button', { name: 'Create agent' }).click();
    await dialog.getByText('it is shown only once').waitFor();
    const token = await dialog.getByLabel('Token', { exact: true }).textContent();
    expect(token).toMatch(/^sb_/);
    expect(await dialog.getByLabel('MCP server URL').textContent()).toBe(`${server.app.config.publicUrl}/mcp/demo`);
    await dialog.getByRole('tab', { name: 'Cursor' }).click();
    expect(await dialog.getByRole('tabpanel').textContent()).toContain(`"Authorization": "Bearer ${token}"`);
    // Nothing was copied, so the dialog asks before it lets the token go.
    await dialog.getByRole('button', { name: 'I saved the token' }).click();
    await dialog.getByRole('button', { name: 'Close without it' }).click();
    await expect.poll(() => dialog.evaluate((d: HTMLDialogElement) => d.open)).toBe(false);
    await page.locator('.agent-card', { hasText: 'Builder' }).waitFor();
    expect((await server.app.agents.authenticate(token!))?.name).toBe('builder');
  });
});
