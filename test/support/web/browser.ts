/**
 * A minimal HTTP client that behaves like a browser towards the web chat: it
 * keeps cookies, reads the CSRF token from pages, and does not follow redirects
 * (tests look at them).
 */
export class HttpBrowser {
  readonly cookies = new Map<string, string>();
  csrf = '';

  constructor(readonly base: string) {}

  private remember(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attrs.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a)) || value === '';
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  /** The cookie header this browser would send, plus `extra`. */
  headers(extra: Record<string, string> = {}) {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    return { ...(cookie ? { cookie } : {}), ...extra };
  }

  async request(method: string, path: string, init: { body?: string; headers?: Record<string, string> } = {}) {
    const res = await fetch(this.base + path, {
      method,
      redirect: 'manual',
      body: init.body,
      headers: this.headers(init.headers),
    });
    this.remember(res);
    const text = await res.text();
    const csrf = /name="_csrf" value="([^"]+)"|name="csrf-token" content="([^"]+)"/.exec(text);
    if (csrf) this.csrf = csrf[1] ?? csrf[2];
    return {
      status: res.status,
      location: res.headers.get('location'),
      text,
      headers: res.headers,
      json: () => JSON.parse(text),
    };
  }

  get(path: string) {
    return this.request('GET', path);
  }

  /** Posts a form; the CSRF token of the last page is added unless `_csrf` is given. */
  form(path: string, fields: Record<string, string>, opts: { csrf?: boolean } = {}) {
    const body = new URLSearchParams({ ...(opts.csrf === false ? {} : { _csrf: this.csrf }), ...fields }).toString();
    return this.request('POST', path, { body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  }

  /** Calls the JSON API with the CSRF header (unless `csrf: false`). */
  async api(
    method: string,
    path: string,
    body?: unknown,
    opts: { csrf?: boolean; headers?: Record<string, string> } = {},
  ) {
    return this.request(method, `/api/chat${path}`, {
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: {
        'content-type': 'application/json',
        ...(opts.csrf === false ? {} : { 'x-csrf-token': this.csrf }),
        ...opts.headers,
      },
    });
  }

  /** Signs in with a password and loads the chat page (which carries the session's CSRF token). */
  async signIn(handle: string, password: string) {
    await this.get('/signin');
    const res = await this.form('/signin', { handle, password });
    if (res.status !== 303) throw new Error(`sign-in failed with ${res.status}: ${res.text.slice(0, 300)}`);
    await this.get('/');
    return res;
  }
}
