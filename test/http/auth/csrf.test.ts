import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpBrowser } from '../../support/web/browser.ts';
import { seedOrg, startTestServer, type TestServer } from '../../support/web/server.ts';

describe('CSRF protection', () => {
  let server: TestServer;
  let password: string;
  let alice: HttpBrowser;

  beforeAll(async () => {
    server = await startTestServer();
    ({ password } = await seedOrg(server, { org: 'Acme', workspace: 'acme', admin: 'alice', member: 'bob' }));
    alice = new HttpBrowser(server.url);
    await alice.signIn('alice', password);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('refuses the sign-in form without the token bound to this browser', async () => {
    const b = new HttpBrowser(server.url);
    await b.get('/signin');
    const res = await b.form('/signin', { handle: 'alice', password }, { csrf: false });
    expect(res.status).toBe(403);
    expect(res.text).toContain('did not carry a valid CSRF token');
    // A token from another browser does not fit this one.
    const other = new HttpBrowser(server.url);
    await other.get('/signin');
    const foreign = await b.form('/signin', { handle: 'alice', password, _csrf: other.csrf });
    expect(foreign.status).toBe(403);
    expect(b.cookies.has('sb_session')).toBe(false);
  });

  it("refuses API changes without the header, with another session's token, or from another site", async () => {
    const bob = new HttpBrowser(server.url);
    await bob.signIn('bob', password);
    const none = await alice.api('POST', '/w/acme/channels', { name: 'no-token' }, { csrf: false });
    expect(none.status).toBe(403);
    expect(none.json().error).toMatchObject({ code: 'NOT_PERMITTED' });
    expect(
      (await alice.api('POST', '/w/acme/channels', { name: 'bobs-token' }, { headers: { 'x-csrf-token': bob.csrf } }))
        .status,
    ).toBe(403);
    expect(
      (
        await alice.api(
          'POST',
          '/w/acme/channels',
          { name: 'cross-site' },
          { headers: { origin: 'https://evil.example' } },
        )
      ).status,
    ).toBe(403);
    const ws = (await server.app.store.workspaces.get('acme'))!;
    for (const name of ['no-token', 'bobs-token', 'cross-site'])
      expect(await server.app.store.chat.channelByName(ws.id, name)).toBeNull();
    const ok = await alice.api('POST', '/w/acme/channels', { name: 'with-token' }, { headers: { origin: server.url } });
    expect(ok.status).toBe(201);
  });

  it('refuses sign-out without the token, so another site cannot sign you out', async () => {
    const res = await alice.form('/signout', {}, { csrf: false });
    expect(res.status).toBe(403);
    expect((await alice.api('GET', '/me')).status).toBe(200);
  });

  it('lets reads through without a token', async () => {
    expect((await alice.api('GET', '/w/acme/sidebar', undefined, { csrf: false })).status).toBe(200);
  });
});

describe('the chat page and its assets', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('serves the scripts and styles with nosniff, and a plain 404 for unknown files', async () => {
    const js = await fetch(`${server.url}/assets/app.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/javascript/);
    expect(js.headers.get('x-content-type-options')).toBe('nosniff');
    // One bundle of the TypeScript sources: it imports nothing else from the server.
    expect(await js.text()).not.toMatch(/^\s*import\s/m);
    const missing = await fetch(`${server.url}/assets/nope.js`);
    expect(missing.status).toBe(404);
  });

  it('sends pages with a strict content security policy and no framing', async () => {
    const res = await fetch(`${server.url}/signin`);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });
});
