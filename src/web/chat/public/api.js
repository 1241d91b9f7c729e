// The chat's JSON API and event stream. Every change carries the CSRF token from the page.
const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';

export class ApiError extends Error {
  constructor(status, message, code) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** Calls /api/chat; throws ApiError with the server's sentence when it refuses. */
export async function api(method, path, body) {
  const res = await fetch(`/api/chat${path}`, {
    method,
    credentials: 'same-origin',
    headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(method === 'GET' ? {} : { 'x-csrf-token': csrf }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 401) {
    location.assign(`/signin?next=${encodeURIComponent(location.pathname + location.hash)}`);
    throw new ApiError(401, 'Your session ended; sign in again.', 'UNAUTHENTICATED');
  }
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new ApiError(res.status, data?.error?.message ?? `The server answered ${res.status}.`, data?.error?.code);
  return data;
}

/** Workspace-scoped API path. */
export const w = (ws, path) => `/w/${encodeURIComponent(ws)}${path}`;

/**
 * Follows the workspace's live events. The browser reconnects by itself after
 * a drop; `onReconnect` runs then, so the page can catch up on what it missed.
 */
export function follow(ws, handlers) {
  const source = new EventSource(`/api/chat${w(ws, '/events')}`);
  let dropped = false;
  for (const type of ['message', 'sidebar', 'inbox', 'approval']) {
    source.addEventListener(type, (e) => handlers[type]?.(JSON.parse(e.data)));
  }
  source.addEventListener('ready', () => {
    document.body.dataset.live = 'ready';
    if (dropped) handlers.reconnect?.();
    dropped = false;
  });
  source.addEventListener('error', () => { dropped = true; document.body.dataset.live = 'reconnecting'; });
  return source;
}
