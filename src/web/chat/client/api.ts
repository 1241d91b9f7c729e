// The chat's JSON API and event stream. Every change carries the CSRF token from the page.
import type { LiveEvents } from './types.ts';

const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';

/** A refusal from the server, with its sentence and stable code. */
export class ApiError extends Error {
  constructor(readonly status: number, message: string, readonly code?: string) {
    super(message);
  }
}

/** Calls /api/chat; throws ApiError with the server's sentence when it refuses. */
export async function api<T = unknown>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
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
  const data = await res.json().catch(() => ({})) as { error?: { message?: string; code?: string } };
  if (!res.ok) throw new ApiError(res.status, data?.error?.message ?? `The server answered ${res.status}.`, data?.error?.code);
  return data as T;
}

/** Workspace-scoped API path. */
export const w = (ws: string, path: string) => `/w/${encodeURIComponent(ws)}${path}`;

export type LiveHandlers = { [K in keyof LiveEvents]?: (data: LiveEvents[K]) => void } & { reconnect?: () => void };

const EVENTS: Array<keyof LiveEvents> = ['message', 'changed', 'deleted', 'sidebar', 'inbox', 'approval', 'channel', 'live', 'resync'];

/**
 * Follows the workspace's live events. The browser reconnects by itself after
 * a drop; `reconnect` runs then, so the page can catch up on what it missed.
 * When the server refuses the reconnection the browser gives up without saying
 * why; a call to the API finds out, and a session that ended sends the page to sign-in.
 */
export function follow(ws: string, handlers: LiveHandlers): EventSource {
  const source = new EventSource(`/api/chat${w(ws, '/events')}`);
  let dropped = false;
  for (const type of EVENTS) {
    source.addEventListener(type, (e) => (handlers[type] as ((d: unknown) => void) | undefined)?.(JSON.parse((e as MessageEvent<string>).data)));
  }
  source.addEventListener('ready', () => {
    document.body.dataset.live = 'ready';
    if (dropped) handlers.reconnect?.();
    dropped = false;
  });
  source.addEventListener('error', () => {
    dropped = true;
    document.body.dataset.live = 'reconnecting';
    if (source.readyState === EventSource.CLOSED) api('GET', '/me').catch(() => {});
  });
  return source;
}
