// What a mail domain owes the mail system, and what the surface cleans up: the
// listener greets with its host's name (not the mail domain), takes
// postmaster@<domain> (and the domainless `postmaster`, RFC 5321) and writes
// that mail to the operator's log without handing it to an agent; a received
// mail recorded without ever becoming a message is purged by the hourly upkeep.
import { connect } from 'node:net';
import { hostname } from 'node:os';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { periodicTasks } from '../../../src/app-periodic.ts';
import { loadConfig } from '../../../src/config.ts';
import type { Database } from '../../../src/infra/db/client.ts';
import { rowsOf } from '../../../src/infra/db/org-repo.ts';
import { emailRuntime } from '../../../src/surfaces/email/index.ts';
import { emailSettings } from '../../../src/surfaces/email/settings.ts';
import { pgliteDb } from '../../support/db.ts';
import { DOMAIN, startEmailHarness, type EmailHarness } from '../../support/email/harness.ts';
import { inbox } from '../../support/server.ts';

const logLines: string[] = [];
let db: Database;
let h: EmailHarness;

beforeAll(async () => {
  db = await pgliteDb.open();
  h = await startEmailHarness({ database: db, logLines, email: { smtpHostname: 'mx.agents.test' } });
}, 60_000);
afterAll(async () => {
  await h?.stop();
  await db?.close();
});

const logged = (text: string) =>
  vi.waitFor(
    () => {
      const line = logLines.find((l) => l.includes(text));
      if (!line) throw new Error(`not logged yet: ${text}`);
      return JSON.parse(line) as Record<string, unknown>;
    },
    { timeout: 20_000, interval: 50 },
  );

/** Speaks SMTP to the listener: each command after the reply to the one before; returns every reply (greeting first). */
function dialogue(commands: string[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const replies: string[] = [];
    const socket = connect(h.smtpPort, '127.0.0.1');
    let pending = '';
    socket.on('data', (d) => {
      pending += d.toString();
      // A reply ends with a line whose code is followed by a space (not a dash, as the lines before it in EHLO's).
      const m = /(?:^|\r\n)(\d{3}) [^\r\n]*\r\n$/.exec(pending);
      if (!m) return;
      replies.push(pending.trim());
      pending = '';
      const next = commands[replies.length - 1];
      if (next === undefined) socket.end();
      else socket.write(`${next}\r\n`);
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(replies));
  });
}

describe('the SMTP listener', () => {
  it('greets with its host name, EMAIL_SMTP_HOSTNAME or else the machine’s', async () => {
    const [greeting, ehlo] = await dialogue(['EHLO sender.example.net', 'QUIT']);
    expect(greeting).toMatch(/^220 mx\.agents\.test ESMTP/);
    expect(ehlo).toMatch(/^250-mx\.agents\.test /);
    expect(emailSettings(loadConfig({})).smtpHostname).toBe(hostname());
  });

  it('takes mail to postmaster, with or without the domain, and logs it for the operator without handing it to an agent', async () => {
    const info = await h.send({
      from: 'ops@example.net',
      to: [`Postmaster@${DOMAIN}`, `reviewer@${DOMAIN}`],
      subject: 'Your server',
      text: 'Your listener answers slowly.',
    });
    expect(info.accepted).toEqual([`Postmaster@${DOMAIN}`, `reviewer@${DOMAIN}`]);
    const line = await logged('mail to postmaster');
    expect(line).toMatchObject({ from: ['ops@example.net'], subject: 'Your server', via: 'smtp' });
    expect(String(line.text)).toContain('Your listener answers slowly.');
    // The agent it was also written to gets it; postmaster is no agent.
    await vi.waitFor(async () => {
      if (!(await inbox(h)).some((i) => i.message.body.includes('answers slowly')))
        throw new Error('not delivered yet');
    });

    // nodemailer sends no address without a domain: the SMTP dialogue itself.
    const replies = await dialogue([
      'EHLO sender.example.net',
      'MAIL FROM:<ops@example.net>',
      'RCPT TO:<postmaster>',
      'DATA',
      `From: ops@example.net\r\nTo: postmaster\r\nSubject: Domainless\r\nMessage-ID: <bare-1@example.net>\r\n\r\nRCPT TO without a domain.\r\n.`,
      'QUIT',
    ]);
    expect(replies.map((r) => r.slice(0, 3))).toEqual(['220', '250', '250', '250', '354', '250', '221']);
    await logged('Domainless');
  });
});

describe('the hourly upkeep', () => {
  it('purges received mails recorded long ago that never became a message, and nothing else', async () => {
    const { app } = h.server;
    const task = periodicTasks(app).find((t) => t.topic === 'upkeep.email.mails');
    expect(task).toBeDefined();
    expect((await app.store.outbox.list({})).some((e) => e.topic === 'upkeep.email.mails')).toBe(true);

    await h.send({
      from: 'carol@example.com',
      to: `reviewer@${DOMAIN}`,
      subject: 'Kept',
      text: 'kept mail',
      messageId: '<kept-1@example.com>',
    });
    await vi.waitFor(async () => {
      if (!(await inbox(h)).some((i) => i.message.body.includes('kept mail'))) throw new Error('not delivered yet');
    });
    // As a process that stopped between recording a mail and the core storing it leaves it.
    const mails = emailRuntime(app.surfaceModules).mails;
    const orphan = (mailId: string) => ({
      workspaceId: h.workspace.id,
      mailId,
      messageId: null,
      rootMailId: mailId,
      direction: 'in' as const,
      parties: { from: [], replyTo: [], to: [], cc: [] },
      references: [],
      subject: '',
      details: {},
    });
    await mails.add(orphan('old-orphan@example.com'));
    await mails.add(orphan('new-orphan@example.com'));
    // Everything but the fresh orphan dates from two hours ago: past JOB_MAX_AGE_MINUTES (30) and an hour.
    await db.db.execute(
      sql`update email_mails set created_at = now() - interval '2 hours' where mail_id <> 'new-orphan@example.com'`,
    );
    await task!.run();
    const ids = rowsOf<{ mail_id: string }>(await db.db.execute(sql`select mail_id from email_mails`)).map(
      (r) => r.mail_id,
    );
    expect(ids).toContain('new-orphan@example.com');
    expect(ids).toContain('kept-1@example.com');
    expect(ids).not.toContain('old-orphan@example.com');
    expect(await logged('purged received mails that became no message')).toMatchObject({ deleted: 1 });
  });
});
