// The outbox jobs that show approvals in Slack and keep every shown card in
// step: `slack.approval.show` posts the card (in the conversation's Slack
// thread, else in each approver's DM with the app) and stores each post as a
// view; `slack.approval.update` rewrites every stored view with `chat.update`.
// Both read the approval's current state, so a retry, a late show or a repeat
// update always renders the same truth.
import { z } from 'zod';
import type { Approval, ApprovalView } from '../../core/approvals/approval.ts';
import { isDeliveryError, jobErrorFor } from '../../core/delivery/failure.ts';
import { pacedCall } from '../../core/delivery/pacer.ts';
import { PermanentFailure } from '../../core/errors.ts';
import type { JobHandler } from '../../core/ports.ts';
import type { Agent } from '../../core/entities.ts';
import { APPROVAL_EVENT_TYPE, approvalBlocks, approvalText } from './cards.ts';
import { classifySlackError, loggable, notInstalled } from './errors.ts';
import { call } from './outbound.ts';
import { postOnce } from './post-once.ts';
import type { SlackRuntime } from './runtime.ts';
import { threadFromRef } from './thread-id.ts';
import { SLACK_APPROVAL_SHOW, SLACK_APPROVAL_UPDATE } from './topics.ts';
import { isUnfurlView, refreshUnfurl, type UnfurlRef } from './unfurls.ts';

const Job = z.object({ approvalId: z.string().uuid(), workspaceId: z.string().uuid() });

/** Where one card goes: a channel or thread, or the DM of one approver (`user`). */
interface Target {
  team: string;
  channel: string;
  thread_ts?: string;
  user?: string;
}

function parse(topic: string, raw: Record<string, unknown>) {
  const job = Job.safeParse(raw);
  if (!job.success)
    throw new PermanentFailure(`The ${topic} job is malformed (${job.error.issues[0]?.message}); it cannot be run.`);
  return job.data;
}

/** Collects what went wrong across several posts, so the ones that worked are kept and the rest retried. */
class Failures {
  private retry: Error | null = null;
  permanent = 0;

  constructor(private readonly rt: SlackRuntime) {}

  add(e: unknown, facts: Record<string, unknown>) {
    const f = isDeliveryError(e) ? e.failure : classifySlackError(e);
    this.rt.logger.warn({ ...facts, reason: f.reason }, 'Slack refused an approval card');
    if (f.kind === 'permanent') this.permanent += 1;
    // A Retry-After outranks a plain retry: the whole job waits for it.
    else if (f.kind === 'rate_limited' || !this.retry) this.retry = jobErrorFor(f);
  }

  /** Throws for the queue to retry the job when something may work later. */
  rethrow() {
    if (this.retry) throw this.retry;
  }
}

async function load(
  rt: SlackRuntime,
  workspaceId: string,
  approvalId: string,
): Promise<{ a: Approval; agent: Agent; outcome: string | null } | null> {
  const { approvals } = rt.core;
  const a = await approvals.find(workspaceId, approvalId);
  const agent = a ? await approvals.askingAgent(a) : null;
  // Deleted since (workspace removed): there is nothing left to show.
  if (!a || !agent) return null;
  return { a, agent, outcome: a.status === 'pending' ? null : await approvals.outcome(a) };
}

/**
 * The thread it was asked in when that is a Slack conversation, or a web one bridged with a Slack channel (its place
 * there); else the DM of every approver linked to a Slack user of a team connected here.
 */
async function targets(rt: SlackRuntime, a: Approval, shown: ApprovalView[]): Promise<Target[]> {
  const conversation = await rt.core.approvals.conversationOf(a);
  const bridged = conversation && (await rt.core.bridges.placeOn('slack', conversation));
  const thread = threadFromRef(bridged ?? (conversation?.surface === 'slack' ? conversation.externalRef : null));
  if (thread) return shown.some((v) => !v.ref.user && !isUnfurlView(v.ref)) ? [] : [thread];
  const approvers = await rt.core.approvals.approversOf(a);
  const identities = (await Promise.all(approvers.map((p) => rt.identities.listForPerson(p))))
    .flat()
    .filter((i) => i.surface === 'slack');
  const out: Target[] = [];
  for (const i of identities) {
    if (shown.some((v) => v.ref.team === i.tenantId && v.ref.user === i.externalUserId)) continue;
    const installation = await rt.installations.get(i.tenantId);
    // Posting to a user id lands in their DM with the app; Slack answers with the DM's channel id.
    if (installation?.workspaceId === a.workspaceId)
      out.push({ team: i.tenantId, channel: i.externalUserId, user: i.externalUserId });
  }
  return out;
}

