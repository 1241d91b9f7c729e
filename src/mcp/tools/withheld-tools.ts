import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';

type RawHandler = (request: unknown, extra: unknown) => Promise<unknown>;

/**
 * Answers calls to `names` (tools this session does not list) with `refuse`,
 * instead of the SDK's bare "Tool … not found", so an agent learns why and
 * whom to ask. McpServer has no hook for unknown tools, so this wraps the
 * tools/call handler it installed; it is the one place that reads the SDK's
 * handler table, and test/mcp/documents-tools.test.ts pins the behaviour so an
 * SDK upgrade that changes it fails loudly. Call it after registering tools.
 * Returns false (and changes nothing) when the SDK's internals are not as expected.
 */
export function refuseWithheldTools(server: McpServer, names: readonly string[], refuse: (name: string) => Promise<CallToolResult>): boolean {
  const table = (server.server as unknown as { _requestHandlers?: Map<string, RawHandler> })._requestHandlers;
  const listed = table?.get('tools/call');
  if (!listed) return false;
  server.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const name = request.params.name;
    if (names.includes(name)) return refuse(name);
    return listed(request, extra) as Promise<CallToolResult>;
  });
  return true;
}
