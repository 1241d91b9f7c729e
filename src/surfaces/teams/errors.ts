// The one place Bot Connector errors are translated. The connector client
// throws a RestError: `statusCode`, `response.headers`, `response.bodyAsText`,
// and a `request` that carries the bot's bearer token, so it is never logged whole.
import { jobErrorFor, type DeliveryFailure } from '../../core/delivery/failure.ts';
import { STREAM_ENDED } from '../../core/delivery/surface-outbound.ts';

interface RestErrorLike {
  name?: string;
  code?: string;
  message?: string;
  statusCode?: number;
  response?: { headers?: { get(name: string): string | undefined }; bodyAsText?: string | null };
}

const TRANSIENT_STATUS = new Set([401, 408, 412, 500, 502, 503, 504]);

type ErrorBody = { error?: { code?: string; message?: string }; message?: string };

/** The response body as JSON; null when there is none or it is not a JSON object. */
function bodyOf(e: RestErrorLike): ErrorBody | null {
  try {
    const body: unknown = JSON.parse(e.response?.bodyAsText ?? '');
    return body && typeof body === 'object' ? (body as ErrorBody) : null;
  } catch {
    return null;
  }
}

/**
 * Refusals that say the conversation is gone for the bot, by status and Teams' error code: the channel or team
 * deleted (404 ConversationNotFound), or the bot not in it (403 BotNotInConversationRoster, the app removed).
 */
const PLACE_GONE: Record<number, string> = { 404: 'ConversationNotFound', 403: 'BotNotInConversationRoster' };

/**
 * 403 ContentStreamNotAllowed refusals that say a stream is over: past Teams' two-minute limit, stopped by the
 * person, or already completed. Teams' messages are the only thing telling these apart from "streaming is not
 * allowed here" (the same code).
 */
const STREAM_OVER = /exceeded streaming time|cancel+ed by user|already completed/i;

/** Teams' error code and message from a response body, if it has them. */
function bodyReason(e: RestErrorLike): string | null {
  const text = e.response?.bodyAsText;
  if (!text) return null;
  const body = bodyOf(e);
  if (!body) return text.slice(0, 200);
  const reason = body.error?.code
    ? `${body.error.code}${body.error.message ? `: ${body.error.message}` : ''}`
    : body.message;
  return reason ? reason.replace(/\s+/g, ' ').slice(0, 200) : null;
}

function retryAfterMs(e: RestErrorLike): number | null {
  const ms = Number(e.response?.headers?.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms > 0) return ms;
  const header = e.response?.headers?.get('retry-after');
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : null;
}

/**
 * What a failed Bot Connector call means: 429 waits (for Retry-After when Teams
 * gave one); 412, 5xx, timeouts, network errors and token hiccups are tried
 * again; 403 MessageWritesBlocked (the person blocked or removed the bot) and
 * any other refusal are permanent.
 */
export function classifyTeamsError(error: unknown): DeliveryFailure {
  const e = (error ?? {}) as RestErrorLike;
  const status = e.statusCode;
  if (status === undefined) {
    return {
      kind: 'transient',
      reason: `the Bot Connector could not be reached (${e.code ?? e.message ?? 'network error'})`,
    };
  }
  const detail = bodyReason(e);
  const reason = `Teams answered HTTP ${status}${detail ? ` (${detail})` : ''}`;
  if (status === 429) return { kind: 'rate_limited', afterMs: retryAfterMs(e), reason };
  if (status === 403 && (e.response?.bodyAsText ?? '').includes('MessageWritesBlocked')) {
    return {
      kind: 'permanent',
      code: 'MessageWritesBlocked',
      reason: 'the person blocked Switchboard in Teams or removed the app, so Teams refuses new messages in that chat',
    };
  }
  if (TRANSIENT_STATUS.has(status) || status >= 500) return { kind: 'transient', reason };
  const body = bodyOf(e);
  if (status === 403 && body?.error?.code === 'ContentStreamNotAllowed') {
    // Teams' own words, not an error of Switchboard's: the one thing that tells a stream that is over apart.
    const teamsWords = body.error.message ?? '';
    return { kind: 'permanent', code: STREAM_OVER.test(teamsWords) ? STREAM_ENDED : 'ContentStreamNotAllowed', reason };
  }
  const placeGone = PLACE_GONE[status] !== undefined && body?.error?.code === PLACE_GONE[status];
  return { kind: 'permanent', code: `HTTP ${status}`, reason, ...(placeGone ? { placeGone } : {}) };
}

const isRestError = (error: unknown) => {
  const e = (error ?? {}) as RestErrorLike;
  return e.statusCode !== undefined || e.name === 'RestError';
};

/**
 * What a job should throw for `error`: a Bot Connector error as the queue reads it (Teams down or asking to wait:
 * retried until the job is too old; a refusal: stopped at once); anything else unchanged.
 */
export const asJobError = (error: unknown): unknown =>
  isRestError(error) ? jobErrorFor(classifyTeamsError(error)) : error;

/** An error as it may be logged: never the request (it carries the bot's token). */
export function loggable(error: unknown): Record<string, unknown> {
  const e = (error ?? {}) as RestErrorLike;
  if (isRestError(error))
    return { name: e.name, statusCode: e.statusCode, code: e.code, reason: classifyTeamsError(error).reason };
  if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack };
  return { message: String(error) };
}
