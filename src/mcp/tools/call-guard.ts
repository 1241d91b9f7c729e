import { type McpServer, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { invalidInput } from '../../core/errors.ts';
import { findUnstorable } from '../../core/safe-text.ts';
import type { Logger } from 'pino';
import { refusalResult, toRefusal } from '../errors.ts';
import { wrapEveryRequest, wrapToolCalls } from './raw-tool-call.ts';

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
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `tools/call needs \`params\`: an object with the tool's \`name\` and its \`arguments\` (e.g. {"name": "check_inbox", "arguments": {}}); it is ${kindOf(params)}.`,
      );
    }
    if (typeof params.name !== 'string' || params.name === '') {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `tools/call needs \`params.name\`: the tool's name as a string (tools/list names them); it is ${kindOf(params.name)}.`,
      );
    }
    if ('arguments' in params && params.arguments !== undefined && !isPlainObject(params.arguments)) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
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

interface SchemaIssue {
  path?: PropertyKey[];
  message?: string;
}
const isIssueList = (v: unknown): v is SchemaIssue[] =>
  Array.isArray(v) && v.length > 0 && v.every((i) => typeof (i as SchemaIssue)?.message === 'string');

/** The schema's complaints: a zod error's issues, or those the SDK (2.x) rethrows as JSON in a plain error's message. */
function issuesOf(e: unknown): SchemaIssue[] | null {
  if (!(e instanceof Error)) return null;
  const own = (e as { issues?: unknown }).issues;
  if (/^\$?ZodError$/.test(e.name) && isIssueList(own)) return own;
  if (!e.message.trimStart().startsWith('[')) return null;
  try {
    const parsed: unknown = JSON.parse(e.message);
    return isIssueList(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * Answers a request whose params the SDK cannot read (its schema check throws, or `new URL` throws on a
 * resource's `uri`) with invalid params (-32602) and a sentence, where the SDK would answer -32603, an internal
 * error, with a dump of the schema's complaints. Attach it after every handler is registered.
 */
export function guardRequestParams(server: McpServer): boolean {
  return wrapEveryRequest(server, async (method, request, extra, next) => {
    try {
      return await next(request as Parameters<typeof next>[0], extra);
    } catch (e) {
      const issues = issuesOf(e);
      if (issues?.length) {
        const [first] = issues;
        const where = (first?.path ?? []).map(String).join('.') || 'params';
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `${method} cannot read \`${where}\`: ${first?.message ?? 'it does not have the expected form'}.`,
        );
      }
      // `new URL` throwing (SDK 1.x), or the SDK's own refusal of it (2.x, which says only that it is invalid).
      const badUri =
        (e instanceof TypeError && (e as { code?: string }).code === 'ERR_INVALID_URL') ||
        (e as { data?: { reason?: unknown } } | null)?.data?.reason === 'invalid_uri';
      if (badUri) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `${method} needs \`params.uri\` to be a URI, such as one resources/list names (e.g. switchboard://inbox).`,
        );
      }
      throw e;
    }
  });
}
