// Approvals by mail: an approval asked in an email thread is mailed into it with
// Approve and Reject links. A link opens a page (signed in) that shows the
// approval and decides nothing; only its form's POST, with the CSRF token, does,
// through the core, so it is settled everywhere and the thread gets a follow-up.
// A decision made elsewhere (the web chat) is mailed as a follow-up too; someone
// who may not decide is refused, and an approval asked elsewhere is not mailed.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SYSTEM } from '../../../src/core/actor.ts';
import type { Approval } from '../../../src/core/approvals/approval.ts';
import type { Person } from '../../../src/core/entities.ts';
import type { InboxItem } from '../../../src/core/messaging/message.ts';
import { hashPassword } from '../../../src/http/auth/index.ts';
import { mountWebChat } from '../../../src/http/surface-mount.ts';
import type { Database } from '../../../src/infra/db/client.ts';
import { EMAIL_APPROVAL_SHOW } from '../../../src/surfaces/email/index.ts';
import { pgliteDb } from '../../support/db.ts';
import { dnsStub } from '../../support/email/dkim.ts';
import { DOMAIN, startEmailHarness, type EmailHarness } from '../../support/email/harness.ts';
import type { SinkMessage } from '../../support/email/smtp-sink.ts';
import { inbox } from '../../support/server.ts';
import { HttpBrowser } from '../../support/web/browser.ts';

const PASSWORD = 'correct horse battery';
let db: Database;
let h: EmailHarness;
let bob: Person;
let thread: InboxItem;

beforeAll(async () => {
  db = await pgliteDb.open();
  h = await startEmailHarness({
    database: db,
    mounts: [mountWebChat],
    email: { resolver: dnsStub([{ domain: 'example.com', spfIp: '127.0.0.1' }]) },
  });
  const { app } = h.server;
  const hash = await hashPassword(PASSWORD);
  bob = await app.orgs.addPerson(SYSTEM, { handle: 'bob', org: 'acme', role: 'member', displayName: 'Bob' });
  await app.store.people.setPasswordHash(bob.id, hash);
  await app.store.people.setPasswordHash((await app.store.people.get('alice'))!.id, hash);
  // Bob linked his address: his verified mail comes from him (linking.test.ts goes through the link page).
  const identity = await app.store.identities.upsert({
    surface: 'email',
    tenantId: 'eng',
    externalUserId: 'bob@example.com',
  });
  await app.links.confirm(new URL((await app.links.offer(identity)).url).pathname.split('/').pop()!, bob.id);
  await h.send({
    from: 'bob@example.com',
    to: `reviewer@${DOMAIN}`,
    cc: 'dave@example.com',
    subject: 'Deploy',
    text: 'Can you ship it?',
    messageId: '<deploy-1@example.com>',
  });
  await vi.waitFor(
    async () => {
      const items = await inbox({ server: h.server, workspace: h.workspace, reviewer: h.reviewer });
      thread = items.find((i) => i.message.body.includes('ship it'))!;
      expect(thread).toBeDefined();
    },
    { timeout: 20_000 },
  );
}, 60_000);
afterAll(async () => {
  await h?.stop();
  await db?.close();
});

const ask = (title: string, conversationId?: string) =>
  h.server.app.approvals.request(h.reviewer, h.workspace, {
    title,
    details: 'Ships **v2** to everyone.',
    ...(conversationId ? { conversationId } : {}),
  });

/** Waits for the one mail whose text contains `text`. */
const mailed = (text: string) =>
  vi.waitFor(
    () => {
      const found = h.relay.received.filter((m) => m.parsed.text?.includes(text));
      expect(found).toHaveLength(1);
      return found[0]!;
    },
    { timeout: 20_000 },
  );

/** The path of a link in a mail (`approve` or `reject`). */
const linkOf = (m: SinkMessage, d: 'approve' | 'reject') =>
  new URL(new RegExp(`https?://\\S+/email/approvals/\\S+\\?decision=${d}`).exec(m.parsed.text ?? '')![0]).toString();
const pathOf = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};
const status = async (a: Approval) => (await h.server.app.approvals.get(h.workspace.id, a.id)).status;
const signedIn = async (handle: string) => {
  const b = new HttpBrowser(h.server.url);
  await b.signIn(handle, PASSWORD);
  return b;
};

