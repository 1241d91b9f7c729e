import { inputRequired, inputResponse, type McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Approval } from '../../core/approvals/approval.ts';
import { notFound } from '../../core/errors.ts';
import { itemLink } from '../../core/previews/links.ts';
import type { RoundState, ToolContext } from '../context.ts';
import { answeredHere, askOwnerHere, isQuestion, questionFor, type AskedHere } from './approval-elicitation.ts';
import { conversationId, surface } from './messaging-schemas.ts';
import { ok, runTool } from './run.ts';

const MAX_TITLE_CHARS = 200;
const MAX_DETAILS_CHARS = 4000;
const MAX_APPROVERS = 20;
/** Longest an approval may wait for a decision when it expires at all: 30 days. */
const MAX_EXPIRES_IN = 30 * 24 * 3600;

const status = z.enum(['pending', 'approved', 'rejected', 'expired', 'cancelled']);
const approvalId = z.string().min(1).max(64).describe('The approval_id request_approval returned');

const requestApprovalInput = {
  title: z
    .string()
    .trim()
    .min(1, 'Give the approval a title: what you want to do, in a few words.')
    .max(MAX_TITLE_CHARS, `The title is longer than ${MAX_TITLE_CHARS} characters; put the rest in \`details\`.`)
    .describe('What you want to do, in a few words (e.g. "Deploy #418 to production")'),
  details: z
    .string()
    .max(MAX_DETAILS_CHARS, `The details are longer than ${MAX_DETAILS_CHARS} characters; link a document instead.`)
    .default('')
    .describe('Markdown: what exactly will happen, and why'),
  conversation: conversationId(
    'Id of a conversation you received a message in (e.g. a Slack thread), to ask there; leave it out to ask the approvers directly',
  ),
  approvers: z
    .array(z.string().min(1).max(80))
    .max(MAX_APPROVERS)
    .optional()
    .describe("Person handles who may decide; by default your owner and the workspace's owners"),
  expires_in: z
    .number()
    .int()
    .min(10)
    .max(MAX_EXPIRES_IN)
    .optional()
    .describe('Seconds until it expires without a decision; by default it never expires'),
  ask_owner_here: z
    .boolean()
    .default(false)
    .describe(
      'true: also ask your owner right here, through your MCP client (elicitation), when the client supports it and your owner may decide; ' +
        'the call then waits for their answer, which settles the approval like a click anywhere else',
    ),
};
const requestApprovalOutput = {
  approval_id: z.string(),
  status,
  approvers: z.array(z.string()).describe('Handles of the people who may decide'),
  conversation_id: z.string().nullable(),
  expires_at: z.string().nullable().describe('ISO 8601, UTC; null when it never expires'),
  asked_here: z.boolean().describe('Whether your owner was asked through your MCP client (ask_owner_here)'),
  url: z
    .string()
    .describe(
      'Its page in Switchboard; posted in Slack or Teams, the link shows the approval, with its buttons for those who may decide',
    ),
};

const approvalIdInput = { approval_id: approvalId };
const getApprovalOutput = {
  approval_id: z.string(),
  title: z.string(),
  status,
  outcome: z.string().describe('The line every view shows, e.g. "Approved by @alice in Slack at 14:02 UTC"'),
  decided_by: z
    .string()
    .nullable()
    .describe('Handle of the person who decided; null while pending, or when it expired or was cancelled'),
  via: surface.nullable().describe('Where the decision was made: mcp, web, or a chat app (slack, teams)'),
  decided_at: z.string().nullable().describe('When it was settled (ISO 8601, UTC)'),
  reason: z.string().nullable().describe('The reason the person gave, if any'),
  expires_at: z.string().nullable(),
  conversation_id: z.string().nullable(),
};
const cancelApprovalOutput = { approval_id: z.string(), status };

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** The key of the owner's answer among a call's input responses. */
const DECISION = 'decision';

