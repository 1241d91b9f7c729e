import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { approvalTopic } from '../../core/approvals/approval-service.ts';
import { refusalToDecide } from '../../core/approvals/rules.ts';
import type { Approval } from '../../core/approvals/approval.ts';
import { isSwitchboardError } from '../../core/errors.ts';
import { label } from '../../core/messaging/rules.ts';
import type { ToolContext } from '../context.ts';
import type { Extra } from './run.ts';

/** How long the owner has to answer in the client; the approval stays pending elsewhere after that. */
const ELICIT_TIMEOUT_MS = 10 * 60_000;
const MAX_REASON = 500;

/** "here, Slack, Teams or the web": where else the approval is shown, by the labels the configured chat surfaces registered. */
function everywhere({ core }: ToolContext): string {
  const places = ['here', ...core.approvals.shownIn(), 'the web'];
  return `${places.slice(0, -1).join(', ')} or ${places.at(-1)}`;
}

export interface AskedHere {
  /** Whether the question reached the client's user. */
  asked: boolean;
  /** The approval as it stands afterwards (settled when the owner answered, or someone else did meanwhile). */
  approval: Approval;
  /** One sentence for the agent on what happened here. */
  note: string;
}

/**
 * Asks the agent's owner through the MCP client (elicitation/create) to decide
 * an approval that is already stored and shown on every other surface. The
 * person at the client is taken to be the agent's owner: it is the owner's
 * agent token, and a client shows an elicitation to its user, not to the model.
 * The answer goes through ApprovalService.decide like a click (via `mcp`), so
 * the first decision anywhere wins; a decision elsewhere withdraws the question.
 */
export async function askOwnerHere(ctx: ToolContext, server: Server, a: Approval, extra: Extra): Promise<AskedHere> {
  const { core, agent, workspace: ws } = ctx;
  const stays = 'it stays pending for the approvers on the other surfaces';
  if (!server.getClientCapabilities()?.elicitation?.form) {
    return {
      asked: false,
      approval: a,
      note: `Your MCP client does not support elicitation, so your owner was not asked here; ${stays}.`,
    };
  }
  const decider = { personId: agent.ownerId, role: await core.orgs.roleIn(agent.ownerId, ws) };
  const refusal = refusalToDecide(a, decider, agent.ownerId, await core.approvals.guestAsker(a));
  if (refusal)
    return {
      asked: false,
      approval: a,
      note: `Your owner was not asked here, since they may not decide it (${refusal}); ${stays}.`,
    };

  const withdrawn = new AbortController();
  const abortOuter = () => withdrawn.abort();
  extra.signal.addEventListener('abort', abortOuter, { once: true });
  const unsubscribe = await core.notifier.subscribe(approvalTopic(a.id), () => {
    void core.approvals.get(ws.id, a.id).then(
      (now) => {
        if (now.status !== 'pending') withdrawn.abort();
      },
      () => {},
    );
  });
  try {
    const details = a.details.trim() ? `\n\n${a.details.trim()}` : '';
    const answer = await server.elicitInput(
      {
        mode: 'form',
        message: `${label(agent)} asks for your approval: “${a.title}”${details}\n\nApprove or reject it here; the first decision anywhere (${everywhere(ctx)}) settles it.`,
        requestedSchema: {
          type: 'object',
          properties: {
            decision: {
              type: 'string',
              title: 'Decision',
              enum: ['approve', 'reject'],
              enumNames: ['Approve', 'Reject'],
              description: 'Approve lets the agent go ahead; reject stops it',
            },
            reason: {
              type: 'string',
              title: 'Reason',
              description: 'Optional: why, shown to the agent and on every view',
              maxLength: MAX_REASON,
            },
          },
          required: ['decision'],
        },
      },
      { relatedRequestId: extra.requestId, signal: withdrawn.signal, timeout: ELICIT_TIMEOUT_MS },
    );
    if (answer.action !== 'accept' || !answer.content) {
      return {
        asked: true,
        approval: await core.approvals.get(ws.id, a.id),
        note: `Your owner did not decide here (${answer.action}); ${stays}.`,
      };
    }
    const decision = answer.content.decision === 'approve' ? 'approved' : 'rejected';
    const reason = typeof answer.content.reason === 'string' ? answer.content.reason.slice(0, MAX_REASON) : undefined;
    try {
      const settled = await core.approvals.decide({
        approvalId: a.id,
        workspaceId: ws.id,
        decision,
        decider,
        via: 'mcp',
        reason,
      });
      return {
        asked: true,
        approval: settled,
        note: `Your owner decided here: ${await core.approvals.outcome(settled)}.`,
      };
    } catch (e) {
      if (!isSwitchboardError(e)) throw e;
      return {
        asked: true,
        approval: await core.approvals.get(ws.id, a.id),
        note: `Your owner's answer here changed nothing: ${e.message}`,
      };
    }
  } catch (e) {
    const now = await core.approvals.get(ws.id, a.id);
    if (now.status !== 'pending')
      return {
        asked: true,
        approval: now,
        note: `It was settled elsewhere while your owner was asked here: ${await core.approvals.outcome(now)}.`,
      };
    core.logger.debug({ err: e, approvalId: a.id }, 'elicitation for an approval ended without an answer');
    return { asked: true, approval: now, note: `Your owner did not answer here (${(e as Error).message}); ${stays}.` };
  } finally {
    extra.signal.removeEventListener('abort', abortOuter);
    await unsubscribe();
  }
}
