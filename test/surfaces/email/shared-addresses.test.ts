// A shared address (feedback@<domain>) takes mail while an agent listens to it:
// the listeners overhear its mail as they hear a Slack channel, and file what
// people ask for as intake; a person's request to an agent's address is filed
// on its own. When an item is done, the person who asked is told by mail, in
// their thread and to them alone, with a link that stops these notices: the
// link's page asks first (opening it changes nothing), its button or a mail
// program's one-click unsubscribe turns them off.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SYSTEM } from '../../../src/core/actor.ts';
import type { Agent } from '../../../src/core/entities.ts';
import type { InboxItem } from '../../../src/core/messaging/message.ts';
import type { Database } from '../../../src/infra/db/client.ts';
import { verifySender } from '../../../src/surfaces/email/verify.ts';
import { pgliteDb } from '../../support/db.ts';
import { dkimKey, dnsStub } from '../../support/email/dkim.ts';
import { DOMAIN, startEmailHarness, type EmailHarness } from '../../support/email/harness.ts';
import type { SinkMessage } from '../../support/email/smtp-sink.ts';
import { connectInProcess } from '../../support/world.ts';

const SELECTOR = 'sb';

let db: Database;
let h: EmailHarness;
let triage: Agent;

beforeAll(async () => {
  db = await pgliteDb.open();
  h = await startEmailHarness({
    database: db,
    email: { dkim: { selector: SELECTOR, privateKey: dkimKey().privateKey } },
  });
  const { app } = h.server;
  await app.agents.add(SYSTEM, { name: 'triage', owner: 'alice', displayName: 'Triage', roleLine: 'sorts feedback' });
  await app.agents.join(SYSTEM, { agent: 'alice/triage', workspace: 'eng' });
  triage = (await app.agents.directory(h.workspace)).find((d) => d.agent.name === 'triage')!.agent;
}, 60_000);
afterAll(async () => {
  await h?.stop();
  await db?.close();
});

const inboxOf = async (agent: Agent) => (await h.server.app.messaging.checkInbox(agent, h.workspace, 50)).items;

/** Waits for the agent to get a message containing `text`. */
async function heardBy(agent: Agent, text: string): Promise<InboxItem> {
  const seen: InboxItem[] = [];
  return vi.waitFor(
    async () => {
      seen.push(...(await inboxOf(agent)));
      const found = seen.find((i) => i.message.body.includes(text));
      if (!found) throw new Error('not delivered yet');
      return found;
    },
    { timeout: 20_000, interval: 50 },
  );
}

/** Waits for the relay to have mailed something containing `text`. */
const mailed = (text: string) =>
  vi.waitFor(
    () => {
      const found = h.relay.received.find((m) => m.parsed.text?.includes(text));
      if (!found) throw new Error('not mailed yet');
      return found;
    },
    { timeout: 20_000, interval: 50 },
  );

/** Waits for the intake item filed on its own from this message. */
const filedFrom = (messageId: string) =>
  vi.waitFor(
    async () => {
      const found = (await h.server.app.intake.list(h.workspace, { limit: 20 })).find((i) =>
        i.sources.some((s) => s.messageId === messageId),
      );
      if (!found) throw new Error('not filed yet');
      return found;
    },
    { timeout: 20_000, interval: 50 },
  );

const refusal = (to: string) =>
  h.send({ from: 'carol@example.com', to, subject: 'x', text: 'y' }).then(
    () => null,
    (e: { responseCode?: number; response?: string }) => e,
  );

/** The path and query of the notice's link, in its text part, to open on this server. */
function linkIn(notice: SinkMessage): string {
  const url = /Stop these notices \((\S+)\)/.exec(notice.parsed.text ?? '')?.[1];
  if (!url) throw new Error('the notice has no link');
  const u = new URL(url);
  return `${h.server.url}${u.pathname}${u.search}`;
}

