import type { McpServer } from '@modelcontextprotocol/server';

/** A JSON-RPC request as it reaches the SDK's handler table: not yet checked against any schema. */
export interface RawToolCall {
  params?: { name?: unknown; arguments?: unknown };
}
export type RawHandler = (request: RawToolCall, extra: unknown) => Promise<unknown>;

/**
 * Puts `wrap` in front of the `tools/call` handler McpServer installed, seeing
 * the request before the SDK parses it (so a malformed call can be answered
 * with a sentence instead of the SDK's generic error). McpServer has no hook for
 * this, so it is the one place that reads the SDK's handler table;
 * test/mcp/hostile-input.test.ts and documents-tools.test.ts pin the behaviour,
 * so an SDK upgrade that changes it fails loudly. Call it after registering tools.
 * Returns false (and changes nothing) when the SDK's internals are not as expected.
 */
export function wrapToolCalls(
  server: McpServer,
  wrap: (request: RawToolCall, extra: unknown, next: RawHandler) => Promise<unknown>,
): boolean {
  const table = (server.server as unknown as { _requestHandlers?: Map<string, RawHandler> })._requestHandlers;
  const next = table?.get('tools/call');
  if (!table || !next) return false;
  table.set('tools/call', (request, extra) => wrap(request, extra, next));
  return true;
}

/**
 * Puts `wrap` in front of every request handler installed so far (every method the session answers), the same
 * way wrapToolCalls does for tools/call. Returns false (and changes nothing) when the SDK's internals are not as
 * expected.
 */
export function wrapEveryRequest(
  server: McpServer,
  wrap: (method: string, request: unknown, extra: unknown, next: RawHandler) => Promise<unknown>,
): boolean {
  const table = (server.server as unknown as { _requestHandlers?: Map<string, RawHandler> })._requestHandlers;
  if (!table) return false;
  for (const [method, next] of table) table.set(method, (request, extra) => wrap(method, request, extra, next));
  return true;
}
