// Approvals in Slack: the Approve and Reject buttons of an approval card, the
// modal asking why on Reject, and the outbox jobs that post and update cards
// (approval-jobs.ts). A click is stored and acknowledged first (receiver.ts);
// its job maps the Slack user to their linked person and the core decides.
// Refusals and late clicks are told to that person alone and change nothing.
// A click that fails otherwise (an outage, a bug) is retried by its job, and
// the person is told only when it is given up.
import type { BlockButtonAction, webApi } from '@slack/bolt';
import type { Decider } from '../../core/approvals/rules.ts';
import type { Decision } from '../../core/approvals/approval.ts';
import { isRefusal, type SwitchboardError } from '../../core/errors.ts';
import type { JobContext } from '../../core/ports.ts';
import type { SlackListeners } from './event-listeners.ts';
import {
  APPROVE_ACTION,
  lateClickText,
  REASON_BLOCK,
  REASON_INPUT,
  REASON_VIEW,
  reasonModal,
  REJECT_ACTION,
  type ReasonContext,
} from './cards.ts';
import { asJobError, loggable } from './errors.ts';
import { slackLinkHowTo } from './linking.ts';
import { jobOf } from './receiver.ts';
import { notConnected } from './replies.ts';
import { workspaceOf, type SlackRuntime } from './runtime.ts';

export { APPROVE_ACTION, REJECT_ACTION, REASON_VIEW, REASON_BLOCK, REASON_INPUT } from './cards.ts';

/** A click as the core needs it: the workspace behind the team, and who clicked as a decider. */
async function deciderFor(
  rt: SlackRuntime,
  teamId: string,
  userId: string,
): Promise<{ workspaceId: string; decider: Decider } | { refusal: string }> {
  const found = await workspaceOf(rt, teamId);
  if (!found?.workspace) return { refusal: notConnected(teamId) };
  const key = { surface: 'slack' as const, tenantId: teamId, externalUserId: userId };
  // Someone never seen before is recorded (unlinked); their profile is read when they first write.
  const identity = (await rt.identities.find(key)) ?? (await rt.identities.upsert(key));
  const role = identity.personId ? await rt.core.orgs.roleIn(identity.personId, found.workspace) : null;
  return { workspaceId: found.workspace.id, decider: { personId: identity.personId, role, identityId: identity.id } };
}

/** What a refused or late click is told: the core's sentence, or who settled it. */
async function refusalText(
  rt: SlackRuntime,
  e: SwitchboardError,
  workspaceId: string,
  approvalId: string,
): Promise<string> {
  if (e.code === 'CONFLICT') {
    const a = await rt.core.approvals.find(workspaceId, approvalId);
    if (a) return lateClickText(await rt.core.approvals.outcome(a));
  }
  // The core's reason, with Slack's way to a link as the hint.
  if (e.details.rule === 'not_linked') return e.withHint(`${slackLinkHowTo(rt.settings.command, false)}.`).message;
  return e.message;
}

/** What the person is told once their click has been given up (it kept failing on Switchboard's or Slack's side). */
const GIVEN_UP =
  'Switchboard could not handle your click on this approval, so nothing was decided; click again in a moment, or decide it in the web chat.';

/** Where a click's answer goes: the person who clicked, where the card is. */
type Where = { channel: string; user: string; thread_ts?: string };

/** Tells only the person who clicked (an ephemeral message where the card is). */
async function tellClicker(rt: SlackRuntime, client: webApi.WebClient, where: Where, text: string) {
  await client.chat
    .postEphemeral({
      channel: where.channel,
      user: where.user,
      text,
      ...(where.thread_ts ? { thread_ts: where.thread_ts } : {}),
    })
    .catch((err: unknown) =>
      rt.logger.warn({ err: loggable(err), channel: where.channel }, 'could not answer an approval click'),
    );
}