describe('a shared address', () => {
  it('takes no mail until an agent listens to it', async () => {
    expect((await refusal(`feedback@${DOMAIN}`))?.responseCode).toBe(550);
    const { listener, added } = await h.server.app.listening.listen(SYSTEM, 'eng', 'email:feedback', 'alice/triage');
    expect(added).toBe(true);
    expect(listener.channel).toBe('Email channel feedback');
    const info = await h.send({ from: 'carol@example.com', to: `feedback@${DOMAIN}`, subject: 'Hi', text: 'hello' });
    expect(info.accepted).toEqual([`feedback@${DOMAIN}`]);
  });

  it('is not given a name that is an agent’s address', async () => {
    await expect(h.server.app.listening.listen(SYSTEM, 'eng', 'email:reviewer', 'alice/triage')).rejects.toThrow(
      /reviewer is the address of the agent alice\/reviewer in eng/,
    );
  });

  it('is overheard by its listeners alone, who read which address the mail was written to', async () => {
    await h.send({
      from: '"Carol Example" <carol@example.com>',
      to: `feedback@${DOMAIN}`,
      cc: 'dave@example.com',
      subject: 'Exports',
      text: 'The export is lovely.',
    });
    const heard = await heardBy(triage, 'The export is lovely.');
    expect(heard.overheard).toBe(true);
    expect(heard.message.body).toMatch(
      /^Exports — from Carol Example \(carol@example\.com\) \(sender not verified\), to feedback@agents\.test, cc dave@example\.com/,
    );
    // Also at the workspace's own form of the address.
    await h.send({ from: 'carol@example.com', to: `eng+feedback@${DOMAIN}`, subject: 'Again', text: 'Second note.' });
    await heardBy(triage, 'Second note.');
    expect((await inboxOf(h.reviewer)).some((i) => i.message.body.includes('lovely'))).toBe(false);
  });

  it("tells the person who asked, by mail in their thread and to them alone, when an item filed from what a listener heard is done; the link's page asks, its button stops the notices", async () => {
    await h.send({
      from: '"Erin Example" <erin@example.com>',
      to: `feedback@${DOMAIN}`,
      cc: 'frank@example.com',
      subject: 'CSV',
      text: 'Please add a CSV export to the report page.',
      messageId: '<csv-1@example.com>',
    });
    const heard = await heardBy(triage, 'Please add a CSV export');
    const mcp = await connectInProcess(h.server.app, triage, 'eng');
    try {
      const filed = await mcp.call('file_intake', {
        title: 'CSV export of reports',
        kind: 'feature request',
        summary: 'Erin asks for a CSV export.',
        source_message_ids: [heard.message.id],
      });
      expect(filed.isError).toBeFalsy();
      const id = (filed.structuredContent as { item: { id: string } }).item.id;
      const done = await mcp.call('update_intake', { id, status: 'done' });
      expect(done.isError).toBeFalsy();
    } finally {
      await mcp.close();
    }

    const notice = await mailed('the change you asked for is now live');
    expect(notice.envelope.to).toEqual(['erin@example.com']);
    expect(notice.parsed.from?.value[0]).toEqual({ name: 'Switchboard', address: `feedback@${DOMAIN}` });
    expect(notice.parsed.inReplyTo).toBe('<csv-1@example.com>');
    expect(notice.parsed.subject).toBe('Re: CSV');
    expect(notice.parsed.text).toContain('Erin Example, the change you asked for is now live: “CSV export of reports”');
    const link = linkIn(notice);
    const header = (name: string) => notice.parsed.headerLines.find((l) => l.key === name)?.line ?? '';
    expect(header('list-unsubscribe').replace(/\s+/g, '')).toContain(new URL(link).search);
    expect(header('list-unsubscribe-post')).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    // The DKIM signature covers both List-Unsubscribe fields (RFC 8058), and verifies.
    const check = await verifySender(notice.raw, { resolver: dnsStub([{ domain: DOMAIN, selector: SELECTOR }]) });
    expect(check.verified).toBe(true);
    expect(header('dkim-signature').replace(/\s+/g, '')).toMatch(/h=[^;]*List-Unsubscribe:List-Unsubscribe-Post/i);

    const identity = (await h.server.app.store.identities.find({
      surface: 'email',
      tenantId: 'eng',
      externalUserId: 'unverified:erin@example.com',
    }))!;
    const on = () => h.server.app.intake.noticesOn({ identityId: identity.id });
    // Opening the link (as a mail scanner does) only asks.
    const page = await fetch(link);
    expect(page.status).toBe(200);
    const shown = await page.text();
    expect(shown).toContain('erin@example.com');
    expect(shown).toMatch(/<form method="post"[^>]*><button type="submit" class="primary">Stop these notices/);
    expect(await on()).toBe(true);
    const off = await fetch(link, { method: 'POST' });
    expect(off.status).toBe(200);
    expect(await off.text()).toContain('Tell me again');
    expect(await on()).toBe(false);

    // Her next request, once done, is not mailed.
    await h.send({
      from: '"Erin Example" <erin@example.com>',
      to: `reviewer@${DOMAIN}`,
      subject: 'Dark mode',
      text: 'Could you add a dark mode?',
    });
    const asked = await heardBy(h.reviewer, 'Could you add a dark mode?');
    const item = await filedFrom(asked.message.id);
    expect((await h.server.app.intake.update(h.reviewer, h.workspace, { id: item.id, status: 'done' })).told).toBe(0);

    // Back on from the page, and off again the way a mail program unsubscribes in one click (RFC 8058).
    expect((await fetch(`${link}&on=1`, { method: 'POST' })).status).toBe(200);
    expect(await on()).toBe(true);
    const oneClick = await fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(oneClick.status).toBe(200);
    expect(await on()).toBe(false);
  });

  it('answers a link that was altered with 400, changing nothing', async () => {
    const forged = `${h.server.url}/email/notices?t=00000000-0000-4000-8000-000000000000.${'0'.repeat(64)}`;
    const r = await fetch(forged, { method: 'POST' });
    expect(r.status).toBe(400);
    expect(await r.text()).toContain('This link does not work');
  });

  it('takes no more mail once its last listener stops', async () => {
    await h.server.app.listening.unlisten(SYSTEM, 'eng', 'email:feedback', 'alice/triage');
    const refused = await refusal(`feedback@${DOMAIN}`);
    expect(refused?.responseCode).toBe(550);
    expect(refused?.response).toMatch(/no agent or person "feedback"/);
  });
});

