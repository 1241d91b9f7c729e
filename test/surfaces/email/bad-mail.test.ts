// Mail as it arrives from the world: broken MIME, unknown or wrong charsets,
// half a UTF-16 pair, NUL characters, 10,000 recipients, attachments and no
// text. Each is delivered with what could be read (attachments named, never
// kept), never a crash; automatic mail and Switchboard's own mail coming back
// are kept and never answered; the core's rate limit holds for mail as for chat.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { InboxItem } from '../../../src/core/messaging/message.ts';
import type { Database } from '../../../src/infra/db/client.ts';
import { emailRuntime } from '../../../src/surfaces/email/index.ts';
import { pgliteDb } from '../../support/db.ts';
import { DOMAIN, startEmailHarness, type EmailHarness } from '../../support/email/harness.ts';
import { inbox } from '../../support/server.ts';

let db: Database;
let h: EmailHarness;
const logLines: string[] = [];

beforeAll(async () => {
  db = await pgliteDb.open();
  // Three messages per sender and conversation: the fourth mail of one thread meets the core's rate limit.
  h = await startEmailHarness({ database: db, logLines, rateLimit: { max: 3, windowMs: 60_000 } });
}, 60_000);
afterAll(async () => {
  await h?.stop();
  await db?.close();
});

/** A raw mail from carol to the reviewer: `headers` replace the defaults of the same name, then `body` as bytes. */
function raw(id: string, headers: string[], body: Buffer | string): Buffer {
  const nameOf = (h: string) => h.slice(0, h.indexOf(':')).toLowerCase();
  const defaults = ['From: Carol <carol@example.com>', `To: reviewer@${DOMAIN}`, 'Subject: A mail'].filter(
    (d) => !headers.some((h) => nameOf(h) === nameOf(d)),
  );
  const head = [...defaults, `Message-ID: <${id}@example.com>`, ...headers, '', ''].join('\r\n');
  return Buffer.concat([Buffer.from(head, 'latin1'), typeof body === 'string' ? Buffer.from(body, 'latin1') : body]);
}

async function post(mail: Buffer) {
  const res = await h.post(mail, { query: `to=reviewer@${DOMAIN}` });
  expect(res.status).toBe(200);
}

async function receivedBy(text: string | RegExp): Promise<InboxItem> {
  const seen: InboxItem[] = [];
  const match = (b: string) => (typeof text === 'string' ? b.includes(text) : text.test(b));
  await vi.waitFor(async () => {
    seen.push(...(await inbox({ server: h.server, workspace: h.workspace, reviewer: h.reviewer })));
    if (!seen.some((i) => match(i.message.body))) throw new Error('not delivered yet');
  });
  return seen.find((i) => match(i.message.body))!;
}

const logged = (text: string) =>
  vi.waitFor(() => {
    if (!logLines.some((l) => l.includes(text))) throw new Error(`not logged yet: ${text}`);
  });