/** The approval tools: request_approval, get_approval, cancel_approval. */
export function registerApprovalTools(server: McpServer, ctx: ToolContext): void {
  const { core, agent, workspace: ws } = ctx;

  /** The caller's own approvals; with `monitor`, every approval of the workspace. Anything else looks absent. */
  const visible = async (id: string): Promise<Approval> => {
    const a = await core.approvals.get(ws.id, id);
    if (a.agentId !== agent.id && !ctx.member.permissions.monitor) {
      throw notFound(`The approval ${id}`, 'Use the approval_id that request_approval returned to you.');
    }
    return a;
  };

  server.registerTool(
    'request_approval',
    {
      title: 'Ask for approval',
      description:
        'Ask a person to approve something before you do it. It is shown with Approve and Reject buttons in the Slack thread ' +
        "(or the approvers' Slack DMs), the web chat and the approvers' inboxes. The decision arrives in your inbox (subscribe wakes on it); " +
        'get_approval reads it at any time.',
      inputSchema: z.object(requestApprovalInput),
      outputSchema: z.object(requestApprovalOutput),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    runTool(
      ctx,
      'request_approval',
      async (args, extra) => {
        // A later round of a call that asked the owner in its own rounds (a 2026-07-28 client): the approval exists.
        const round = extra.mcpReq.requestState<RoundState>();
        let requested: Approval;
        let here: AskedHere | null = null;
        if (round) {
          requested = await visible(round.approval);
          here = await answeredHere(ctx, requested, inputResponse(extra.mcpReq.inputResponses, DECISION));
        } else {
          requested = await core.approvals.request(agent, ws, {
            title: args.title,
            details: args.details,
            conversationId: args.conversation,
            approvers: args.approvers,
            expiresInSeconds: args.expires_in,
          });
          // Stored and shown everywhere first; asking here is one more view of it.
          if (args.ask_owner_here && ctx.era === 'modern' && ctx.rounds) {
            const question = await questionFor(ctx, server.server, requested, extra);
            if (!isQuestion(question)) here = question;
            else
              return inputRequired({
                inputRequests: { [DECISION]: inputRequired.elicit(question.params) },
                requestState: await ctx.rounds.mint({ approval: requested.id }, extra),
              });
          } else if (args.ask_owner_here) here = await askOwnerHere(ctx, server.server, requested, extra);
        }
        const a = here?.approval ?? requested;
        const approvers = await core.approvals.approverHandles(a);
        const out = {
          approval_id: a.id,
          status: a.status,
          approvers,
          conversation_id: a.conversationId,
          expires_at: iso(a.expiresAt),
          asked_here: here?.asked ?? false,
          url: itemLink(core.config.publicUrl, ws, 'approval', a.id),
        };
        const note = here ? `${here.note} ` : '';
        if (a.status !== 'pending')
          return ok(out, `${note}Approval ${a.id} “${a.title}”: ${await core.approvals.outcome(a)}.`);
        const expiry = a.expiresAt ? ` It expires at ${a.expiresAt.toISOString()}.` : '';
        return ok(
          out,
          `${note}Approval ${a.id} is pending; ${approvers.map((h) => `@${h}`).join(', ') || 'nobody'} may decide it.${expiry} ` +
            'The decision will arrive in your inbox; call subscribe to wait for it, or get_approval to look.',
        );
      },
      (args) => args.title,
    ),
  );

  server.registerTool(
    'get_approval',
    {
      title: 'Read an approval',
      description:
        'The status of an approval you asked for: pending, approved, rejected, expired or cancelled; who decided, where, when, and their reason.',
      inputSchema: z.object(approvalIdInput),
      outputSchema: z.object(getApprovalOutput),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    runTool(ctx, 'get_approval', async (args) => {
      const a = await visible(args.approval_id);
      const outcome = await core.approvals.outcome(a);
      const out = {
        approval_id: a.id,
        title: a.title,
        status: a.status,
        outcome,
        decided_by: await core.approvals.deciderHandle(a),
        via: a.decidedVia,
        decided_at: iso(a.decidedAt),
        reason: a.reason,
        expires_at: iso(a.expiresAt),
        conversation_id: a.conversationId,
      };
      return ok(out, `Approval ${a.id} “${a.title}”: ${outcome}.`);
    }),
  );

  server.registerTool(
    'cancel_approval',
    {
      title: 'Cancel an approval',
      description:
        'Withdraw a pending approval you asked for (e.g. you no longer need to do it). Every view then shows it as cancelled.',
      inputSchema: z.object(approvalIdInput),
      outputSchema: z.object(cancelApprovalOutput),
      // Cannot be undone; a second cancel is refused and changes nothing.
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    },
    runTool(
      ctx,
      'cancel_approval',
      async (args) => {
        const a = await core.approvals.cancel(agent, ws.id, (await visible(args.approval_id)).id);
        return ok({ approval_id: a.id, status: a.status }, `Approval ${a.id} “${a.title}” is cancelled.`);
      },
      (args) => args.approval_id,
    ),
  );
}
