// The chat's JSON API and event stream. Every change carries the CSRF token from the page.
import type { LiveEvents } from './types.ts';

const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';

/** A refusal from the server, with its sentence and stable code. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** Calls /api/chat; throws ApiError with the server's sentence when it refuses. */
export async function api<T = unknown>(
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<T> {
  const res = await fetch(`/api/chat${path}`, {
    method,
    credentials: 'same-origin',
    headers: {
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(method === 'GET' ? {} : { 'x-csrf-token': csrf }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 401) {
    location.assign(`/signin?next=${encodeURIComponent(location.pathname + location.hash)}`);
    throw new ApiError(401, 'Your session ended; sign in again.', 'UNAUTHENTICATED');
  }
  const data = (await res.json().catch(() => ({}))) as { error?: { message?: string; code?: string } };
  if (!res.ok)
    throw new ApiError(res.status, data?.error?.message ?? `The server answered ${res.status}.`, data?.error?.code);
  return data as T;
}

/** Workspace-scoped API path. */
export const w = (ws: string, path: string) => `/w/${encodeURIComponent(ws)}${path}`;

export type LiveHandlers = { [K in keyof LiveEvents]?: (data: LiveEvents[K]) => void } & {
  reconnect?: () => void;
  /** How the stream is doing; `refused` is final (nothing is tried after it). */
  state?: (state: LiveState) => void;
};

/**
 * `ready`: events flow. `reconnecting`: the browser is trying again by itself. `trouble`: the server failed
 * the stream (a 5xx, or no answer); the next try is in `retryInMs`. `refused`: the server no longer lets this
 * person into the workspace (403 or 404), with its sentence.
 */
export type LiveState =
  | { state: 'ready' }
  | { state: 'reconnecting' }
  | { state: 'trouble'; retryInMs: number }
  | { state: 'refused'; status: number; message: string };

/** An open stream of live events; `close` ends it and every try still to come. */
export type LiveStream = { close(): void };

const EVENTS: Array<keyof LiveEvents> = [
  'message',
  'changed',
  'deleted',
  'sidebar',
  'inbox',
  'approval',
  'channel',
  'live',
  'resync',
];

/** After a failed stream the page waits this long before it tries again, twice as long each time up to the cap. */
const RETRY_FIRST_MS = 3_000;
const RETRY_MAX_MS = 60_000;

/**
 * Follows the workspace's live events. The browser reconnects by itself after
 * a drop; `reconnect` runs then, so the page can catch up on what it missed.
 * When the server refuses the reconnection the browser gives up without saying
 * why, so the page asks the workspace (the same session and access checks as
 * the stream): a session that ended sends the page to sign-in, a 403 or 404
 * ends following for good (`refused`), anything else (a 5xx, no answer) is
 * tried again later and later (`trouble`).
 */
export function follow(ws: string, handlers: LiveHandlers): LiveStream {
  let source: EventSource | null = null;
  let dropped = false;
  let stopped = false;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let wait = RETRY_FIRST_MS;
  const tell = (s: LiveState) => {
    document.body.dataset.live = s.state;
    handlers.state?.(s);
  };

  const whyRefused = async () => {
    try {
      await api('GET', w(ws, '/sidebar'));
    } catch (err) {
      if (stopped) return;
      // api() is already taking the page to sign-in.
      if (err instanceof ApiError && err.status === 401) return;
      if (err instanceof ApiError && (err.status === 403 || err.status === 404)) {
        stopped = true;
        tell({ state: 'refused', status: err.status, message: err.message });
        return;
      }
    }
    if (stopped) return;
    // The server failed (or the stream did though the workspace answers): try again, less often each time.
    tell({ state: 'trouble', retryInMs: wait });
    retry = setTimeout(open, wait);
    wait = Math.min(wait * 2, RETRY_MAX_MS);
  };

  const open = () => {
    if (stopped) return;
    const es = new EventSource(`/api/chat${w(ws, '/events')}`);
    source = es;
    for (const type of EVENTS) {
      es.addEventListener(type, (e) =>
        (handlers[type] as ((d: unknown) => void) | undefined)?.(JSON.parse((e as MessageEvent<string>).data)),
      );
    }
    es.addEventListener('ready', () => {
      wait = RETRY_FIRST_MS;
      tell({ state: 'ready' });
      if (dropped) handlers.reconnect?.();
      dropped = false;
    });
    es.addEventListener('error', () => {
      if (stopped) return;
      dropped = true;
      tell({ state: 'reconnecting' });
      if (es.readyState !== EventSource.CLOSED) return;
      source = null;
      void whyRefused();
    });
  };

  open();
  return {
    close() {
      stopped = true;
      clearTimeout(retry);
      source?.close();
      source = null;
    },
  };
}
