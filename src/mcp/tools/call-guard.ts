import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { invalidInput } from '../../core/errors.ts';
import { findUnstorable } from '../../core/safe-text.ts';
import type { Logger } from 'pino';
import { refusalResult, toRefusal } from '../errors.ts';
import { wrapToolCalls } from './raw-tool-call.ts';

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const kindOf = (v: unknown) =>
  v === undefined ? 'missing' : v === null ? 'null' : Array.isArray(v) ? 'an array' : `a ${typeof v}`;

/**
 * Checks what every tool call carries before the SDK parses it. Arguments that
 * are not an object are a protocol mistake (-32602 with a sentence, where the
 * SDK would answer -32603), and so are missing `params` and a `name` that is not a
 * string; a NUL character or a lone surrogate anywhere is a tool error naming the
 * argument, since PostgreSQL cannot store it and it would otherwise surface as INTERNAL.
 */
export function guardToolCalls(server: McpServer, logger: Logger): boolean {
  return wrapToolCalls(server, async (request, extra, next) => {
    const params = request.params;
    if (!isPlainObject(params)) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `tools/call needs \`params\`: an object with the tool's \`name\` and its \`arguments\` (e.g. {"name": "check_inbox", "arguments": {}}); it is ${kindOf(params)}.`,
      );
    }
    if (typeof params.name !== 'string' || params.name === '') {
      throw new McpError(
        ErrorCode.InvalidParams,
        `tools/call needs \`params.name\`: the tool's name as a string (tools/list names them); it is ${kindOf(params.name)}.`,
      );
    }
    if ('arguments' in params && params.arguments !== undefined && !isPlainObject(params.arguments)) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `The tool's \`arguments\` must be a JSON object of named arguments (e.g. {"body": "hello"}), not ${kindOf(params.arguments)}; ` +
          'send {} for a tool that takes none.',
      );
    }
    const found = findUnstorable(params?.arguments);
    if (found) {
      const tool = params.name;
      const e = invalidInput(
        found.what === 'nul'
          ? `\`${found.where}\` contains a NUL character (\\u0000), which Switchboard cannot store; remove it and call ${tool} again.`
          : `\`${found.where}\` contains a lone UTF-16 surrogate (half of a character, such as \\ud800), which Switchboard cannot store; send valid Unicode and call ${tool} again.`,
        { argument: found.where },
      );
      return refusalResult(toRefusal(e, logger, tool));
    }
    return next(request, extra);
  });
}
