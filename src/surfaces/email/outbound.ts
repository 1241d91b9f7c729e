// Email's side of the one delivery path (src/core/delivery): an agent's message
// in an email conversation is mailed through EMAIL_SMTP_URL, from the agent's
// own address ("Reviewer (Switchboard)" <reviewer@…>), to the people on the
// thread (never to agents' addresses), with In-Reply-To and References so it
// threads in their mail program, DKIM-signed when a key is configured.
//
// What exactly-once means here: the Message-ID is made from the Switchboard
// message id (`sb.<id>@<domain>`) and recorded with the thread before the relay
// is called, and marked sent once the relay accepted it. A retry finds a mail
// marked sent (findPost) and sends nothing; after an attempt whose outcome is
// unknown it sends again under the same Message-ID, which mail programs show once.
//
// A mail sent cannot be edited or taken back: an edit or delete on the web
// changes Switchboard's copy only. A streamed message is mailed once, finished (live.ts).
import type { Agent } from '../../core/entities.ts';
import { DeliveryError } from '../../core/delivery/failure.ts';
import type { OutboundMessage, PostedMessage, SurfaceOutbound } from '../../core/delivery/surface-outbound.ts';
import { addressOf, DEFAULT_TENANT, isOurs, parseOurAddress } from './addresses.ts';
import { deliveryErrorOf, loggable } from './errors.ts';
import { markdownToMail } from './format/out.ts';
import { bareSubject } from './inbound.ts';
import type { MailAddress, StoredMail } from './mail-repo.ts';
import { MAX_REFERENCES } from './parse.ts';
import { dkimOption, type EmailRuntime } from './runtime.ts';
import { mailIdFor, paceKey, threadFromRef, type EmailThread } from './thread-id.ts';
import { EMAIL, EMAIL_POST } from './topics.ts';

/** Most mails of a thread read to address an answer. */
const THREAD_READ = 200;

/** How the id of a stream's draft starts: it names no mail. */
export const DRAFT = 'draft:';

const permanent = (code: string, reason: string) => new DeliveryError({ kind: 'permanent', code, reason });

function threadOf(m: OutboundMessage): EmailThread {
  const thread = threadFromRef(m.conversation.externalRef);
  if (!thread) throw permanent('no_address', 'the conversation has no email thread to answer in');
  return thread;
}

/**
 * Who an answer goes to: the people the thread's mails came from (their Reply-To when they gave one), latest
 * first; then everyone else they were sent to. Our own addresses (agents') are never among them.
 */
export function recipientsOf(
  thread: StoredMail[],
  domain: string,
  max: number,
): { to: MailAddress[]; cc: MailAddress[]; dropped: number } {
  const seen = new Set<string>();
  const take = (list: MailAddress[]) =>
    list.filter((a) => !isOurs(a.address, domain) && !seen.has(a.address) && seen.add(a.address));
  const latestFirst = [...thread].reverse();
  const to = take(
    latestFirst
      .filter((m) => m.direction === 'in')
      .flatMap((m) => (m.parties.replyTo.length ? m.parties.replyTo : m.parties.from)),
  );
  const cc = take(latestFirst.flatMap((m) => [...m.parties.to, ...m.parties.cc]));
  const total = to.length + cc.length;
  return { to: to.slice(0, max), cc: cc.slice(0, Math.max(0, max - to.length)), dropped: Math.max(0, total - max) };
}

/**
 * The address an agent answers from: the one of ours the thread's mails reached it at (latest first), else its
 * name under the workspace's label (the plain form in the default workspace).
 */
async function senderAddress(
  rt: EmailRuntime,
  sender: Agent,
  thread: EmailThread,
  mails: StoredMail[],
): Promise<string> {
  const { domain } = rt.settings;
  const names = sender.kind === 'person' ? [sender.name] : [sender.name, `${sender.ownerHandle}/${sender.name}`];
  const workspace = await rt.core.orgs.findWorkspace(thread.tenant);
  const plain =
    workspace !== null && (await rt.core.tenants.workspaceOf(EMAIL.surface, DEFAULT_TENANT)) === workspace.id;
  // Only this workspace's addresses: one mail may have been written to agents of several.
  const mine = (label: string | null) => label === thread.tenant || (label === null && plain);
  for (const m of [...mails].reverse())
    for (const a of [...m.parties.to, ...m.parties.cc]) {
      const ours = parseOurAddress(a.address, domain);
      if (ours && mine(ours.label) && names.includes(ours.name)) return a.address;
    }
  const directory = workspace ? await rt.core.agents.directory(workspace) : [];
  const shared = directory.some((d) => d.agent.id !== sender.id && d.agent.name === sender.name);
  return addressOf(shared ? names[1]! : sender.name, plain ? null : thread.tenant, domain);
}

