// Mail sent by nodemailer over a socket to the SMTP listener reaches the agents
// it was written to, once each, in their inbox with surface "email"; recipients
// outside the domain or naming nobody are refused at RCPT TO with the reason, a
// mail over the size limit is refused with 552, and a mail delivered twice is
// handled once.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { pgliteDb } from '../../support/db.ts';
import { DOMAIN, startEmailHarness, type EmailHarness } from '../../support/email/harness.ts';
import { inbox } from '../../support/server.ts';
import { connectInProcess } from '../../support/world.ts';
import type { Agent } from '../../../src/core/entities.ts';
import type { InboxItem } from '../../../src/core/messaging/message.ts';

let db: Database;
let h: EmailHarness;

beforeAll(async () => {
  db = await pgliteDb.open();
  h = await startEmailHarness({ database: db, email: { maxBytes: 64 * 1024, maxRecipients: 3 } });
}, 60_000);
afterAll(async () => {
  await h?.stop();
  await db?.close();
});

/** Waits until the agent's inbox holds a message containing `text`, and returns every such item. */
async function receivedBy(agent: Agent, text: string): Promise<InboxItem[]> {
  const seen: InboxItem[] = [];
  await vi.waitFor(async () => {
    seen.push(...(await inbox({ server: h.server, workspace: h.workspace, reviewer: h.reviewer }, agent)));
    if (!seen.some((i) => i.message.body.includes(text))) throw new Error('not delivered yet');
  });
  return seen.filter((i) => i.message.body.includes(text));
}

describe('mail over SMTP', () => {
  it('reaches every agent it is written to, once each, with who wrote, the subject and the text', async () => {
    await h.send({
      from: '"Carol Example" <carol@example.com>',
      to: [`reviewer@${DOMAIN}`, 'dave@example.com'],
      cc: `eng+builder@${DOMAIN}`,
      subject: 'Quarterly numbers',
      text: 'Could you both check the totals?',
    });
    const [forReviewer] = await receivedBy(h.reviewer, 'check the totals');
    const [forBuilder] = await receivedBy(h.builder, 'check the totals');
    expect(forReviewer!.message.id).toBe(forBuilder!.message.id);
    expect(forReviewer!.message.surface).toBe('email');
    expect(forReviewer!.conversation.kind).toBe('external');
    expect(forReviewer!.message.body).toContain('Quarterly numbers');
    expect(forReviewer!.message.body).toContain('Carol Example (carol@example.com)');
    expect(forReviewer!.message.body).toContain('dave@example.com');
    expect(forReviewer!.message.body).not.toContain(`builder@${DOMAIN}`);
    expect(forReviewer!.conversation.title).toContain('Quarterly numbers');
    // Once each: a second look finds no second copy.
    expect((await inbox({ server: h.server, workspace: h.workspace, reviewer: h.reviewer }, h.reviewer)).length).toBe(
      0,
    );
  });

  it('refuses at RCPT TO an address outside the domain and one that names no agent, saying why', async () => {
    const outside = await h
      .send({ from: 'carol@example.com', to: 'someone@elsewhere.test', subject: 'x', text: 'y' })
      .catch((e) => e);
    expect(outside.responseCode).toBe(550);
    expect(outside.response).toMatch(/takes mail for agents\.test only/);
    const nobody = await h
      .send({ from: 'carol@example.com', to: `nobody@${DOMAIN}`, subject: 'x', text: 'y' })
      .catch((e) => e);
    expect(nobody.responseCode).toBe(550);
    expect(nobody.response).toMatch(/no agent or person "nobody"/);
    const noWorkspace = await h
      .send({ from: 'carol@example.com', to: `sales+reviewer@${DOMAIN}`, subject: 'x', text: 'y' })
      .catch((e) => e);
    expect(noWorkspace.responseCode).toBe(550);
    expect(noWorkspace.response).toMatch(/No workspace "sales"/);
  });

  it('takes the known recipients of a mail and refuses the others', async () => {
    const info = await h.send({
      from: 'carol@example.com',
      to: [`reviewer@${DOMAIN}`, `ghost@${DOMAIN}`],
      subject: 'Half known',
      text: 'only the reviewer gets this',
    });
    expect(info.accepted).toEqual([`reviewer@${DOMAIN}`]);
    expect(info.rejected).toEqual([`ghost@${DOMAIN}`]);
    await receivedBy(h.reviewer, 'only the reviewer gets this');
  });

  it('takes at most the configured number of recipients per message and answers 452 for the rest', async () => {
    const to = [`reviewer@${DOMAIN}`, `eng+reviewer@${DOMAIN}`, `builder@${DOMAIN}`, `eng+builder@${DOMAIN}`];
    const info = await h.send({ from: 'carol@example.com', to, subject: 'Crowded', text: 'one copy each' });
    expect(info.accepted).toEqual(to.slice(0, 3));
    expect(info.rejected).toEqual([to[3]]);
    const errors = (info as { rejectedErrors?: Array<{ responseCode?: number }> }).rejectedErrors;
    expect(errors?.[0]?.responseCode).toBe(452);
    // Two addresses of one agent still make one copy for it.
    expect(await receivedBy(h.reviewer, 'one copy each')).toHaveLength(1);
    expect(await receivedBy(h.builder, 'one copy each')).toHaveLength(1);
  });

  it('refuses a mail over the size limit with 552, and stores nothing of it', async () => {
    const big = 'x'.repeat(80 * 1024);
    const refused = await h
      .send({ from: 'carol@example.com', to: `reviewer@${DOMAIN}`, subject: 'Big', text: big })
      .catch((e) => e);
    expect(refused.responseCode).toBe(552);
  });

  it('handles a mail delivered twice (same Message-ID) once', async () => {
    const mail = {
      from: 'carol@example.com',
      to: `reviewer@${DOMAIN}`,
      subject: 'Twice',
      text: 'delivered twice, read once',
      messageId: '<twice-1@example.com>',
    };
    const first = await h.send(mail);
    const second = await h.send(mail);
    expect(first.response).toMatch(/^250 /);
    expect(second.response).toMatch(/Already received/);
    expect(await receivedBy(h.reviewer, 'read once')).toHaveLength(1);
  });

  it('is in the agent\'s inbox over MCP with surface "email"', async () => {
    await h.send({ from: 'carol@example.com', to: `builder@${DOMAIN}`, subject: 'Over MCP', text: 'read me over MCP' });
    const mcp = await connectInProcess(h.server.app, h.builder, 'eng');
    try {
      let item: { surface: string; body: string; conversation: { kind: string } } | undefined;
      await vi.waitFor(async () => {
        const r = await mcp.call('check_inbox', {});
        expect(r.isError).toBeFalsy();
        const messages = (r.structuredContent as { messages: NonNullable<typeof item>[] }).messages;
        item ??= messages.find((m) => m.body.includes('read me over MCP'));
        if (!item) throw new Error('not in the inbox yet');
      });
      expect(item!.surface).toBe('email');
      expect(item!.conversation.kind).toBe('external');
    } finally {
      await mcp.close();
    }
  });

  it('posts answers through the outbox, and shows approvals by mail (email.approval.* jobs)', () => {
    const app = h.server.app;
    expect(app.outbound.get('email')?.label).toBe('Email');
    expect([...app.surfaces]).toContain('email');
    expect(app.approvals.shownIn()).toContain('Email');
  });
});
