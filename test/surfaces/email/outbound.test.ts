// An agent's answer in an email conversation is mailed to the people on the
// thread (never to agents' addresses) from the agent's own address, with
// In-Reply-To and References, under a Message-ID made from the message id; a
// reply to it continues the conversation. The relay's 4xx is retried, its 5xx
// stops the job with the server's reply and tells the agent; a mail sent once
// is never sent again.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Agent } from '../../../src/core/entities.ts';
import type { InboxItem } from '../../../src/core/messaging/message.ts';
import type { Database } from '../../../src/infra/db/client.ts';
import { EMAIL_POST, emailRuntime } from '../../../src/surfaces/email/index.ts';
import { emailOutbound } from '../../../src/surfaces/email/outbound.ts';
import { pgliteDb } from '../../support/db.ts';
import { DOMAIN, startEmailHarness, type EmailHarness } from '../../support/email/harness.ts';
import { inbox } from '../../support/server.ts';

let db: Database;
let h: EmailHarness;

beforeAll(async () => {
  db = await pgliteDb.open();
  h = await startEmailHarness({ database: db });
}, 60_000);
afterAll(async () => {
  await h?.stop();
  await db?.close();
});

async function receivedBy(agent: Agent, text: string): Promise<InboxItem> {
  let found: InboxItem | undefined;
  await vi.waitFor(async () => {
    found ??= (await inbox({ server: h.server, workspace: h.workspace, reviewer: h.reviewer }, agent)).find((i) =>
      i.message.body.includes(text),
    );
    if (!found) throw new Error('not delivered yet');
  });
  return found!;
}

const answer = (agent: Agent, item: InboxItem, body: string) =>
  h.server.app.messaging.send({ workspace: h.workspace, sender: agent, conversationId: item.conversation.id, body });

async function relayed(text: string) {
  await vi.waitFor(() => {
    if (!h.relay.received.some((m) => m.parsed.text?.includes(text))) throw new Error('not mailed yet');
  });
  return h.relay.received.filter((m) => m.parsed.text?.includes(text));
}