export function approvalShowHandler(rt: SlackRuntime): JobHandler {
  const { approvals } = rt.core;
  return async (raw, ctx) => {
    const job = parse(SLACK_APPROVAL_SHOW, raw);
    const found = await load(rt, job.workspaceId, job.approvalId);
    if (!found) return;
    const { a, agent, outcome } = found;
    const list = await targets(rt, a, await approvals.views(a.id, 'slack'));
    const failures = new Failures(rt);
    for (const t of list) {
      const creds = await rt.installations.credentials(t.team);
      if (!creds) {
        failures.add(notInstalled(t.team), { approvalId: a.id });
        continue;
      }
      try {
        // One card per approval and place, even across a crash between posting it and storing its view.
        const posted = await pacedCall(rt.pacer, `${t.team}:${t.channel}`, () =>
          postOnce(
            rt,
            rt.clients.for(creds.token),
            `approval:${a.id}:${t.team}:${t.channel}`,
            {
              channel: t.channel,
              ...(t.thread_ts ? { thread_ts: t.thread_ts } : {}),
              text: approvalText(a, agent, outcome),
              blocks: approvalBlocks(a, agent, outcome),
              username: agent.displayName.slice(0, 80),
              ...(agent.avatarUrl ? { icon_url: agent.avatarUrl } : {}),
              metadata: { event_type: APPROVAL_EVENT_TYPE, event_payload: { approval_id: a.id } },
              unfurl_links: false,
            },
            ctx.signal,
          ),
        );
        // Recorded at once: a retry of this job skips every card already posted.
        await approvals.addView({
          approvalId: a.id,
          surface: 'slack',
          ref: {
            team: t.team,
            channel: posted.channel,
            ts: posted.ts,
            ...(t.thread_ts ? { thread_ts: t.thread_ts } : {}),
            ...(t.user ? { user: t.user } : {}),
          },
        });
      } catch (e) {
        failures.add(e, { approvalId: a.id, channel: t.channel });
      }
    }
    failures.rethrow();
    if (list.length && failures.permanent === list.length && !list[0].user) await tellAgent(rt, a, agent);
    if (list.length && failures.permanent === list.length)
      throw new PermanentFailure('Slack refused every approval card; it is still shown on the web.');
  };
}

export function approvalUpdateHandler(rt: SlackRuntime): JobHandler {
  const { approvals } = rt.core;
  return async (raw) => {
    const job = parse(SLACK_APPROVAL_UPDATE, raw);
    const found = await load(rt, job.workspaceId, job.approvalId);
    if (!found) return;
    const { a, agent, outcome } = found;
    const failures = new Failures(rt);
    for (const view of await approvals.views(a.id, 'slack')) {
      const { team, channel, ts } = view.ref;
      // A preview of a link to it, in someone's message: drawn again for that channel's readers.
      if (isUnfurlView(view.ref)) {
        await refreshUnfurl(rt, view.ref as unknown as UnfurlRef).catch((e: unknown) =>
          failures.add(e, { approvalId: a.id, channel }),
        );
        continue;
      }
      const creds = await rt.installations.credentials(team);
      if (!creds) continue;
      try {
        await pacedCall(rt.pacer, `${team}:${channel}`, () =>
          call(() =>
            rt.clients.for(creds.token).chat.update({
              channel,
              ts,
              text: approvalText(a, agent, outcome),
              blocks: approvalBlocks(a, agent, outcome),
            }),
          ),
        );
      } catch (e) {
        // A card someone deleted (message_not_found) stays gone; the others are still updated.
        failures.add(e, { approvalId: a.id, channel });
      }
    }
    failures.rethrow();
  };
}

/** Tells the asking agent in its inbox that Slack would not show its request, and where it still is. */
async function tellAgent(rt: SlackRuntime, a: Approval, agent: Agent) {
  try {
    const ws = await rt.core.orgs.workspace(a.workspaceId);
    await rt.core.messaging.notice(
      ws,
      await rt.core.orgs.systemAgent(),
      agent,
      `Your approval ${a.id} “${a.title}” could not be shown in the Slack thread (Slack refused it; see the logs). ` +
        "It is still pending in the web chat and the approvers' inboxes.",
      'slack-delivery',
    );
  } catch (err) {
    rt.logger.error({ err: loggable(err), approvalId: a.id }, 'could not tell the agent that its approval card failed');
  }
}
