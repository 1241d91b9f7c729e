import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Logger } from 'pino';
import { isSwitchboardError, type ErrorCode } from '../core/errors.ts';

/** Where a tool result carries the machine-readable side of a refusal (code, limits, counts). */
export const ERROR_META_KEY = 'switchboard/error';

export interface ToolRefusal {
  code: ErrorCode | 'INTERNAL';
  message: string;
  details: Record<string, unknown>;
}

/**
 * The one place where errors become tool results. A SwitchboardError is an
 * expected refusal: its sentence goes to the agent as `isError: true`. Anything
 * else is our fault: it is logged, and the agent gets a sentence, never the raw error.
 */
export function toRefusal(e: unknown, logger: Logger, tool: string): ToolRefusal {
  if (isSwitchboardError(e)) return { code: e.code, message: e.message, details: e.details };
  logger.error({ err: e, tool }, 'MCP tool failed');
  return {
    code: 'INTERNAL',
    message: 'Something went wrong on the Switchboard side and it was logged; try again in a moment.',
    details: {},
  };
}

/** A refusal as an MCP tool result: the sentence as text, the code and details in `_meta`. */
export function refusalResult(r: ToolRefusal): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: r.message }],
    _meta: { [ERROR_META_KEY]: { code: r.code, ...r.details } },
  };
}
