// The outbox jobs that show approvals by mail. `email.approval.show` mails an
// approval asked in an email thread into that thread, from the agent that asked,
// with its Approve and Reject links (cards.ts), and records the mail as the
// approval's view; `email.approval.update` mails how it was settled (wherever it
// was decided, or that it expired or was cancelled) into the same thread. Each
// mail has a Message-ID made from the approval's id and goes out once, like an
// answer (outbound.ts). Approvals asked anywhere else are not mailed.
import { z } from 'zod';
import type { Approval } from '../../core/approvals/approval.ts';
import { isDeliveryError, jobErrorFor } from '../../core/delivery/failure.ts';
import { pacedCall } from '../../core/delivery/pacer.ts';
import type { Agent } from '../../core/entities.ts';
import { PermanentFailure } from '../../core/errors.ts';
import type { JobHandler } from '../../core/ports.ts';
import { approvalMail, settledMail } from './cards.ts';
import { mailIntoThread, type ThreadMail } from './outbound.ts';
import type { EmailRuntime } from './runtime.ts';
import { mailIdFor, paceKey, threadFromRef, type EmailThread } from './thread-id.ts';
import { EMAIL, EMAIL_APPROVAL_SHOW, EMAIL_APPROVAL_UPDATE } from './topics.ts';

const Job = z.object({ approvalId: z.string().uuid(), workspaceId: z.string().uuid() });

/** What the mail of each job is, as its Message-ID says (`sb.<kind>.<approval id>@…`). */
const REQUEST = 'approval';
const SETTLED = 'settled';

/** The approval, the agent that asked and the email thread it was asked in; null when it was not asked in one. */
async function load(
  rt: EmailRuntime,
  topic: string,
  raw: Record<string, unknown>,
): Promise<{ a: Approval; agent: Agent; thread: EmailThread } | null> {
  const job = Job.safeParse(raw);
  if (!job.success)
    throw new PermanentFailure(`The ${topic} job is malformed (${job.error.issues[0]?.message}); it cannot be run.`);
  const { approvals } = rt.core;
  const a = await approvals.find(job.data.workspaceId, job.data.approvalId);
  const agent = a && (await approvals.askingAgent(a));
  if (!a || !agent) return null;
  const conversation = await approvals.conversationOf(a);
  const thread = conversation?.surface === EMAIL.surface ? threadFromRef(conversation.externalRef) : null;
  return thread && { a, agent, thread };
}

/** Mails into the approval's thread in its turn; a failed send is retried or given up as the relay's answer says. */
async function send(rt: EmailRuntime, mail: ThreadMail): Promise<void> {
  try {
    await pacedCall(rt.pacer, paceKey(mail.thread), () => mailIntoThread(rt, mail));
  } catch (e) {
    throw isDeliveryError(e) ? jobErrorFor(e.failure) : e;
  }
}

export function approvalShowHandler(rt: EmailRuntime): JobHandler {
  return async (raw) => {
    const found = await load(rt, EMAIL_APPROVAL_SHOW, raw);
    if (!found) return;
    const { a, agent, thread } = found;
    const mailId = mailIdFor(a.id, rt.settings.domain, REQUEST);
    // Settled before it could be mailed (and never tried): there is nothing left to ask.
    if (a.status !== 'pending' && !(await rt.mails.get(a.workspaceId, mailId))) return;
    const markdown = approvalMail(a, agent, {
      publicUrl: rt.core.config.publicUrl,
      workspace: thread.tenant,
      approvers: await rt.core.approvals.approverHandles(a),
    });
    await send(rt, { workspaceId: a.workspaceId, thread, mailId, messageId: null, sender: agent, markdown });
    // The view says the request was mailed: once settled, the update job mails how.
    await rt.core.approvals.addView({ approvalId: a.id, surface: EMAIL.surface, ref: { mailId } });
  };
}

export function approvalUpdateHandler(rt: EmailRuntime): JobHandler {
  return async (raw) => {
    const found = await load(rt, EMAIL_APPROVAL_UPDATE, raw);
    if (!found || found.a.status === 'pending') return;
    const { a, agent, thread } = found;
    if (!(await rt.core.approvals.views(a.id, EMAIL.surface)).length) return;
    const markdown = settledMail(a, await rt.core.approvals.outcome(a));
    const mailId = mailIdFor(a.id, rt.settings.domain, SETTLED);
    await send(rt, { workspaceId: a.workspaceId, thread, mailId, messageId: null, sender: agent, markdown });
  };
}
