// What happens to a stored mail (the `inbound.email` job): it is read, never
// answered when it is automatic (an auto-reply, a bounce, list mail) or
// Switchboard's own mail come back, its sender checked, and then handed to
// the core once per workspace it was written to, in the conversation of its
// thread; the mail is recorded with that thread for replies and answers.
import { createHash } from 'node:crypto';
import { isRefusal, TransientFailure } from '../../core/errors.ts';
import { storableCopy } from '../../core/safe-text.ts';
import type { WorkspaceAgent } from '../../core/agents/agent-service.ts';
import type { Workspace } from '../../core/entities.ts';
import { isOurs } from './addresses.ts';
import { keepReaders } from './audience.ts';
import { automaticMailReason } from './automatic.ts';
import { authorIdOf, bareSubject, emailPort, mailText, normalise } from './inbound.ts';
import type { MailAddress } from './mail-repo.ts';
import { answerLinkRequest, LINK_SUBJECT } from './linking.ts';
import { readMail, type ReadMail } from './parse.ts';
import { RecipientBook } from './recipients.ts';
import type { EmailRuntime } from './runtime.ts';
import type { StoredMailPayload } from './stored-mail.ts';
import { isSentByUs } from './thread-id.ts';
import { verifySender, type SenderCheck } from './verify.ts';

/** Longest complete text kept with a mail's record, in characters. */
const MAX_FULL_CHARS = 100_000;
/** Most mails of a thread read to find who is on it. */
const THREAD_READ = 200;

/** Whether the sender is who the From line says (verify.ts); a check that fails leaves them unverified, saying why. */
async function checkSender(
  rt: EmailRuntime,
  raw: Buffer,
  payload: StoredMailPayload,
  sender: MailAddress,
): Promise<SenderCheck> {
  try {
    return await verifySender(raw, {
      ip: payload.client.ip ?? undefined,
      helo: payload.client.helo ?? undefined,
      mta: rt.settings.domain,
      sender: payload.envelope.from ?? undefined,
      resolver: rt.settings.resolver,
    });
  } catch (e) {
    return {
      verified: false,
      address: sender.address,
      reason: `The sender could not be checked (${(e as Error).message}).`,
    };
  }
}

/** A Message-ID for a mail that has none that can be read: the same raw mail always gets the same one. */
const madeUpId = (raw: Buffer, domain: string) =>
  `${createHash('sha256').update(raw).digest('hex').slice(0, 40)}.no-message-id@${domain}`;

/** Handles one stored mail; throws (so the job retries) only when something may work later. */
export async function handleMail(rt: EmailRuntime, payload: StoredMailPayload): Promise<void> {
  const raw = Buffer.from(payload.raw, 'base64');
  const mail = await readMail(raw);
  const mailId = mail.mailId ?? madeUpId(raw, rt.settings.domain);
  const facts = { mailId: mailId.slice(0, 200), via: payload.via };
  if (mail.problems.length) rt.logger.warn({ ...facts, problems: mail.problems }, 'parts of a mail could not be read');
  const sender =
    mail.parties.from[0] ?? (payload.envelope.from ? { name: '', address: payload.envelope.from.toLowerCase() } : null);
  if (!sender) return void rt.logger.info(facts, 'a mail without a sender was kept and not answered');
  const automatic = automaticMailReason(mail.headers, payload.envelope.from);
  if (automatic)
    return void rt.logger.info({ ...facts, reason: automatic }, 'automatic mail was kept and not answered');
  if (isOurs(sender.address, rt.settings.domain) || isSentByUs(mailId, rt.settings.domain))
    return void rt.logger.info(facts, "Switchboard's own mail came back; it was kept and not answered");
  const check = await checkSender(rt, raw, payload, sender);
  const book = new RecipientBook(rt);
  const byWorkspace = new Map<string, { workspace: Workspace; names: string[] }>();
  for (const address of payload.envelope.to) {
    const found = await book.check(address);
    if (!found.ok) {
      if (!found.permanent) throw new TransientFailure(found.reason);
      rt.logger.info({ ...facts, reason: found.reason }, 'a recipient of a mail is no longer there; left out');
      continue;
    }
    const { workspace, name } = found.recipient;
    const group = byWorkspace.get(workspace.id) ?? { workspace, names: [] };
    if (!group.names.includes(name)) group.names.push(name);
    byWorkspace.set(workspace.id, group);
  }
  // A mail asking for a link is answered with one, and reaches no agent.
  if (bareSubject(mail.subject).toLowerCase() === LINK_SUBJECT)
    return answerLinkRequest(
      rt,
      [...byWorkspace.values()].map((g) => g.workspace),
      sender,
      check,
      { mailId },
    );
  for (const { workspace, names } of byWorkspace.values()) {
    await deliverIn(rt, { workspace, directory: await rt.core.agents.directory(workspace) }, names, {
      mail,
      mailId,
      sender,
      check,
      via: payload.via,
    });
  }
}

