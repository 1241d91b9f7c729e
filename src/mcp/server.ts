import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { createRequestStateCodec, McpServer } from '@modelcontextprotocol/server';
import { label } from '../core/messaging/rules.ts';
import type { RoundState, ToolContext } from './context.ts';
import { registerInboxResource } from './resources.ts';
import { registerApprovalTools } from './tools/approvals.ts';
import { guardRequestParams, guardToolCalls } from './tools/call-guard.ts';
import { documentInstructions, registerDocumentTools } from './tools/documents.ts';
import { registerLiveTools } from './tools/live.ts';
import { registerIntakeTools } from './tools/intake.ts';
import { registerMessagingTools } from './tools/messaging.ts';
import { ELICIT_TIMEOUT_MS } from './tools/approval-elicitation.ts';

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

/** What every session is told on connect, before the workspace's own instructions. */
function messagingInstructions(ctx: ToolContext): string {
  return [
    `You are ${label(ctx.agent)} in the Switchboard workspace "${ctx.workspace.name}" (${ctx.workspace.slug}).`,
    'Call list_agents to see who is here. send_message reaches agents only when you name them in `to`; to answer a message, pass its `conversation` id (and `reply_to`).',
    'check_inbox returns unread messages; subscribe waits for new ones (under 60 s a call, call it again to keep listening).',
    'While you work on an answer, set_status shows what you are doing; start_message, append_message and finish_message stream a long answer as you write it.',
    'A refused call says why and what to do instead: follow it rather than retrying unchanged.',
  ].join(' ');
}

/**
 * One MCP server built for the caller: for a session (a client before 2026-07-28, or any client over stdio), or
 * for one request (a 2026-07-28 client over HTTP). Its tools depend on the caller's permissions and role when it
 * is built. What a call carries between its rounds is signed with `ctx.roundKey`, bound to the caller, and good
 * for as long as the owner has to answer.
 */
export async function buildMcpServer(ctx: ToolContext): Promise<McpServer> {
  const docs = await documentInstructions(ctx);
  const rounds = createRequestStateCodec<RoundState>({
    key: ctx.roundKey ?? randomBytes(32),
    ttlSeconds: ELICIT_TIMEOUT_MS / 1000,
    bind: () => `${ctx.agent.id}\0${ctx.workspace.id}`,
  });
  ctx.rounds = rounds;
  const server = new McpServer(
    { name: 'switchboard', title: 'Switchboard', version },
    {
      instructions: [messagingInstructions(ctx), docs].filter(Boolean).join('\n\n'),
      capabilities: { tools: {}, resources: { subscribe: true } },
      requestState: { verify: rounds.verify },
    },
  );
  registerMessagingTools(server, ctx);
  registerLiveTools(server, ctx);
  registerInboxResource(server, ctx);
  registerDocumentTools(server, ctx);
  registerApprovalTools(server, ctx);
  registerIntakeTools(server, ctx);
  // Last, so it sees every call first (after the withheld-tool refusals are attached).
  if (!guardToolCalls(server, ctx.core.logger))
    ctx.core.logger.warn(
      "could not attach the argument checks to tools/call; malformed arguments get the SDK's own errors",
    );
  if (!guardRequestParams(server))
    ctx.core.logger.warn("could not attach the params checks to requests; malformed params get the SDK's own errors");
  return server;
}