describe('answers by mail', () => {
  let first: InboxItem;

  it("go to the thread's people from the agent's address, threaded under the mail they answer", async () => {
    await h.send({
      from: '"Carol Example" <carol@example.com>',
      to: `reviewer@${DOMAIN}`,
      cc: ['dave@example.com', `eng+builder@${DOMAIN}`],
      subject: 'Release plan',
      text: 'When do we ship?',
      messageId: '<plan-1@example.com>',
    });
    first = await receivedBy(h.reviewer, 'When do we ship?');
    const sent = await answer(h.reviewer, first, 'Thursday, after the **review**.');
    const [mail] = await relayed('Thursday, after the');
    const m = mail!.parsed;
    expect(m.from?.value).toEqual([{ name: 'Reviewer (Switchboard)', address: `reviewer@${DOMAIN}` }]);
    expect(m.messageId).toBe(`<sb.${sent.message!.id}@${DOMAIN}>`);
    expect(m.inReplyTo).toBe('<plan-1@example.com>');
    expect(m.references).toBe('<plan-1@example.com>');
    expect(m.subject).toBe('Re: Release plan');
    expect(m.headers.get('auto-submitted')).toBe('auto-replied');
    // Text and HTML parts from the Markdown.
    expect(m.text).toContain('**review**');
    expect(m.html).toContain('<strong>review</strong>');
    // The people, never an agent's address.
    expect(mail!.envelope.to.sort()).toEqual(['carol@example.com', 'dave@example.com']);
    expect((m.to as { value: Array<{ address: string }> }).value.map((a) => a.address)).toEqual(['carol@example.com']);
    // Recorded as posted, under the Message-ID.
    await vi.waitFor(async () => {
      const stored = await h.server.app.store.messages.get(h.workspace.id, sent.message!.id);
      expect(stored?.externalId).toBe(`sb.${sent.message!.id}@${DOMAIN}`);
    });
  });

  it('a reply to the answer continues the same conversation, whichever address it reaches', async () => {
    const [answerMail] = await relayed('Thursday, after the');
    const daves = await h.send({
      from: 'dave@example.com',
      to: `eng+reviewer@${DOMAIN}`,
      subject: 'Re: Release plan',
      text: 'Thursday works for me.\n\nOn Sun, 6 Dec 2026, Reviewer wrote:\n> Thursday, after the review.\n',
      inReplyTo: answerMail!.parsed.messageId,
      references: ['<plan-1@example.com>', answerMail!.parsed.messageId!],
    });
    const reply = await receivedBy(h.reviewer, 'Thursday works for me.');
    expect(reply.conversation.id).toBe(first.conversation.id);
    // The subject did not change: it is not repeated. The quoted history is left out, and kept for the record.
    expect(reply.message.body).not.toContain('Release plan');
    expect(reply.message.body).not.toContain('after the review');
    const rt = emailRuntime(h.server.app.surfaceModules);
    const record = await rt.mails.get(h.workspace.id, daves.messageId.slice(1, -1));
    expect(record?.details.full).toContain('> Thursday, after the review.');
    // The answer goes from the address the reply reached.
    await answer(h.reviewer, reply, 'Noted for Thursday.');
    const [noted] = await relayed('Noted for Thursday.');
    expect(noted!.parsed.from?.value[0]?.address).toBe(`eng+reviewer@${DOMAIN}`);
    expect(noted!.parsed.inReplyTo).toBe(daves.messageId);
    expect(String(noted!.parsed.references)).toContain('<plan-1@example.com>');
  });

  it('a stranger who refers to the thread starts a conversation of their own', async () => {
    await h.send({
      from: 'mallory@example.net',
      to: `reviewer@${DOMAIN}`,
      subject: 'Re: Release plan',
      text: 'Send me what you have.',
      references: ['<plan-1@example.com>'],
      inReplyTo: '<plan-1@example.com>',
    });
    const item = await receivedBy(h.reviewer, 'Send me what you have.');
    expect(item.conversation.id).not.toBe(first.conversation.id);
  });

  it('is retried when the relay answers 4xx, and mailed once', async () => {
    h.relay.failNext(451, '4.7.1 Greylisted, try again later');
    await h.send({ from: 'erin@example.com', to: `reviewer@${DOMAIN}`, subject: 'Greylist', text: 'greylist me' });
    const item = await receivedBy(h.reviewer, 'greylist me');
    await answer(h.reviewer, item, 'Answer through greylisting.');
    const mails = await relayed('Answer through greylisting.');
    expect(mails).toHaveLength(1);
  });

  it("stops at a 5xx with the server's reply, and tells the agent", async () => {
    await h.send({ from: 'frank@example.com', to: `reviewer@${DOMAIN}`, subject: 'Bounce', text: 'refuse the answer' });
    const item = await receivedBy(h.reviewer, 'refuse the answer');
    h.relay.failNext(550, '5.1.1 frank@example.com: mailbox unavailable');
    const sent = await answer(h.reviewer, item, 'This one is refused.');
    await vi.waitFor(async () => {
      const failed = await h.server.app.jobs.list({ status: 'failed', topic: EMAIL_POST });
      const job = failed.find((j) => j.payload.messageId === sent.message!.id);
      expect(job?.lastError).toMatch(/mailbox unavailable/);
    });
    const notice = await receivedBy(h.reviewer, 'could not be posted');
    expect(notice.message.body).toMatch(/refused the mail .*mailbox unavailable/);
  });

  it('is not mailed again once the relay took it (findPost, and a repeated send)', async () => {
    const rt = emailRuntime(h.server.app.surfaceModules);
    const out = emailOutbound(rt);
    const [mail] = await relayed('Thursday, after the');
    const id = /^<sb\.([^@]+)@/.exec(mail!.parsed.messageId!)![1]!;
    const message = (await h.server.app.store.messages.get(h.workspace.id, id))!;
    const conversation = (await h.server.app.store.messages.getConversation(h.workspace.id, message.conversationId))!;
    const m = { message, conversation, sender: h.reviewer };
    expect(await out.findPost(m)).toEqual({ externalId: `sb.${id}@${DOMAIN}`, permalink: null });
    const before = h.relay.received.length;
    expect((await out.post(m)).externalId).toBe(`sb.${id}@${DOMAIN}`);
    expect(h.relay.received.length).toBe(before);
  });
});
