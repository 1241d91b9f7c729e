// The web chat after a gap in the server's wake-ups (PostgreSQL dropped the
// LISTEN connection and it came back): the open conversation reloads, so a
// message whose wake-up was lost meanwhile appears without a page reload, on
// real PostgreSQL in Debian's Chromium.
import { sql } from 'drizzle-orm';
import pg from 'pg';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { rowsOf } from '../../../src/infra/db/org-repo.ts';
import { postgresDb } from '../../support/db.ts';
import { keepScreenshot, launchChromium } from '../../support/web/chromium.ts';
import { openChat } from '../../support/web/chat-page.ts';
import { HttpBrowser } from '../../support/web/browser.ts';
import { seedOrg, startTestServer, type TestServer } from '../../support/web/server.ts';

const pgDb = postgresDb();
const PASSWORD = 'correct horse battery';

describe.runIf(pgDb)('the web chat after the server lost its notification connection, in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let admin: pg.Client;
  let dbName: string;
  let bob: HttpBrowser;
  let general: string;

  beforeAll(async () => {
    server = await startTestServer({ db: pgDb! });
    const { app } = server;
    await seedOrg(server, { org: 'Acme', workspace: 'acme', admin: 'alice', member: 'bob', password: PASSWORD });
    bob = new HttpBrowser(server.url);
    await bob.signIn('bob', PASSWORD);
    general = (await bob.api('GET', '/w/acme/sidebar'))
      .json()
      .channels.find((c: { name: string }) => c.name === 'general').id;
    dbName = rowsOf<{ d: string }>(await app.database.db.execute(sql`select current_database() as d`))[0].d;
    admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    admin.on('error', () => {});
    await admin.connect();

    browser = await launchChromium();
    page = await openChat(browser, server.url, 'alice', PASSWORD);
  }, 150_000);
  afterAll(async () => {
    await keepScreenshot(page, 'resync-final');
    await browser?.close();
    await admin?.end();
    await server?.close();
  });

  it('shows a message whose wake-up was lost once the LISTEN connection is back, in the open conversation', async () => {
    onTestFailed(() => keepScreenshot(page, 'failed-resync'));
    const { app } = server;
    const messages = page.locator('#main ol.messages');
    const say = async (body: string) =>
      expect((await bob.api('POST', `/w/acme/conversations/${general}/messages`, { body })).status).toBe(201);
    // Live delivery works before the gap: Bob writes in #general, Alice's page shows it.
    await say('before the gap');
    await messages.getByText('before the gap').waitFor({ timeout: 30_000 });

    // Stored while the wake-up goes nowhere, as a NOTIFY sent while the listener is disconnected.
    const publish = app.notifier.publish;
    app.notifier.publish = async () => {};
    try {
      await say('written during the gap');
    } finally {
      Reflect.deleteProperty(app.notifier, 'publish');
    }
    expect(app.notifier.publish).toBe(publish);

    // PostgreSQL ends every connection of the app's database, the LISTEN one included; the server reconnects.
    const { rows } = await admin.query(
      'select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
      [dbName],
    );
    expect(rows[0].n).toBeGreaterThan(0);
    await messages.getByText('written during the gap').waitFor({ timeout: 45_000 });
    // The event stream itself never dropped: the page caught up because the server told it to.
    expect(await page.evaluate(() => document.body.dataset.live)).toBe('ready');
    expect(await page.locator('#conv-title').textContent()).toContain('#general');
  }, 120_000);
});
