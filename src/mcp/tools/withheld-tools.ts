import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { wrapToolCalls } from './raw-tool-call.ts';

/**
 * Answers calls to `names` (tools this session does not list) with `refuse`,
 * instead of the SDK's bare "Tool … not found", so an agent learns why and
 * whom to ask. Call it after registering tools; false when it could not attach.
 */
export function refuseWithheldTools(server: McpServer, names: readonly string[], refuse: (name: string) => Promise<CallToolResult>): boolean {
  return wrapToolCalls(server, (request, extra, next) => {
    const name = request.params?.name;
    return typeof name === 'string' && names.includes(name) ? refuse(name) : next(request, extra);
  });
}