interface Incoming {
  mail: ReadMail;
  mailId: string;
  sender: MailAddress;
  check: SenderCheck;
  via: string;
}

/** The thread a mail continues in a workspace, or a new one it starts. */
async function threadOf(
  rt: EmailRuntime,
  workspace: Workspace,
  { mail, mailId, sender }: Incoming,
): Promise<{ root: string; subject: string | null }> {
  const known = await rt.mails.findMany(workspace.id, mail.references);
  // The latest mail it refers to that the workspace holds names the thread.
  const order = new Map(mail.references.map((id, i) => [id, i]));
  const latest = known.sort((a, b) => order.get(b.mailId)! - order.get(a.mailId)!)[0];
  if (latest) {
    const thread = await rt.mails.thread(workspace.id, latest.rootMailId, THREAD_READ);
    const onIt = new Set(
      thread
        .flatMap((m) => [...m.parties.from, ...m.parties.replyTo, ...m.parties.to, ...m.parties.cc])
        .map((a) => a.address),
    );
    // Only someone the thread's mails were from or to continues it: a stranger who learnt a Message-ID does not get
    // the agents' next answers.
    if (onIt.has(sender.address)) return { root: latest.rootMailId, subject: thread[0]?.subject ?? null };
    rt.logger.info(
      { mailId: mailId.slice(0, 200) },
      'a reply from someone who was not on its thread starts a thread of its own',
    );
  }
  return { root: mailId, subject: null };
}

/** Hands the mail to the core for the agents it names in one workspace, and records it with its thread. */
async function deliverIn(
  rt: EmailRuntime,
  target: { workspace: Workspace; directory: WorkspaceAgent[] },
  names: string[],
  incoming: Incoming,
): Promise<void> {
  const { mail, mailId, sender, check, via } = incoming;
  const { workspace } = target;
  const domain = rt.settings.domain;
  const thread = await threadOf(rt, workspace, incoming);
  const others = [...mail.parties.to, ...mail.parties.cc].filter(
    (a, i, all) =>
      a.address !== sender.address && !isOurs(a.address, domain) && all.findIndex((b) => b.address === a.address) === i,
  );
  const showSubject =
    thread.subject === null || bareSubject(mail.subject).toLowerCase() !== bareSubject(thread.subject).toLowerCase();
  const msg = normalise(
    workspace,
    { tenant: workspace.slug, root: thread.root },
    mailId,
    authorIdOf(check, sender),
    mailText(mail, sender, others, check, showSubject),
    names,
  );
  const facts = { mailId: mailId.slice(0, 200), workspace: workspace.slug };
  // Recorded before the core has it: an agent answering at once finds whom to mail, and a reply finds its thread.
  await rt.mails.add(
    storableCopy({
      workspaceId: workspace.id,
      mailId,
      messageId: null,
      rootMailId: thread.root,
      direction: 'in' as const,
      parties: mail.parties,
      references: mail.references,
      subject: mail.subject,
      details: {
        verification: check,
        attachments: mail.attachments,
        full: mail.full.slice(0, MAX_FULL_CHARS),
        via,
        ...(mail.problems.length ? { problems: mail.problems } : {}),
      },
    }),
  );
  await keepReaders(rt, workspace, thread.root);
  let outcome: Awaited<ReturnType<typeof rt.core.inbound.receive>>;
  try {
    outcome = await rt.core.inbound.receive(emailPort(rt, sender, check, { mailId }), msg, target);
  } catch (e) {
    // A refusal (linking required, a rate or plan limit, the hop limit) is the answer; anything else is retried.
    if (!isRefusal(e)) throw e;
    await rt.mails.forget(workspace.id, mailId);
    return void rt.logger.info({ ...facts, reason: e.message }, 'a mail was refused');
  }
  const message = outcome.kind === 'handled' ? outcome.result?.message : null;
  if (!message) {
    await rt.mails.forget(workspace.id, mailId);
    return void rt.logger.info(
      { ...facts, outcome: outcome.kind, ...(outcome.kind === 'handled' ? { notices: outcome.notices } : {}) },
      'a mail reached no agent',
    );
  }
  if (outcome.kind === 'handled' && outcome.notices.length)
    rt.logger.info({ ...facts, notices: outcome.notices }, 'a mail reached not every agent it named');
  await rt.mails.attach(workspace.id, mailId, message.id);
  rt.logger.debug({ ...facts, messageId: message.id }, 'a mail was delivered');
}
