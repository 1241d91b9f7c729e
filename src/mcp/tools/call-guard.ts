import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { invalidInput } from '../../core/errors.ts';
import type { Logger } from 'pino';
import { refusalResult, toRefusal } from '../errors.ts';
import { wrapToolCalls } from './raw-tool-call.ts';

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const kindOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : `a ${typeof v}`);

/** Where the first NUL character sits in a tool's arguments (a key or a string value), as a path like `to[1]`; null when there is none. */
export function nulPath(value: unknown, path = ''): string | null {
  if (typeof value === 'string') return value.includes('\0') ? path || 'an argument' : null;
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) {
      const found = nulPath(v, `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (isPlainObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      const at = path ? `${path}.${k}` : k;
      if (k.includes('\0')) return at;
      const found = nulPath(v, at);
      if (found) return found;
    }
  }
  return null;
}

/**
 * Checks what every tool call carries before the SDK parses it. Arguments that
 * are not an object are a protocol mistake (-32602 with a sentence, where the
 * SDK would answer -32603); a NUL character anywhere is a tool error naming the
 * argument, since PostgreSQL cannot store it and it would otherwise surface as INTERNAL.
 */
export function guardToolCalls(server: McpServer, logger: Logger): boolean {
  return wrapToolCalls(server, async (request, extra, next) => {
    const params = request.params;
    if (params && 'arguments' in params && params.arguments !== undefined && !isPlainObject(params.arguments)) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `The tool's \`arguments\` must be a JSON object of named arguments (e.g. {"body": "hello"}), not ${kindOf(params.arguments)}; ` +
          'send {} for a tool that takes none.',
      );
    }
    const at = nulPath(params?.arguments);
    if (at) {
      const e = invalidInput(
        `\`${at}\` contains a NUL character (\\u0000), which Switchboard cannot store; remove it and call ${String(params?.name ?? 'the tool')} again.`,
        { argument: at },
      );
      return refusalResult(toRefusal(e, logger, String(params?.name)));
    }
    return next(request, extra);
  });
}
