// The SMTP listener offers STARTTLS with the configured certificate (a sender
// that requires TLS delivers over it), and agents' answers are DKIM-signed with
// the configured key: mailauth verifies the signature against the public key
// published at <selector>._domainkey.<domain>.
import { generateKeyPairSync } from 'node:crypto';
import { dkimVerify } from 'mailauth';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { pgliteDb } from '../../support/db.ts';
import { DOMAIN, startEmailHarness, type EmailHarness } from '../../support/email/harness.ts';
import { TEST_TLS_CERT, TEST_TLS_KEY } from '../../support/email/tls.ts';
import { inbox } from '../../support/server.ts';

const SELECTOR = 'sb2026';
const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const privateKey = keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const publicKey = keys.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');

let db: Database;
let h: EmailHarness;

beforeAll(async () => {
  db = await pgliteDb.open();
  h = await startEmailHarness({
    database: db,
    email: { tls: { cert: TEST_TLS_CERT, key: TEST_TLS_KEY }, dkim: { selector: SELECTOR, privateKey } },
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
      if (!h.relay.mails.some((m) => m.mail.text?.includes('Signed and sealed.'))) throw new Error('not mailed yet');
    });
    const mail = h.relay.mails.find((m) => m.mail.text?.includes('Signed and sealed.'))!;
    const resolver = async (name: string, type: string) => {
      if (type === 'TXT' && name === `${SELECTOR}._domainkey.${DOMAIN}`) return [[`v=DKIM1; k=rsa; p=${publicKey}`]];
      throw Object.assign(new Error(`no ${type} record for ${name}`), { code: 'ENOTFOUND' });
    };
    const result = await dkimVerify(mail.raw, { resolver });
    expect(result.results.map((r) => [r.signingDomain, r.status.result])).toEqual([[DOMAIN, 'pass']]);
  });
});