/**
 * Runs `handle` for one click: a refusal (permissions, a late click) is told to the person at once; any other failure
 * (the database, Slack, a bug) goes back to the stored click's job, which retries it, and is told only when the job
 * gives up.
 */
async function handleClick(
  rt: SlackRuntime,
  client: webApi.WebClient,
  click: ReasonContext & { userId: string },
  job: JobContext | undefined,
  handle: (who: { workspaceId: string; decider: Decider }) => Promise<void>,
) {
  const where: Where = {
    channel: click.channel,
    user: click.userId,
    ...(click.threadTs ? { thread_ts: click.threadTs } : {}),
  };
  try {
    const who = await deciderFor(rt, click.teamId, click.userId);
    if ('refusal' in who) return await tellClicker(rt, client, where, who.refusal);
    try {
      await handle(who);
    } catch (e) {
      if (!isRefusal(e)) throw e;
      await tellClicker(rt, client, where, await refusalText(rt, e, who.workspaceId, click.approvalId));
    }
  } catch (e) {
    const err = asJobError(e);
    if (job?.failsForGood?.(err)) await tellClicker(rt, client, where, GIVEN_UP);
    throw err;
  }
}

/** Decides from Slack; a refusal goes back to the person ephemerally. */
function decideFromSlack(
  rt: SlackRuntime,
  client: webApi.WebClient,
  click: ReasonContext & { userId: string },
  job: JobContext | undefined,
  decision: Decision,
  reason?: string,
) {
  return handleClick(rt, client, click, job, async (who) => {
    await rt.core.approvals.decide({
      approvalId: click.approvalId,
      workspaceId: who.workspaceId,
      decision,
      decider: who.decider,
      via: 'slack',
      reason,
    });
  });
}

/** The click as Slack describes it: which approval, in which team, channel and thread. */
function clickOf(body: BlockButtonAction, action: { value?: string }): ReasonContext & { userId: string } {
  const threadTs = body.message?.thread_ts as string | undefined;
  return {
    approvalId: action.value ?? '',
    teamId: body.team?.id ?? body.user.team_id ?? '',
    userId: body.user.id,
    channel: body.channel?.id ?? body.container.channel_id,
    ...(threadTs ? { threadTs } : {}),
  };
}

/** Bolt listeners for the card's buttons and the reject-reason modal. */
export function registerApprovalActions(bolt: SlackListeners, rt: SlackRuntime): void {
  bolt.action<BlockButtonAction>({ action_id: APPROVE_ACTION }, async ({ ack, body, action, client, context }) => {
    await ack();
    await decideFromSlack(rt, client, clickOf(body, action), jobOf(context), 'approved');
  });

  // Reject asks why first; the checks run before the modal opens, so a refused person is told at once.
  bolt.action<BlockButtonAction>({ action_id: REJECT_ACTION }, async ({ ack, body, action, client, context }) => {
    await ack();
    const click = clickOf(body, action);
    await handleClick(rt, client, click, jobOf(context), async (who) => {
      const a = await rt.core.approvals.mayDecide({
        approvalId: click.approvalId,
        workspaceId: who.workspaceId,
        decision: 'rejected',
        decider: who.decider,
        via: 'slack',
      });
      const { userId: _user, ...reasonContext } = click;
      await client.views.open({ trigger_id: body.trigger_id, view: reasonModal(a, reasonContext) });
    });
  });

  bolt.view(REASON_VIEW, async ({ ack, body, view, client, context }) => {
    await ack();
    let reasonContext: ReasonContext;
    try {
      reasonContext = JSON.parse(view.private_metadata) as ReasonContext;
    } catch {
      rt.logger.warn({ viewId: view.id }, 'a reject-reason modal came back without its context');
      return;
    }
    const reason = view.state.values[REASON_BLOCK]?.[REASON_INPUT]?.value ?? undefined;
    await decideFromSlack(
      rt,
      client,
      { ...reasonContext, userId: body.user.id },
      jobOf(context),
      'rejected',
      reason ?? undefined,
    );
  });
}