describe('bad mail', () => {
  it('broken MIME: the readable part is delivered, the attachment named and not kept', async () => {
    await post(
      raw(
        'broken-1',
        ['MIME-Version: 1.0', 'Content-Type: multipart/mixed; boundary="b1"'],
        [
          '--b1',
          'Content-Type: text/plain; charset=utf-8',
          'Content-Transfer-Encoding: quoted-printable',
          '',
          'The readable part =E2=9C=93 and a broken =ZZ escape',
          '--b1',
          'Content-Type: application/pdf; name="report.pdf"',
          'Content-Disposition: attachment; filename="report.pdf"',
          'Content-Transfer-Encoding: base64',
          '',
          'JVBERi0xLjQK!!!not base64***',
          // No closing boundary.
        ].join('\r\n'),
      ),
    );
    const item = await receivedBy('The readable part');
    expect(item.message.body).toContain('✓');
    expect(item.message.body).toMatch(/Attached \(not kept\): report\.pdf \(application\/pdf, \d+ B\)/);
    const rt = emailRuntime(h.server.app.surfaceModules);
    const stored = await rt.mails.get(h.workspace.id, 'broken-1@example.com');
    expect(stored?.details.attachments).toEqual([
      { name: 'report.pdf', type: 'application/pdf', size: expect.any(Number) },
    ]);
    expect(JSON.stringify(stored)).not.toContain('JVBERi0');
  });

  it('an unknown charset and wrong bytes: delivered, what cannot be read replaced', async () => {
    await post(
      raw(
        'charset-1',
        ['Content-Type: text/plain; charset=x-no-such-charset'],
        Buffer.from('caf\xe9 au lait \xff\xfe', 'latin1'),
      ),
    );
    const item = await receivedBy('au lait');
    expect(item.message.body.isWellFormed()).toBe(true);
  });

  it('half a UTF-16 pair and NUL characters become U+FFFD, in the subject, the sender and the text', async () => {
    const utf16 = Buffer.concat([
      Buffer.from('\u0000h\u0000i\u0000 ', 'latin1'),
      Buffer.from([0xd8, 0x00]),
      Buffer.from('\u0000!', 'latin1'),
    ]);
    await post(
      raw(
        'surrogate-1',
        ['Subject: =?utf-16be?B?2AA=?= lone half', 'Content-Type: text/plain; charset=utf-16be'],
        utf16,
      ),
    );
    const item = await receivedBy('lone half');
    expect(item.message.body.isWellFormed()).toBe(true);
    expect(item.message.body).not.toContain('\u0000');
    await post(raw('nul-1', ['Subject: nul\u0000inside'], 'text with a nul\u0000 in it'));
    const nul = await receivedBy('text with a nul');
    expect(nul.message.body).not.toContain('\u0000');
    expect(nul.message.body).toContain('\uFFFD');
  });

  it('10,000 recipients: delivered once, the others counted, at most 100 of each header kept', async () => {
    const many = Array.from({ length: 10_000 }, (_, i) => `p${i}@example.org`).join(', ');
    await post(raw('many-1', [`Cc: ${many}`], 'to a crowd'));
    const item = await receivedBy('to a crowd');
    expect(item.message.body).toContain('and 9990 more');
    const rt = emailRuntime(h.server.app.surfaceModules);
    const stored = await rt.mails.get(h.workspace.id, 'many-1@example.com');
    expect(stored?.parties.cc).toHaveLength(100);
  });

  it('attachments and no text: delivered, saying what was attached', async () => {
    await post(
      raw(
        'attach-1',
        ['MIME-Version: 1.0', 'Content-Type: multipart/mixed; boundary="b2"', 'Subject: Only files'],
        [
          '--b2',
          'Content-Type: image/png; name="a.png"',
          'Content-Disposition: attachment; filename="a.png"',
          'Content-Transfer-Encoding: base64',
          '',
          Buffer.alloc(3000, 7).toString('base64'),
          '--b2--',
          '',
        ].join('\r\n'),
      ),
    );
    const item = await receivedBy('Only files');
    expect(item.message.body).toContain('Attached (not kept): a.png (image/png, 2.9 KB)');
  });

  it('automatic mail and our own mail coming back are kept, never answered', async () => {
    await post(raw('auto-1', ['Auto-Submitted: auto-replied', 'Subject: Out of office'], 'I am away'));
    await logged('automatic mail was kept and not answered');
    await post(raw('own-1', [`From: Reviewer <reviewer@${DOMAIN}>`, 'Subject: Looping'], 'our own mail'));
    await logged("Switchboard's own mail came back");
    // Neither reached the agent; both are kept as they arrived.
    const hits = await h.server.app.messaging.search(h.reviewer, h.workspace, { text: 'away', limit: 10 });
    expect(hits).toEqual([]);
    const jobs = await h.server.app.jobs.list({ topic: 'inbound.email', status: 'done' });
    const kept = await Promise.all(jobs.map((j) => h.server.app.store.inbound.get(String(j.payload.inboundId))));
    const raws = kept.map((e) => Buffer.from(String(e?.payload.raw ?? ''), 'base64').toString('latin1'));
    expect(raws.some((r) => r.includes('I am away'))).toBe(true);
    expect(raws.some((r) => r.includes('our own mail'))).toBe(true);
  });

  it("meets the core's rate limit: a sender's fourth mail into one thread within the window is refused", async () => {
    const chain = (n: number) => [
      `Subject: ${n === 1 ? 'Flood' : 'Re: Flood'}`,
      ...(n > 1 ? ['In-Reply-To: <flood-1@example.com>', 'References: <flood-1@example.com>'] : []),
    ];
    for (const n of [1, 2, 3]) {
      await post(raw(`flood-${n}`, chain(n), `flood number ${n}`));
      await receivedBy(`flood number ${n}`);
    }
    await post(raw('flood-4', chain(4), 'flood number 4'));
    await logged('a mail was refused');
    expect(logLines.find((l) => l.includes('a mail was refused') && l.includes('flood-4'))).toBeDefined();
    const hits = await h.server.app.messaging.search(h.reviewer, h.workspace, { text: 'flood', limit: 10 });
    expect(hits).toHaveLength(3);
  });
});
