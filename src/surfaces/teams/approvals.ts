// Approvals in Teams. `teams.approval.show` posts the card where it belongs
// (the Teams reply chain it was asked in, else each approver's personal chat
// with the bot) and records each view; `teams.approval.update` rewrites every
// view with updateActivity once the approval settles, wherever that happened.
// Each card is posted through the post record (post-once.ts), so a retry does
// not post it twice once Teams' activity id is stored.
// A click (Action.Execute, or the Action.Submit fallback) decides through the
// domain, as the linked person, and is answered with the updated card.
import type { TurnContext } from 'botbuilder';
import { z } from 'zod';
import { refusalToDecide } from '../../core/approvals/rules.ts';
import type { Approval, Decision } from '../../core/approvals/approval.ts';
import { isDeliveryError, jobErrorFor } from '../../core/delivery/failure.ts';
import { isSwitchboardError, notFound, PermanentFailure } from '../../core/errors.ts';
import type { JobHandler } from '../../core/ports.ts';
import { addressFromRef, type TeamsAddress } from './thread-id.ts';
import { approvalCard } from './approval-card.ts';
import { adaptiveCard, cardActivity, type Card } from './cards.ts';
import { updateActivity } from './connector.ts';
import { addressOf } from './inbound.ts';
import { loggable } from './errors.ts';
import { TEAMS } from './topics.ts';
import { postOnce } from './post-once.ts';
import { workspaceOfTenant, type TeamsRuntime } from './runtime.ts';

const Job = z.object({ approvalId: z.string().uuid(), workspaceId: z.string().uuid() });
export const ApprovalAction = z.object({ approvalId: z.string().uuid(), workspaceId: z.string().uuid() });

/** A job's payload, or a permanent failure: retrying a malformed job cannot help. */
function parseJob(raw: unknown) {
  const parsed = Job.safeParse(raw);
  if (!parsed.success)
    throw new PermanentFailure(
      `The Teams approval job is malformed (${parsed.error.issues[0]?.message}); it cannot be run.`,
    );
  return parsed.data;
}

const DECISIONS: Record<string, Decision> = { approve: 'approved', reject: 'rejected' };

/** The card for an approval as it stands; `viewer` (a person id, or null for a guest) makes it that person's view. */
async function renderCard(
  rt: TeamsRuntime,
  a: Approval,
  tenant: string,
  opts: { viewer?: string | null; notice?: string } = {},
): Promise<Card> {
  const { approvals, orgs } = rt.core;
  const agent = await approvals.askingAgent(a);
  if (!agent) throw notFound(`The agent that asked for approval ${a.id}`, 'It was deleted; the card cannot be drawn.');
  const approvers = await approvals.approversOf(a);
  const users = a.status === 'pending' ? await rt.users.ofPeople(tenant, approvers) : [];
  let buttons = a.status === 'pending';
  if (buttons && opts.viewer !== undefined) {
    const role = opts.viewer ? await orgs.roleIn(opts.viewer, await orgs.workspace(a.workspaceId)) : null;
    buttons =
      refusalToDecide(a, { personId: opts.viewer, role }, agent.ownerId, await approvals.guestAsker(a)) === null;
  }
  return approvalCard({
    approval: a,
    agent,
    outcome: await approvals.outcome(a),
    buttons,
    notice: opts.notice,
    approverUserIds: users.map((u) => u.userId),
  });
}

/** Where an approval shows in Teams: its reply chain (a bridged web conversation's, too), else the approvers' personal chats. */
async function placesFor(rt: TeamsRuntime, a: Approval): Promise<TeamsAddress[]> {
  const conversation = await rt.core.approvals.conversationOf(a);
  const bridged = conversation && (await rt.core.bridges.placeOn(TEAMS.surface, conversation));
  if (conversation?.surface === TEAMS.surface || bridged) {
    const address = addressFromRef(bridged ?? conversation?.externalRef ?? null);
    return address ? [address] : [];
  }
  const approvers = await rt.core.approvals.approversOf(a);
  const places: TeamsAddress[] = [];
  for (const tenant of await rt.core.tenants.tenantsOf(TEAMS.surface, a.workspaceId)) {
    for (const u of await rt.users.ofPeople(tenant, approvers)) {
      if (!u.personalConversationId) continue;
      const reference = await rt.references.get(u.personalConversationId);
      const serviceUrl = typeof reference?.serviceUrl === 'string' ? reference.serviceUrl : null;
      if (serviceUrl) places.push({ tenant, conversation: u.personalConversationId, type: 'personal', serviceUrl });
    }
  }
  return places;
}

