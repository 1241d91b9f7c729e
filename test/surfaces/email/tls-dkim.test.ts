// The SMTP listener offers STARTTLS with the configured certificate (a sender
// that requires TLS delivers over it); a sender whose domain signed the mail
// is verified (kept with the mail; the agent is not told to doubt it), one
// that did not is marked; and agents' answers are DKIM-signed with the
// configured key, which mailauth verifies against the published public key.
import { dkimVerify } from 'mailauth';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { pgliteDb } from '../../support/db.ts';
import { dkimKey, dkimSigned, dnsStub } from '../../support/email/dkim.ts';
import { DOMAIN, startEmailHarness, type EmailHarness } from '../../support/email/harness.ts';
import { TEST_TLS_CERT, TEST_TLS_KEY } from '../../support/email/tls.ts';
import { inbox } from '../../support/server.ts';
import { emailRuntime } from '../../../src/surfaces/email/index.ts';

const SELECTOR = 'sb2026';
// Switchboard's domain and a sender's publish their keys in the stand-in DNS (the test key for both).
const dns = dnsStub([
  { domain: DOMAIN, selector: SELECTOR },
  { domain: 'example.com', selector: 'mail' },
]);

let db: Database;
let h: EmailHarness;

beforeAll(async () => {
  db = await pgliteDb.open();
  h = await startEmailHarness({
    database: db,
    email: {
      tls: { cert: TEST_TLS_CERT, key: TEST_TLS_KEY },
      dkim: { selector: SELECTOR, privateKey: dkimKey().privateKey },
      resolver: dns,
    },
  });
}, 60_000);
afterAll(async () => {
  await h?.stop();
  await db?.close();
});

describe('STARTTLS and DKIM', () => {
  it('takes mail over STARTTLS with the configured certificate, from a sender that requires it', async () => {
    const tls = nodemailer.createTransport({
      host: '127.0.0.1',
      port: h.smtpPort,
      secure: false,
      requireTLS: true,
      tls: { ca: TEST_TLS_CERT, servername: DOMAIN },
    });
    try {
      const info = await tls.sendMail({
        from: 'carol@example.com',
        to: `reviewer@${DOMAIN}`,
        subject: 'Over TLS',
        text: 'sent over STARTTLS',
      });
      expect(info.accepted).toEqual([`reviewer@${DOMAIN}`]);
    } finally {
      tls.close();
    }
    await vi.waitFor(async () => {
      const items = await inbox({ server: h.server, workspace: h.workspace, reviewer: h.reviewer });
      if (!items.some((i) => i.message.body.includes('sent over STARTTLS'))) throw new Error('not delivered yet');
    });
  });

  it('signs answers with DKIM for the domain, and the signature verifies', async () => {
    await h.send({ from: 'carol@example.com', to: `reviewer@${DOMAIN}`, subject: 'Sign', text: 'please sign' });
    let conversationId = '';
    await vi.waitFor(async () => {
      const item = (await inbox({ server: h.server, workspace: h.workspace, reviewer: h.reviewer })).find((i) =>
        i.message.body.includes('please sign'),
      );
      if (!item) throw new Error('not delivered yet');
      conversationId = item.conversation.id;
    });
    await h.server.app.messaging.send({
      workspace: h.workspace,
      sender: h.reviewer,
      conversationId,
      body: 'Signed and sealed.',
    });
    await vi.waitFor(() => {
      if (!h.relay.received.some((m) => m.parsed.text?.includes('Signed and sealed.')))
        throw new Error('not mailed yet');
    });
    const mail = h.relay.received.find((m) => m.parsed.text?.includes('Signed and sealed.'))!;
    const result = await dkimVerify(mail.raw, { resolver: dns });
    expect(result.results.map((r) => [r.signingDomain, r.status.result])).toEqual([[DOMAIN, 'pass']]);
  });

  it('verifies a sender whose domain signed the mail, and marks one whose did not', async () => {
    const raw = (id: string, text: string) =>
      [
        'From: Carol <carol@example.com>',
        `To: reviewer@${DOMAIN}`,
        'Subject: Signed mail',
        `Message-ID: <${id}@example.com>`,
        'Date: Sun, 6 Dec 2026 10:00:00 +0000',
        '',
        text,
        '',
      ].join('\r\n');
    const envelope = { from: 'carol@example.com', to: [`reviewer@${DOMAIN}`] };
    await h.send({
      envelope,
      raw: await dkimSigned(raw('signed-1', 'signed by example.com'), { domain: 'example.com' }),
    });
    await h.send({ envelope, raw: raw('unsigned-1', 'not signed at all') });
    const items = new Map<string, string>();
    await vi.waitFor(async () => {
      for (const i of await inbox({ server: h.server, workspace: h.workspace, reviewer: h.reviewer }))
        items.set(i.message.body.includes('signed by example.com') ? 'signed' : 'other', i.message.body);
      if (!items.has('signed') || !items.has('other')) throw new Error('not delivered yet');
    });
    expect(items.get('signed')).not.toContain('not verified');
    expect(items.get('other')).toContain('(sender not verified)');
    const rt = emailRuntime(h.server.app.surfaceModules);
    const signed = await rt.mails.get(h.workspace.id, 'signed-1@example.com');
    expect(signed?.details.verification).toMatchObject({ verified: true, address: 'carol@example.com' });
    // The verified sender and the unverified one are two identities: a forged From is never the linked person.
    const ids = await h.server.app.store.identities.findMany('email', 'eng', [
      'carol@example.com',
      'unverified:carol@example.com',
    ]);
    expect(ids.map((i) => i.externalUserId).sort()).toEqual(['carol@example.com', 'unverified:carol@example.com']);
  });
});
