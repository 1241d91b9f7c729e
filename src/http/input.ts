import { z } from 'zod';
import { invalidInput } from '../core/errors.ts';
import { findUnstorable, refusalFor, unstorableIn } from '../core/safe-text.ts';

/** A string field that refuses what cannot be stored (NUL, a lone surrogate) with the sentence every surface uses. */
export const safeText = () =>
  z.string().superRefine((s, ctx) => {
    const what = unstorableIn(s);
    if (what) ctx.addIssue({ code: 'custom', message: refusalFor(what) });
  });

/** INVALID_INPUT's sentence for a parsed body holding text that cannot be stored anywhere; null when it holds none. */
function unstorableRefusal(body: unknown): string | null {
  const found = findUnstorable(body);
  return found ? `${found.where}: ${refusalFor(found.what)}` : null;
}

interface HttpErrorLike {
  status?: unknown;
  statusCode?: unknown;
  type?: unknown;
  limit?: unknown;
  length?: unknown;
  message?: unknown;
}

/**
 * The status and sentence for an error express or body-parser raised about the
 * request itself (malformed JSON, an oversized body, a bad percent-encoding),
 * or null when the error is not about the request.
 */
export function requestErrorOf(err: unknown): { status: number; message: string } | null {
  if (!err || typeof err !== 'object') return null;
  const e = err as HttpErrorLike;
  const status = Number(e.status ?? e.statusCode);
  if (!(status >= 400 && status < 500)) return null;
  switch (e.type) {
    case 'entity.too.large':
      return {
        status: 413,
        message: `The request body is ${e.length} bytes and this route accepts at most ${e.limit}; send less.`,
      };
    case 'entity.parse.failed':
      return {
        status: 400,
        message: 'The request body could not be parsed; send well-formed JSON (or a form) as the Content-Type says.',
      };
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return {
        status: 415,
        message:
          'The request body uses an encoding or character set this server does not read; send UTF-8 without compression.',
      };
    case 'request.aborted':
    case 'request.size.invalid':
      return { status: 400, message: 'The request body ended before its declared length; send it again whole.' };
    case 'parameters.too.many':
      return { status: 413, message: 'The form has too many fields; send fewer.' };
    default:
      break;
  }
  // The router's decodeURIComponent of a path parameter failed (it marks that URIError 400).
  if (err instanceof URIError) {
    return {
      status: 400,
      message: 'The address contains a malformed percent-encoding (such as %ZZ); encode it properly and try again.',
    };
  }
  return { status, message: 'The request was refused as malformed; check its address, headers and body.' };
}

/**
 * A request part (body, query, params) checked for text that cannot be stored, then parsed
 * with `schema`; every problem becomes one INVALID_INPUT sentence naming its field.
 */
export function parseInput<S extends z.ZodType>(schema: S, raw: unknown): z.infer<S> {
  const refused = unstorableRefusal(raw);
  if (refused) throw invalidInput(refused);
  const r = schema.safeParse(raw ?? {});
  if (!r.success)
    throw invalidInput(
      r.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ` : '') + i.message).join('; '),
    );
  return r.data;
}
