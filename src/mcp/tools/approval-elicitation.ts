import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type ElicitRequestFormParams,
  type InputResponseView,
  type Server,
} from '@modelcontextprotocol/server';
import { approvalTopic } from '../../core/approvals/approval-service.ts';
import { refusalToDecide } from '../../core/approvals/rules.ts';
import type { Approval } from '../../core/approvals/approval.ts';
import { isSwitchboardError } from '../../core/errors.ts';
import type { WorkspaceRole } from '../../core/entities.ts';
import { label } from '../../core/messaging/rules.ts';
import type { ToolContext } from '../context.ts';
import type { Extra } from './run.ts';

/** How long the owner has to answer in the client; the approval stays pending elsewhere after that. */
export const ELICIT_TIMEOUT_MS = 10 * 60_000;
const MAX_REASON = 500;
const STAYS = 'it stays pending for the approvers on the other surfaces';

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

/** The owner as the decider of an approval, with their role in the workspace now. */
interface Decider {
  personId: string;
  role: WorkspaceRole | null;
}

/** The owner can be asked: the question, and who answers it. */
interface Question {
  params: ElicitRequestFormParams;
  decider: Decider;
}

/**
 * What the client declared it can do: per request for a 2026-07-28 client (its request's `_meta`), from the
 * handshake for an earlier one.
 */
function clientCapabilities(server: Server, extra: Extra): ClientCapabilities | undefined {
  const declared = extra.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY as keyof typeof extra.mcpReq.envelope];
  return (declared as ClientCapabilities | undefined) ?? server.getClientCapabilities();
}

/** A bare `elicitation: {}` declaration means form elicitation (what it meant before modes existed). */
const asksForms = (caps: ClientCapabilities | undefined) =>
  Boolean(caps?.elicitation && (caps.elicitation.form || !caps.elicitation.url));

/**
 * Whether the owner can be asked through the MCP client to decide this approval, and the form that asks them;
 * or, when they cannot (the client has no form elicitation, or the owner may not decide it), what the agent is told.
 * The person at the client is taken to be the agent's owner: it is the owner's agent token, and a client shows an
 * elicitation to its user, not to the model.
 */
export async function questionFor(
  ctx: ToolContext,
  server: Server,
  a: Approval,
  extra: Extra,
): Promise<Question | AskedHere> {
  const { core, agent } = ctx;
  if (!asksForms(clientCapabilities(server, extra))) {
    return {
      asked: false,
      approval: a,
      note: `Your MCP client does not support elicitation, so your owner was not asked here; ${STAYS}.`,
    };
  }
  const decider = await ownerAsDecider(ctx);
  const refusal = refusalToDecide(a, decider, agent.ownerId, await core.approvals.guestAsker(a));
  if (refusal)
    return {
      asked: false,
      approval: a,
      note: `Your owner was not asked here, since they may not decide it (${refusal}); ${STAYS}.`,
    };
  const details = a.details.trim() ? `\n\n${a.details.trim()}` : '';
  return {
    decider,
    params: {
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
  };
}

export const isQuestion = (q: Question | AskedHere): q is Question => 'params' in q;

async function ownerAsDecider({ core, agent, workspace }: ToolContext): Promise<Decider> {
  return { personId: agent.ownerId, role: await core.orgs.roleIn(agent.ownerId, workspace) };
}

/** Someone decided elsewhere while the owner was asked here: that decision is what the agent hears. */
const settledElsewhere = async ({ core }: ToolContext, now: Approval): Promise<AskedHere> => ({
  asked: true,
  approval: now,
  note: `It was settled elsewhere while your owner was asked here: ${await core.approvals.outcome(now)}.`,
});

/**
 * Settles the approval with the owner's answer through ApprovalService.decide, like a click (via `mcp`), so the
 * first decision anywhere wins; an answer that is not a decision leaves it pending, and one that comes after a
 * decision elsewhere reports that decision.
 */
export async function answeredHere(ctx: ToolContext, a: Approval, answer: InputResponseView): Promise<AskedHere> {
  const { core, workspace: ws } = ctx;
  const now = await core.approvals.get(ws.id, a.id);
  if (now.status !== 'pending') return settledElsewhere(ctx, now);
  const decision = answer.kind === 'elicit' && answer.action === 'accept' ? answer.content?.decision : undefined;
  if (decision !== 'approve' && decision !== 'reject') {
    const why = answer.kind === 'elicit' ? answer.action : 'no answer';
    return { asked: true, approval: now, note: `Your owner did not decide here (${why}); ${STAYS}.` };
  }
  const given = answer.kind === 'elicit' ? answer.content?.reason : undefined;
  try {
    const settled = await core.approvals.decide({
      approvalId: a.id,
      workspaceId: ws.id,
      decision: decision === 'approve' ? 'approved' : 'rejected',
      decider: await ownerAsDecider(ctx),
      via: 'mcp',
      reason: typeof given === 'string' ? given.slice(0, MAX_REASON) : undefined,
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
}

/**
 * Asks the agent's owner through the MCP client (elicitation/create, on the connection of a client that speaks a
 * revision before 2026-07-28) to decide an approval that is already stored and shown on every other surface.
 * A decision elsewhere withdraws the question. (A 2026-07-28 client is asked in the call's own rounds instead:
 * see tools/approvals.ts.)
 */
export async function askOwnerHere(ctx: ToolContext, server: Server, a: Approval, extra: Extra): Promise<AskedHere> {
  const { core, workspace: ws } = ctx;
  const question = await questionFor(ctx, server, a, extra);
  if (!isQuestion(question)) return question;

  const withdrawn = new AbortController();
  const abortOuter = () => withdrawn.abort();
  extra.mcpReq.signal.addEventListener('abort', abortOuter, { once: true });
  const unsubscribe = await core.notifier.subscribe(approvalTopic(a.id), () => {
    void core.approvals.get(ws.id, a.id).then(
      (now) => {
        if (now.status !== 'pending') withdrawn.abort();
      },
      () => {},
    );
  });
  try {
    const answer = await extra.mcpReq.elicitInput(question.params, {
      signal: withdrawn.signal,
      timeout: ELICIT_TIMEOUT_MS,
    });
    return await answeredHere(ctx, a, { kind: 'elicit', action: answer.action, content: answer.content });
  } catch (e) {
    const now = await core.approvals.get(ws.id, a.id);
    if (now.status !== 'pending') return settledElsewhere(ctx, now);
    core.logger.debug({ err: e, approvalId: a.id }, 'elicitation for an approval ended without an answer');
    return { asked: true, approval: now, note: `Your owner did not answer here (${(e as Error).message}); ${STAYS}.` };
  } finally {
    extra.mcpReq.signal.removeEventListener('abort', abortOuter);
    await unsubscribe();
  }
}
