// Calls about a stream that reached a process other than the one holding it. A client speaking MCP 2026-07-28 has no
// session, so its append_message and finish_message may reach any process sharing the database; the holder listens
// on the stream's topic and answers on the caller's. Both travel through the notifier, in parts small enough for a
// Postgres NOTIFY (a text may hold 16,000 characters), numbered because NOTIFYs sent on different connections may
// arrive out of order.
import { randomUUID } from 'node:crypto';
import { SwitchboardError, type ErrorCode } from '../errors.ts';
import type { Notifier } from '../ports.ts';

/** A call about a stream, passed from the process it reached to the one holding the stream. */
export interface StreamCall {
  /** `held` only asks whether the stream is still held (before another process finishes it from the store). */
  op: 'append' | 'finish' | 'held';
  /** Whose call it is: the caller's workspace and agent (LiveService's ownerKey). */
  owner: string;
  text: string;
}

/** The topic a stream's holder listens on. */
export const streamTopic = (streamId: string) => `live-stream:${streamId}`;
const replyTopic = (callId: string) => `live-reply:${callId}`;

/** Bytes of one part's text: with the envelope, well under what one NOTIFY carries (see PgNotifier). */
const PART_BYTES = 4_000;
const bytes = (s: string) => new TextEncoder().encode(s).length;

/** `text` in parts of at most PART_BYTES bytes each, never splitting a surrogate pair. */
export function parts(text: string): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest) {
    let n = Math.min(rest.length, PART_BYTES);
    while (bytes(JSON.stringify(rest.slice(0, n))) > PART_BYTES) n = Math.floor(n / 2);
    const code = rest.charCodeAt(n - 1);
    if (n < rest.length && n > 1 && code >= 0xd800 && code <= 0xdbff) n -= 1;
    out.push(rest.slice(0, n));
    rest = rest.slice(n);
  }
  return out.length ? out : [''];
}

interface Part {
  /** The call this part belongs to. */
  call: string;
  i: number;
  n: number;
  part: string;
}

/** Publishes `value` as JSON on `topic`, in numbered parts. */
async function publishInParts(notifier: Notifier, topic: string, call: string, value: unknown): Promise<void> {
  const all = parts(JSON.stringify(value));
  for (const [i, part] of all.entries())
    await notifier.publish(topic, JSON.stringify({ call, i, n: all.length, part } satisfies Part));
}

/** Gathers the parts of calls; `done` gets each call's value once all its parts arrived. */
function gatherer(done: (call: string, value: unknown) => void) {
  const pending = new Map<string, string[]>();
  return (payload: string) => {
    // An empty payload says wake-ups may have been missed; a call whose parts went missing times out instead.
    if (!payload) return;
    let p: Part;
    try {
      p = JSON.parse(payload) as Part;
    } catch {
      return;
    }
    const got = pending.get(p.call) ?? new Array<string>(p.n);
    got[p.i] = p.part;
    pending.set(p.call, got);
    if (got.filter((x) => x !== undefined).length < p.n) return;
    pending.delete(p.call);
    done(p.call, JSON.parse(got.join(''), revive));
  };
}

/** Dates (`createdAt`, `updatedAt`…) come back as dates. */
const revive = (key: string, v: unknown) =>
  typeof v === 'string' && key.endsWith('At') && /^\d{4}-\d\d-\d\dT/.test(v) ? new Date(v) : v;

type Answer =
  | { ok: unknown }
  | { error: { code: ErrorCode; reason: string; details: Record<string, unknown>; hint: string } };

/**
 * Asks the process holding a stream to run `request` on it. Resolves to its answer, rejects with its refusal, and
 * with `none()` when no process answers within `waitMs` (none holds the stream).
 */
export async function callHolder(
  notifier: Notifier,
  streamId: string,
  request: unknown,
  waitMs: number,
  none: () => Error,
): Promise<unknown> {
  const call = randomUUID();
  let answered: (a: Answer) => void = () => {};
  const answer = new Promise<Answer>((resolve) => {
    answered = resolve;
  });
  const stop = await notifier.subscribe(
    replyTopic(call),
    gatherer((_call, value) => answered(value as Answer)),
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await publishInParts(notifier, streamTopic(streamId), call, request);
    const timedOut = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), waitMs);
    });
    const a = await Promise.race([answer, timedOut]);
    if (!a) throw none();
    if ('error' in a) throw new SwitchboardError(a.error.code, a.error.reason, a.error.details, a.error.hint);
    return a.ok;
  } finally {
    clearTimeout(timer);
    await stop();
  }
}

/**
 * Listens for calls about a stream this process holds: `run` answers each (its refusal, a SwitchboardError, is sent
 * back as one). Resolves to the function that stops listening.
 */
export function answerCalls(
  notifier: Notifier,
  streamId: string,
  run: (request: unknown) => Promise<unknown>,
  failed: (err: unknown) => void,
): Promise<() => Promise<void>> {
  return notifier.subscribe(
    streamTopic(streamId),
    gatherer((call, request) => {
      void run(request)
        .then(
          (ok): Answer => ({ ok }),
          (e: unknown): Answer => {
            if (e instanceof SwitchboardError)
              return { error: { code: e.code, reason: e.reason, details: e.details, hint: e.hint } };
            failed(e);
            return {
              error: {
                code: 'UNAVAILABLE',
                reason: 'The server holding this streamed message could not run the call; try it again in a moment.',
                details: {},
                hint: '',
              },
            };
          },
        )
        .then((a) => publishInParts(notifier, replyTopic(call), call, a))
        .catch(failed);
    }),
  );
}
