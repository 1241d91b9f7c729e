import type { CallToolResult, InputRequiredResult, ServerContext } from '@modelcontextprotocol/server';
import type { AuditEntry } from '../../core/ports.ts';
import type { ToolContext } from '../context.ts';
import { refusalResult, toRefusal } from '../errors.ts';
import { tokenRotated } from '../revocation.ts';

/** What the SDK hands a tool handler besides its arguments: the request's id, signal, era and input responses. */
export type Extra = ServerContext;

/** What a tool that changes something records in the audit trail. */
export type AuditFacts = Pick<AuditEntry, 'target' | 'result' | 'details' | 'onBehalfOf'>;

/** A successful tool result: the structured content and a short text rendering of it. */
export function ok(structured: Record<string, unknown>, text: string): CallToolResult {
  return { structuredContent: structured, content: [{ type: 'text', text }] };
}

/** Records one audit entry for the caller; a failure to record is logged, never turned into a refusal. */
export async function recordAudit(ctx: ToolContext, action: string, facts: AuditFacts): Promise<void> {
  try {
    await ctx.core.agents.recordAudit({
      workspaceId: ctx.workspace.id,
      agentId: ctx.agent.id,
      onBehalfOf: facts.onBehalfOf ?? null,
      action,
      target: facts.target ?? null,
      result: facts.result,
      details: facts.details,
    });
  } catch (err) {
    ctx.core.logger.error({ err, action, agentId: ctx.agent.id }, 'could not record an audit entry');
  }
}

/**
 * Wraps a tool handler: any error becomes a refusal result (translated in one
 * place, src/mcp/errors.ts). For a tool that changes something, `auditTarget`
 * names what it acted on so refusals are audited too; the handler audits its successes.
 */
export function runTool<A>(
  ctx: ToolContext,
  name: string,
  handler: (args: A, extra: Extra) => Promise<CallToolResult | InputRequiredResult>,
  auditTarget?: (args: A) => string | null,
): (args: A, extra: Extra) => Promise<CallToolResult | InputRequiredResult> {
  return async (args, extra) => {
    try {
      if (ctx.checkEachCall && ctx.stillAuthorized && !(await ctx.stillAuthorized())) throw tokenRotated();
      return await handler(args, extra);
    } catch (e) {
      const refusal = toRefusal(e, ctx.core.logger, name);
      if (auditTarget) {
        await recordAudit(ctx, name, {
          target: auditTarget(args),
          result: refusal.code === 'INTERNAL' ? 'failed' : `refused: ${refusal.code}`,
          details: { reason: refusal.message },
          onBehalfOf: ctx.agent.ownerId,
        });
      }
      return refusalResult(refusal);
    }
  };
}