describe('approvals by mail', () => {
  let a: Approval;
  let mail: SinkMessage;

  it('are mailed into the thread they were asked in, from the agent, with links to a page', async () => {
    a = await ask('Deploy #418', thread.conversation.id);
    mail = await mailed('Deploy #418');
    expect(mail.parsed.messageId).toBe(`<sb.approval.${a.id}@${DOMAIN}>`);
    expect(mail.parsed.inReplyTo).toBe('<deploy-1@example.com>');
    expect(mail.parsed.from?.value[0]?.address).toBe(`reviewer@${DOMAIN}`);
    expect(mail.envelope.to.sort()).toEqual(['bob@example.com', 'dave@example.com']);
    expect(mail.parsed.html).toContain('<strong>v2</strong>');
    expect(linkOf(mail, 'approve')).toContain(`/email/approvals/eng/${a.id}?decision=approve`);
    expect(linkOf(mail, 'reject')).toContain('decision=reject');
  });

  it('a link opens a page that shows the approval and decides nothing, signed out or in', async () => {
    const path = pathOf(linkOf(mail, 'approve'));
    const anonymous = new HttpBrowser(h.server.url);
    const out = await anonymous.get(path);
    expect(out.status).toBe(303);
    expect(out.location).toBe(`/signin?next=${encodeURIComponent(path)}`);
    const alice = await signedIn('alice');
    for (const p of [path, pathOf(linkOf(mail, 'reject'))]) {
      const page = await alice.get(p);
      expect(page.status).toBe(200);
      expect(page.text).toContain('Deploy #418');
      expect(page.text).toContain('<strong>v2</strong>');
      expect(page.text).toContain('name="_csrf"');
    }
    expect(await status(a)).toBe('pending');
  });

  it('someone who may not decide sees why, and their POST changes nothing', async () => {
    const b = await signedIn('bob');
    const page = await b.get(pathOf(linkOf(mail, 'approve')));
    expect(page.status).toBe(403);
    expect(page.text).toContain('Only the agent&#39;s owner or an owner of the workspace can decide');
    const post = await b.form(`/email/approvals/eng/${a.id}`, { decision: 'approve' });
    expect(post.status).toBe(403);
    expect(await status(a)).toBe('pending');
    // Nor does a POST without the page's CSRF token, from someone who may decide.
    const alice = await signedIn('alice');
    expect((await alice.form(`/email/approvals/eng/${a.id}`, { decision: 'approve' }, { csrf: false })).status).toBe(
      403,
    );
    expect(await status(a)).toBe('pending');
  });

  it("the page's POST decides it, settled everywhere, and the thread gets a follow-up", async () => {
    const alice = await signedIn('alice');
    await alice.get(pathOf(linkOf(mail, 'approve')));
    const done = await alice.form(`/email/approvals/eng/${a.id}`, { decision: 'approve', reason: 'ship it' });
    expect(done.status).toBe(200);
    expect(done.text).toContain('Approved by @alice in Email');
    const settled = await h.server.app.approvals.get(h.workspace.id, a.id);
    expect(settled).toMatchObject({ status: 'approved', decidedVia: 'email', reason: 'ship it' });
    const followUp = await mailed(`Approval “Deploy #418”:`);
    expect(followUp.parsed.text).toContain('Approved by @alice in Email');
    expect(followUp.parsed.inReplyTo).toBe(`<sb.approval.${a.id}@${DOMAIN}>`);
    // A second decision is late, and says who settled it.
    await alice.get(pathOf(linkOf(mail, 'reject')));
    const late = await alice.form(`/email/approvals/eng/${a.id}`, { decision: 'reject' });
    expect(late.status).toBe(409);
    expect(late.text).toContain('already settled: Approved by @alice');
  });

  it('a decision made in the web chat is mailed to the thread as a follow-up', async () => {
    const other = await ask('Rotate keys', thread.conversation.id);
    const request = await mailed('Rotate keys');
    await h.server.app.approvals.decide({
      approvalId: other.id,
      workspaceId: h.workspace.id,
      decision: 'rejected',
      decider: { personId: h.reviewer.ownerId, role: 'owner' },
      via: 'web',
      reason: 'not this week',
    });
    const followUp = await mailed('Approval “Rotate keys”:');
    expect(followUp.parsed.text).toContain('Rejected by @alice in the web chat');
    expect(followUp.parsed.text).toContain('not this week');
    expect(followUp.parsed.references).toContain(request.parsed.messageId);
    const page = await (await signedIn('alice')).get(pathOf(linkOf(request, 'approve')));
    expect(page.text).toContain('Rejected by @alice in the web chat');
    expect(page.text).not.toContain('name="decision"');
  });

  it('an approval asked of the approvers directly is not mailed', async () => {
    const direct = await ask('Order more servers');
    await vi.waitFor(
      async () => {
        const jobs = await h.server.app.jobs.list({ topic: EMAIL_APPROVAL_SHOW, status: 'done' });
        expect(jobs.some((j) => j.payload.approvalId === direct.id)).toBe(true);
      },
      { timeout: 20_000 },
    );
    expect(h.relay.received.filter((m) => m.parsed.text?.includes('Order more servers'))).toEqual([]);
  });
});
