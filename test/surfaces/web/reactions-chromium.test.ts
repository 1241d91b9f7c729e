// Reactions, edits and deletes in the web chat in a real browser (Debian's
// Chromium), with a second person's page open on the same channel: what one
// does, the other sees live, without reloading.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { keepScreenshot, launchChromium } from '../../support/web/chromium.ts';
import { openChat } from '../../support/web/chat-page.ts';
import { seedOrg, startTestServer, type TestServer } from '../../support/web/server.ts';

describe('reactions, edits and deletes in the web chat, seen live on a second page', () => {
  let server: TestServer;
  let browser: Browser;
  let alice: Page;
  let bob: Page;
  const errors: string[] = [];

  const open = (handle: string, password: string) =>
    openChat(browser, server.url, handle, password, { onPageError: (m) => errors.push(`${handle}: ${m}`) });
  const item = (page: Page, text: string) => page.locator('#main li.message', { hasText: text });

  beforeAll(async () => {
    server = await startTestServer();
    const { password } = await seedOrg(server, { org: 'Acme', workspace: 'acme', admin: 'alice', member: 'bob' });
    browser = await launchChromium();
    alice = await open('alice', password);
    bob = await open('bob', password);
  }, 180_000);
  afterAll(async () => {
    await keepScreenshot(bob, 'reactions-final');
    await browser?.close();
    await server?.close();
  });

  it('shows a reaction, an edit and a delete on the other page as they happen', async () => {
    onTestFailed(async () => {
      await keepScreenshot(alice, 'failed-reactions-alice');
      await keepScreenshot(bob, 'failed-reactions-bob');
    });
    await alice.locator('#composer-input').fill('Lunch at noon?');
    await alice.locator('#composer-input').press('Enter');
    const onBob = item(bob, 'Lunch at noon?');
    await onBob.waitFor({ timeout: 20_000 });
    const id = (await onBob.getAttribute('data-id'))!;
    // Only the author may edit or delete.
    expect(await onBob.locator('.edit-button, .delete-button').count()).toBe(0);

    // Bob reacts from the palette; Alice's page shows it, not pressed (it is not hers).
    await bob.locator(`#react-${id}`).click();
    await bob.locator(`#pick-${id}-thumbsup`).click();
    await expect.poll(() => onBob.locator('.reaction').getAttribute('aria-pressed')).toBe('true');
    const chipOnAlice = item(alice, 'Lunch at noon?').locator(`.reaction[data-emoji="thumbsup"]`);
    await expect.poll(() => chipOnAlice.textContent()).toContain('👍 1');
    expect(await chipOnAlice.getAttribute('aria-pressed')).toBe('false');
    expect(await chipOnAlice.getAttribute('title')).toBe('Bob reacted with :thumbsup:');

    // Alice joins it by clicking the chip; Bob's page counts two.
    await chipOnAlice.click();
    await expect.poll(() => onBob.locator('.reaction[data-emoji="thumbsup"]').textContent()).toContain('👍 2');
    // Bob takes his back; Alice's stays.
    await onBob.locator('.reaction[data-emoji="thumbsup"]').click();
    await expect
      .poll(() => item(alice, 'Lunch at noon?').locator('.reaction[data-emoji="thumbsup"]').textContent())
      .toContain('👍 1');
    expect(await item(alice, 'Lunch at noon?').locator('.reaction').getAttribute('aria-pressed')).toBe('true');

    // Alice edits her message: Bob sees the new text, rendered, marked edited.
    await alice.locator(`#edit-${id}`).click();
    const box = alice.getByLabel('Edit the message');
    await box.fill('Lunch at **one**?');
    await box.press('Enter');
    const edited = bob.locator(`#main li.message[data-id="${id}"]`);
    await expect.poll(() => edited.locator('.body strong').textContent()).toBe('one');
    expect(await edited.locator('.edited').textContent()).toBe('(edited)');
    // The reaction survives the edit.
    expect(await edited.locator('.reaction').textContent()).toContain('👍 1');

    // Alice deletes it, confirming in the dialog: it goes from Bob's page.
    await alice.locator(`#delete-${id}`).click();
    await alice.locator('dialog').getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => bob.locator(`#main li.message[data-id="${id}"]`).count()).toBe(0);
    await expect.poll(() => alice.locator(`#main li.message[data-id="${id}"]`).count()).toBe(0);
    expect(errors).toEqual([]);
    await keepScreenshot(alice, 'reactions');
  });
});
