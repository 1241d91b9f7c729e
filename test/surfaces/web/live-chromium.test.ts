// An agent at work, seen in the web chat in a real browser (Debian's Chromium):
// its status shows as a line under the messages, its streamed answer grows
// live, and the finished message takes the draft's place; a cleared status
// goes away.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed, vi } from 'vitest';
import { SYSTEM } from '../../../src/core/actor.ts';
import { seedDemo } from '../../../src/demo/index.ts';
import type { Agent, Workspace } from '../../../src/core/entities.ts';
import { hashPassword } from '../../../src/http/auth/index.ts';
import { keepScreenshot, launchChromium } from '../../support/web/chromium.ts';
import { openChat } from '../../support/web/chat-page.ts';
import { startTestServer, type TestServer } from '../../support/web/server.ts';

const PASSWORD = 'correct horse battery';

describe('an agent at work, in the web chat in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let ws: Workspace;
  let writer: Agent;
  const errors: string[] = [];

  beforeAll(async () => {
    server = await startTestServer();
    await seedDemo(server);
    const { app } = server;
    const admin = (await app.store.people.get('demo-admin'))!;
    await app.store.people.setPasswordHash(admin.id, await hashPassword(PASSWORD));
    ({ agent: writer } = await app.agents.add(SYSTEM, {
      name: 'writer',
      owner: 'demo-admin',
      displayName: 'Writer',
      roleLine: 'Writes long answers',
    }));
    await app.agents.join(SYSTEM, { agent: 'demo-admin/writer', workspace: 'demo' });
    ws = (await app.store.workspaces.get('demo'))!;
    browser = await launchChromium();
    page = await openChat(browser, server.url, 'demo-admin', PASSWORD, { onPageError: (m) => errors.push(m) });
  }, 150_000);
  afterAll(async () => {
    await keepScreenshot(page, 'live-final');
    await browser?.close();
    await server?.close();
  });

  it('shows the status line, then the answer growing, then the finished message once', async () => {
    onTestFailed(() => keepScreenshot(page, 'failed-live'));
    const { app } = server;
    await page.locator('#composer-input').fill('@writer draft the release notes');
    await page.locator('#composer-input').press('Enter');
    const item = await vi.waitFor(async () => {
      const got = (await app.messaging.checkInbox(writer, ws, 10)).items.find((i) =>
        i.message.body.includes('draft the release notes'),
      );
      expect(got).toBeDefined();
      return got!;
    });
    const conversation = item.conversation.id;

    await app.live.setStatus(ws, writer, conversation, 'is thinking…');
    const status = page.locator('#main li.live-status');
    await expect.poll(() => status.textContent(), { timeout: 20_000 }).toBe('Writer is thinking…');
    expect(await status.getAttribute('role')).toBe('status');

    const started = await app.live.start({
      workspace: ws,
      sender: writer,
      conversationId: conversation,
      surface: 'mcp',
      text: 'Release notes:\n',
    });
    const draft = page.locator(`#main li.live-stream`);
    // The answer has begun: the status line gives way to the draft.
    await expect.poll(() => draft.locator('.live-text').textContent(), { timeout: 20_000 }).toBe('Release notes:\n');
    expect(await status.count()).toBe(0);
    expect(await draft.locator('.tag').textContent()).toBe('writing…');
    await app.live.append(ws, writer, started.streamId, '- faster search\n- <b>not bold</b>');
    await expect
      .poll(() => draft.locator('.live-text').textContent(), { timeout: 20_000 })
      .toBe('Release notes:\n- faster search\n- <b>not bold</b>');
    // Written as text while it streams: markup in it is not interpreted.
    expect(await draft.locator('b').count()).toBe(0);

    await app.live.finish(ws, writer, started.streamId);
    const final = page.locator(`#main li.message[data-id="${started.streamId}"]`);
    await final.waitFor({ timeout: 20_000 });
    expect(await final.locator('.body li').allTextContents()).toEqual(['faster search', '<b>not bold</b>']);
    await expect.poll(() => draft.count(), { timeout: 20_000 }).toBe(0);
    expect(await page.locator(`#main li.message[data-id="${started.streamId}"]`).count()).toBe(1);

    await app.live.setStatus(ws, writer, conversation, 'is checking links…');
    await expect.poll(() => status.textContent(), { timeout: 20_000 }).toBe('Writer is checking links…');
    await app.live.setStatus(ws, writer, conversation, null);
    await expect.poll(() => status.count(), { timeout: 20_000 }).toBe(0);
    expect(errors).toEqual([]);
    await keepScreenshot(page, 'live');
  });
});
