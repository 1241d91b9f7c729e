// POST /email/inbound takes a raw message from a mail service behind a shared
// secret: refused without it (401), over the size limit (413), when it is no
// mail or reaches nobody (400), each with its reason; stored before the 200
// and handled once, with the service's envelope (?to=) over the headers.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { InboxItem } from '../../../src/core/messaging/message.ts';
import type { Database } from '../../../src/infra/db/client.ts';
import { pgliteDb } from '../../support/db.ts';
import { DOMAIN, SECRET, startEmailHarness, type EmailHarness } from '../../support/email/harness.ts';
import { inbox } from '../../support/server.ts';

let db: Database;
let h: EmailHarness;

beforeAll(async () => {
  db = await pgliteDb.open();
  h = await startEmailHarness({ database: db, email: { maxBytes: 32 * 1024 } });
}, 60_000);
afterAll(async () => {
  await h?.stop();
  await db?.close();
});

const mail = (o: { to?: string; id: string; text: string; extra?: string }) =>
  [
    'From: Carol Example <carol@example.com>',
    `To: ${o.to ?? `reviewer@${DOMAIN}`}`,
    'Subject: Through the webhook',
    `Message-ID: <${o.id}@example.com>`,
    'Date: Sun, 6 Dec 2026 10:00:00 +0000',
    'Content-Type: text/plain; charset=utf-8',
    ...(o.extra ? [o.extra] : []),
    '',
    o.text,
    '',
  ].join('\r\n');

async function receivedBy(text: string): Promise<InboxItem[]> {
  const seen: InboxItem[] = [];
  await vi.waitFor(async () => {
    seen.push(...(await inbox({ server: h.server, workspace: h.workspace, reviewer: h.reviewer })));
    if (!seen.some((i) => i.message.body.includes(text))) throw new Error('not delivered yet');
  });
  return seen.filter((i) => i.message.body.includes(text));
}

const errorOf = async (res: Response) => ((await res.json()) as { error: { message: string } }).error.message;

describe('POST /email/inbound', () => {
  it('refuses a request without the secret, or with another, before reading the mail', async () => {
    const none = await h.post(mail({ id: 'auth-1', text: 'x' }), { secret: null });
    expect(none.status).toBe(401);
    expect(await errorOf(none)).toMatch(/secret is missing or wrong/);
    const wrong = await h.post(mail({ id: 'auth-2', text: 'x' }), { secret: `${SECRET}x` });
    expect(wrong.status).toBe(401);
  });

  it('takes the secret as a basic-auth password too, and delivers the mail', async () => {
    const basic = Buffer.from(`mailservice:${SECRET}`).toString('base64');
    const res = await h.post(mail({ id: 'basic-1', text: 'posted with basic auth' }), {
      secret: null,
      headers: { authorization: `Basic ${basic}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ accepted: [`reviewer@${DOMAIN}`], refused: [], duplicate: false });
    const [item] = await receivedBy('posted with basic auth');
    expect(item!.message.surface).toBe('email');
  });

  it('refuses a mail over the size limit with 413', async () => {
    const res = await h.post(mail({ id: 'big-1', text: 'y'.repeat(40 * 1024) }));
    expect(res.status).toBe(413);
    expect(await errorOf(res)).toMatch(/larger than 32768 bytes/);
  });

  it('refuses an empty body, a body that is no mail, and a mail for nobody here, saying why', async () => {
    const empty = await h.post('');
    expect(empty.status).toBe(400);
    expect(await errorOf(empty)).toMatch(/body is empty/);
    const junk = await h.post(Buffer.from([0xde, 0xad, 0xbe, 0xef, 0x00, 0x0a]));
    expect(junk.status).toBe(400);
    expect(await errorOf(junk)).toMatch(/not a mail/);
    const elsewhere = await h.post(mail({ id: 'else-1', to: 'someone@example.org', text: 'x' }));
    expect(elsewhere.status).toBe(400);
    expect(await errorOf(elsewhere)).toMatch(/names no address at agents\.test/);
    const unknown = await h.post(mail({ id: 'unknown-1', to: `nobody@${DOMAIN}`, text: 'x' }));
    expect(unknown.status).toBe(400);
    expect(await errorOf(unknown)).toMatch(/no agent or person "nobody"/);
  });

  it("takes the service's envelope over the headers (a Bcc, an unencoded +), and handles a mail posted twice once", async () => {
    const raw = mail({ id: 'bcc-1', to: 'someone@example.org', text: 'blind copy to the reviewer' });
    // The subaddress as a mail server writes it into a URL: its `+` not encoded.
    const first = await h.post(raw, { query: `to=eng+reviewer@${DOMAIN}&from=carol@example.com` });
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ accepted: [`eng+reviewer@${DOMAIN}`], duplicate: false });
    const again = await h.post(raw, { query: `to=reviewer@${DOMAIN}&from=carol@example.com` });
    expect(await again.json()).toMatchObject({ duplicate: true });
    expect(await receivedBy('blind copy to the reviewer')).toHaveLength(1);
  });

  it('refuses new mail while the server stops: 503 over the webhook, 421 over SMTP (the sender tries again)', async () => {
    await Promise.all(h.server.app.onDrain.map((fn) => fn()));
    const res = await h.post(mail({ id: 'drain-1', text: 'while stopping' }));
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    const refused = await h
      .send({ from: 'carol@example.com', to: `reviewer@${DOMAIN}`, subject: 'x', text: 'y' })
      .catch((e) => e);
    expect(refused.responseCode).toBe(421);
  });
});
