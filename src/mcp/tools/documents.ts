import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolContext } from '../context.ts';

/** Registers the document tools the caller's role allows (filled in by the documents issue). */
export function registerDocumentTools(_server: McpServer, _ctx: ToolContext): void {}

/** Collection or workspace instructions sent as the server's instructions on connect. */
export async function documentInstructions(_ctx: ToolContext): Promise<string> {
  return '';
}