describe("a person's request to an agent's address", () => {
  it('is filed on its own, and its done notice answers their mail, to them alone, from the address they wrote to', async () => {
    await h.send({
      from: '"Gina Example" <gina@example.com>',
      to: `reviewer@${DOMAIN}`,
      cc: 'hal@example.com',
      subject: 'Login',
      text: 'The login page is broken on Safari, please fix it.',
      messageId: '<login-1@example.com>',
    });
    const asked = await heardBy(h.reviewer, 'The login page is broken');
    const item = await filedFrom(asked.message.id);
    expect(item).toMatchObject({ kind: 'bug', filedBy: null, status: 'new' });
    expect(item.sources[0]).toMatchObject({ surface: 'email' });
    expect((await h.server.app.intake.update(h.reviewer, h.workspace, { id: item.id, status: 'done' })).told).toBe(1);
    const notice = await mailed('Gina Example, the change you asked for is now live');
    expect(notice.envelope.to).toEqual(['gina@example.com']);
    expect(notice.parsed.cc).toBeUndefined();
    expect(notice.parsed.from?.value[0]).toEqual({ name: 'Switchboard', address: `reviewer@${DOMAIN}` });
    expect(notice.parsed.inReplyTo).toBe('<login-1@example.com>');
    expect(notice.parsed.text).toMatch(/Stop these notices \(http/);
  });
});
