import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../../src/core/agents/tokens.ts';
import { SESSION_IDLE_MS, SESSION_MAX_MS } from '../../../src/http/auth/index.ts';
import { HttpBrowser } from '../../support/web/browser.ts';
import { seedOrg, startTestServer, type TestServer } from '../../support/web/server.ts';

describe('web sign-in', () => {
  let server: TestServer;
  let seed: Awaited<ReturnType<typeof seedOrg>>;

  beforeAll(async () => {
    server = await startTestServer({ signinLimits: { perAddress: 1000, perAccount: 4, windowMs: 60_000 } });
    seed = await seedOrg(server, { org: 'Acme', workspace: 'acme', admin: 'alice', member: 'bob' });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('sends people who are not signed in to the sign-in page, and API calls get 401 with what to do', async () => {
    const b = new HttpBrowser(server.url);
    const page = await b.get('/');
    expect(page.status).toBe(303);
    expect(page.location).toBe('/signin?next=%2F');
    const api = await b.api('GET', '/me');
    expect(api.status).toBe(401);
    expect(api.json().error.message).toMatch(/sign in again at \/signin/);
  });

  it('signs in with a password into a server-side session held in an HttpOnly, SameSite=Lax cookie', async () => {
    const b = new HttpBrowser(server.url);
    await b.get('/signin');
    const res = await b.form('/signin', { handle: 'alice', password: seed.password });
    expect(res.status).toBe(303);
    expect(res.location).toBe('/');
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('sb_session='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/);
    const token = b.cookies.get('sb_session')!;
    // Only the hash is stored.
    expect(await server.app.store.sessions.byTokenHash(hashSecret(token))).toMatchObject({ personId: seed.admin.id });
    const page = await b.get('/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Alice');
    expect((await b.api('GET', '/me')).json().person.handle).toBe('alice');
  });

  it('refuses a wrong password without saying whether the handle exists', async () => {
    const b = new HttpBrowser(server.url);
    await b.get('/signin');
    const wrong = await b.form('/signin', { handle: 'bob', password: 'not the password' });
    const unknown = await b.form('/signin', { handle: 'nobody', password: 'not the password' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const sentence = 'That handle and password do not match';
    expect(wrong.text).toContain(sentence);
    expect(unknown.text).toContain(sentence);
    expect(b.cookies.has('sb_session')).toBe(false);
  });

  it('signs in once with a one-time link, then asks for a password; the link does not work twice', async () => {
    const carol = await server.app.orgs.addPerson(
      { kind: 'system' },
      { handle: 'carol', org: 'acme', displayName: 'Carol' },
    );
    const { path } = await server.app.orgs.issueSignin(carol.id);
    const b = new HttpBrowser(server.url);
    const confirm = await b.get(path);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('Continue as Carol');
    expect(confirm.headers.get('referrer-policy')).toBe('no-referrer');
    // Looking at the link (a preview bot, a reload) does not use it up.
    expect((await b.get(path)).status).toBe(200);
    const token = new URLSearchParams(path.split('?')[1]).get('token')!;
    const signedIn = await b.form('/signin/link', { token });
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toBe('/account?welcome=1');
    const account = await b.get('/account');
    expect(account.text).toContain('Set a password');

    const other = new HttpBrowser(server.url);
    await other.get('/signin');
    const again = await other.form('/signin/link', { token });
    expect(again.status).toBe(410);
    expect(again.text).toContain('already used or has expired');
    expect(other.cookies.has('sb_session')).toBe(false);

    const short = await b.form('/account/password', { password: 'short', confirm: 'short' });
    expect(short.status).toBe(400);
    expect(short.text).toContain('at least 10 characters');
    const set = await b.form('/account/password', {
      password: 'a long new passphrase',
      confirm: 'a long new passphrase',
    });
    expect(set.status).toBe(200);
    const stored = await server.app.store.people.passwordHash(carol.id);
    expect(stored).toMatch(/^scrypt\$/);
    expect(stored).not.toContain('a long new passphrase');
    const fresh = new HttpBrowser(server.url);
    await fresh.signIn('carol', 'a long new passphrase');
    expect((await fresh.api('GET', '/me')).json().hasPassword).toBe(true);
  });

  it('ends the session on the server at sign-out, so a copied cookie stops working', async () => {
    const b = new HttpBrowser(server.url);
    await b.signIn('bob', seed.password);
    const stolen = b.cookies.get('sb_session')!;
    const out = await b.form('/signout', {});
    expect(out.status).toBe(303);
    expect(out.location).toBe('/signin?signed_out=1');
    expect(b.cookies.has('sb_session')).toBe(false);
    expect(await server.app.store.sessions.byTokenHash(hashSecret(stolen))).toBeNull();
    const replay = new HttpBrowser(server.url);
    replay.cookies.set('sb_session', stolen);
    expect((await replay.api('GET', '/me')).status).toBe(401);
  });

  it('ends sessions left idle too long, and every session after its maximum age', async () => {
    const idle = new HttpBrowser(server.url);
    await idle.signIn('bob', seed.password);
    server.clock.advance(SESSION_IDLE_MS + 60_000);
    expect((await idle.api('GET', '/me')).status).toBe(401);
    expect((await idle.get('/')).location).toBe('/signin?next=%2F');

    const busy = new HttpBrowser(server.url);
    await busy.signIn('bob', seed.password);
    const token = busy.cookies.get('sb_session')!;
    // Used every few days it stays alive, until its maximum age.
    const step = SESSION_IDLE_MS / 2;
    let age = 0;
    for (; age + step < SESSION_MAX_MS; age += step) {
      server.clock.advance(step);
      expect((await busy.api('GET', '/me')).status).toBe(200);
    }
    server.clock.advance(SESSION_MAX_MS - age);
    expect((await busy.api('GET', '/me')).status).toBe(401);
    expect(await server.app.store.sessions.byTokenHash(hashSecret(token))).toBeNull();
  });

  it('never redirects off the site after sign-in', async () => {
    const b = new HttpBrowser(server.url);
    await b.get('/signin?next=//evil.example/x');
    const res = await b.form('/signin', { handle: 'alice', password: seed.password, next: '//evil.example/x' });
    expect(res.location).toBe('/');
    const kept = new HttpBrowser(server.url);
    await kept.get('/signin');
    expect(
      (await kept.form('/signin', { handle: 'alice', password: seed.password, next: '/#/w/acme/agents' })).location,
    ).toBe('/#/w/acme/agents');
  });

  it('limits failed sign-in attempts per account, even with the right password after the limit', async () => {
    const b = new HttpBrowser(server.url);
    await b.get('/signin');
    for (let i = 0; i < 4; i++)
      expect((await b.form('/signin', { handle: 'dave', password: `guess ${i}` })).status).toBe(401);
    const limited = await b.form('/signin', { handle: 'dave', password: 'guess 5' });
    expect(limited.status).toBe(429);
    expect(limited.text).toContain('Too many failed sign-in attempts');
    expect(limited.headers.get('ratelimit-policy')).toBeTruthy();
    // Successful sign-ins are not counted, and other accounts are not affected.
    for (let i = 0; i < 5; i++) {
      const ok = new HttpBrowser(server.url);
      await ok.get('/signin');
      expect((await ok.form('/signin', { handle: 'alice', password: seed.password })).status).toBe(303);
    }
  });
});

describe('web sign-in over https', () => {
  it('marks the session cookie Secure when PUBLIC_URL is https', async () => {
    const server = await startTestServer({ env: { PUBLIC_URL: 'https://chat.example.com' } });
    try {
      const { password } = await seedOrg(server, { org: 'Acme', workspace: 'acme', admin: 'alice' });
      const b = new HttpBrowser(server.url);
      await b.get('/signin');
      const res = await b.form('/signin', { handle: 'alice', password });
      expect(res.headers.getSetCookie().find((c) => c.startsWith('sb_session='))).toMatch(/; Secure/);
    } finally {
      await server.close();
    }
  });
});