export function approvalShowHandler(rt: TeamsRuntime): JobHandler {
  return async (raw, ctx) => {
    const job = parseJob(raw);
    const a = await rt.core.approvals.find(job.workspaceId, job.approvalId);
    if (!a) return;
    const shown = new Set((await rt.core.approvals.views(a.id, TEAMS.surface)).map((v) => v.ref.conversation));
    for (const place of await placesFor(rt, a)) {
      // Shown there already: a retry after a later place failed.
      if (shown.has(place.conversation)) continue;
      const card = await renderCard(rt, a, place.tenant);
      let activity: string;
      try {
        // Through the post record: a retry after the card was posted (and before its view was stored) does not post it again.
        activity = await postOnce(
          rt,
          `approval:${a.id}:${place.conversation}`,
          place,
          cardActivity(card, `Approval requested: ${a.title}`),
          ctx.signal,
        );
      } catch (e) {
        if (!isDeliveryError(e)) throw e;
        if (e.failure.kind === 'permanent') {
          rt.logger.warn(
            { approvalId: a.id, reason: e.failure.reason },
            'could not show an approval in a Teams conversation',
          );
          continue;
        }
        throw jobErrorFor(e.failure);
      }
      await rt.core.approvals.addView({
        approvalId: a.id,
        surface: TEAMS.surface,
        ref: {
          tenant: place.tenant,
          conversation: place.conversation,
          type: place.type,
          serviceUrl: place.serviceUrl,
          activity,
        },
      });
    }
  };
}

export function approvalUpdateHandler(rt: TeamsRuntime): JobHandler {
  return async (raw) => {
    const job = parseJob(raw);
    const a = await rt.core.approvals.find(job.workspaceId, job.approvalId);
    if (!a) return;
    let retry: Error | null = null;
    for (const view of await rt.core.approvals.views(a.id, TEAMS.surface)) {
      const place = addressFromRef(view.ref);
      if (!place || !view.ref.activity) continue;
      try {
        await updateActivity(
          rt,
          place,
          view.ref.activity,
          cardActivity(await renderCard(rt, a, place.tenant), `Approval: ${a.title}`),
        );
      } catch (e) {
        if (!isDeliveryError(e)) throw e;
        const error = jobErrorFor(e.failure);
        // A card deleted or a chat left is not worth retrying; the other views are still updated.
        if (e.failure.kind === 'permanent')
          rt.logger.warn({ approvalId: a.id, reason: e.failure.reason }, 'could not update a Teams approval card');
        else retry ??= error;
      }
    }
    // Updating again is harmless, so a retry redoes every view.
    if (retry) throw retry;
  };
}

/** How an unlinked person gets linked in Teams, said when they click an approval button. */
const LINK_FIRST = 'Use the link card Switchboard sent you in your personal chat, or write "link" there for a new one.';

/**
 * A click on an approval card (or Teams refreshing it): decides as the linked
 * person when the verb is approve or reject, and returns the card as that
 * person should now see it, with the refusal or late-click sentence if any.
 */
export async function approvalAction(
  rt: TeamsRuntime,
  context: TurnContext,
  verb: string,
  raw: unknown,
): Promise<{ card: Card; notice?: string }> {
  const parsed = ApprovalAction.safeParse(raw);
  const address = addressOf(context.activity);
  const plain = (text: string) => ({ card: adaptiveCard([{ type: 'TextBlock', text, wrap: true }]), notice: text });
  if (!parsed.success || !address) return plain('This card does not name an approval Switchboard knows.');
  const ws = await workspaceOfTenant(rt, address.tenant);
  if (!ws || ws.id !== parsed.data.workspaceId)
    return plain('This approval belongs to a Switchboard workspace this Teams organization is not connected to.');
  const approval = await rt.core.approvals.find(ws.id, parsed.data.approvalId);
  if (!approval) return plain('This approval no longer exists in Switchboard.');
  const from = context.activity.from;
  const identity = await rt.core.identities.find({
    surface: TEAMS.surface,
    tenantId: address.tenant,
    externalUserId: from.aadObjectId ?? from.id,
  });
  const personId = identity?.personId ?? null;
  let notice: string | undefined;
  const decision = DECISIONS[verb];
  if (decision) {
    try {
      const role = personId ? await rt.core.orgs.roleIn(personId, ws) : null;
      await rt.core.approvals.decide({
        approvalId: approval.id,
        workspaceId: ws.id,
        decision,
        decider: { personId, role, identityId: identity?.id ?? null },
        via: TEAMS.surface,
      });
    } catch (e) {
      if (!isSwitchboardError(e)) throw e;
      notice = e.details.rule === 'not_linked' ? e.withHint(LINK_FIRST).message : e.message;
    }
  }
  const now = await rt.core.approvals.get(ws.id, approval.id);
  try {
    return { card: await renderCard(rt, now, address.tenant, { viewer: personId, notice }), notice };
  } catch (err) {
    rt.logger.error({ err: loggable(err), approvalId: approval.id }, 'could not render a Teams approval card');
    return plain(notice ?? 'Switchboard recorded your answer but could not draw the card; it will update shortly.');
  }
}