/** A mail an agent sends into an email thread: an answer, or an approval it asked for and how that was settled. */
export interface ThreadMail {
  workspaceId: string;
  thread: EmailThread;
  /** Its Message-ID, made from what it is (`mailIdFor`), so that a retry finds the mail. */
  mailId: string;
  /** The Switchboard message it is; null for a mail that is no message (an approval's). */
  messageId: string | null;
  sender: Agent;
  markdown: string;
  /** Headers of its own (the message id an answer carries). */
  headers?: Record<string, string>;
}

/** Mails into the thread once (see the top of this file). */
export async function mailIntoThread(rt: EmailRuntime, t: ThreadMail): Promise<void> {
  const { domain, maxParticipants } = rt.settings;
  const { workspaceId, thread, mailId } = t;
  const earlier = await rt.mails.get(workspaceId, mailId);
  if (earlier?.sentAt) return;
  const mails = (await rt.mails.thread(workspaceId, thread.root, THREAD_READ)).filter((x) => x.mailId !== mailId);
  const answered = mails.at(-1);
  if (!answered)
    throw permanent(
      'no_thread',
      "none of the email thread's mails is kept any more (its history was deleted), so there is no one to answer",
    );
  const { to, cc, dropped } = recipientsOf(mails, domain, maxParticipants);
  if (!to.length && !cc.length)
    throw permanent('no_recipients', 'nobody outside Switchboard is on this email thread, so there is no one to mail');
  if (dropped) rt.logger.warn({ mailId, dropped }, 'an answer went to the first people of a thread with too many');
  const from = {
    name: `${t.sender.displayName} (Switchboard)`,
    address: await senderAddress(rt, t.sender, thread, mails),
  };
  const chain = [...answered.references.filter((r) => r !== answered.mailId), answered.mailId];
  const references = chain.length <= MAX_REFERENCES ? chain : [chain[0]!, ...chain.slice(-(MAX_REFERENCES - 1))];
  const subject = `Re: ${bareSubject(mails[0]!.subject) || bareSubject(answered.subject)}`.trim();
  // Recorded before the relay is called: a reply to this mail threads even if the process dies after sending it.
  if (!earlier)
    await rt.mails.add({
      workspaceId,
      mailId,
      messageId: t.messageId,
      rootMailId: thread.root,
      direction: 'out',
      parties: { from: [from], replyTo: [], to, cc },
      references,
      subject,
      details: {},
    });
  const transport = rt.transport();
  if (!transport) throw permanent('not_configured', 'EMAIL_SMTP_URL is not set, so Switchboard cannot send mail');
  const body = markdownToMail(t.markdown);
  let response: string;
  try {
    const info = await transport.sendMail({
      from,
      to,
      cc,
      subject,
      ...body,
      messageId: `<${mailId}>`,
      inReplyTo: `<${answered.mailId}>`,
      references: references.map((r) => `<${r}>`).join(' '),
      // RFC 3834: autoresponders do not answer it, so two programs never write to each other without end.
      headers: { 'Auto-Submitted': 'auto-replied', ...t.headers },
      ...dkimOption(rt),
    });
    if (info.rejected.length)
      rt.logger.warn({ mailId, rejected: info.rejected.length }, "the mail server refused some of the thread's people");
    response = String(info.response ?? '').slice(0, 300);
  } catch (e) {
    rt.logger.warn({ mailId, err: loggable(e) }, 'an answer could not be mailed');
    throw deliveryErrorOf(e);
  }
  await rt.mails.markSent(workspaceId, mailId, rt.core.clock.now(), response);
}

/** Mails the message once; returns its Message-ID. */
export async function sendOnce(rt: EmailRuntime, m: OutboundMessage): Promise<PostedMessage> {
  const mailId = mailIdFor(m.message.id, rt.settings.domain);
  await mailIntoThread(rt, {
    workspaceId: m.conversation.workspaceId,
    thread: threadOf(m),
    mailId,
    messageId: m.message.id,
    sender: m.sender,
    markdown: m.message.body,
    headers: { 'X-Switchboard-Message': m.message.id },
  });
  return { externalId: mailId, permalink: null };
}

export function emailOutbound(rt: EmailRuntime): SurfaceOutbound {
  return {
    ...EMAIL,
    postTopic: EMAIL_POST,
    pacer: rt.pacer,
    paceKey(conversation) {
      const thread = threadFromRef(conversation.externalRef);
      return thread ? paceKey(thread) : null;
    },
    post: (m) => sendOnce(rt, m),

    async findPost(m) {
      const sent = await rt.mails.get(m.conversation.workspaceId, mailIdFor(m.message.id, rt.settings.domain));
      return sent?.sentAt ? { externalId: sent.mailId, permalink: null } : null;
    },

    async update({ message }) {
      rt.logger.info({ messageId: message.id }, 'a mailed message was edited; the mail already sent stays as it was');
    },

    async remove(_conversation, externalId) {
      // A stream's draft was never mailed (live.ts): nothing to say.
      if (externalId.startsWith(DRAFT)) return;
      rt.logger.info({ mailId: externalId.slice(0, 200) }, 'a mailed message was deleted; the mail already sent stays');
    },

    // Email threads are never bridged: a thread's address is the channel's own.
    threadAddress: (ref) => ref,
  };
}
