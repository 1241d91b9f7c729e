import { createRequire } from 'node:module';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { label } from '../core/messaging/rules.ts';
import type { ToolContext } from './context.ts';
import { registerInboxResource } from './resources.ts';
import { registerApprovalTools } from './tools/approvals.ts';
import { guardRequestParams, guardToolCalls } from './tools/call-guard.ts';
import { documentInstructions, registerDocumentTools } from './tools/documents.ts';
import { registerLiveTools } from './tools/live.ts';
import { registerIntakeTools } from './tools/intake.ts';
import { registerMessagingTools } from './tools/messaging.ts';

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
 * One MCP server for one session, built for the caller: its tools depend on the
 * caller's permissions and role when the session opens, and stay fixed for it.
 */
export async function buildMcpServer(ctx: ToolContext): Promise<McpServer> {
  const docs = await documentInstructions(ctx);
  const server = new McpServer(
    { name: 'switchboard', title: 'Switchboard', version },
    {
      instructions: [messagingInstructions(ctx), docs].filter(Boolean).join('\n\n'),
      capabilities: { tools: {}, resources: { subscribe: true } },
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
