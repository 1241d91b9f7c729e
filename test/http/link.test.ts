// The link page and the linked-accounts settings over HTTP, as a browser
// uses them: sign in and come back, confirm with a POST carrying the CSRF
// token, list and unlink accounts on the settings page and through the JSON API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExternalIdentity } from '../../src/core/surfaces/surface-ports.ts';
import { slackLinkWording } from '../../src/surfaces/slack/linking.ts';
import { mountLink } from '../../src/http/link/index.ts';
import { HttpBrowser } from '../support/web/browser.ts';
import { seedOrg, startTestServer, type TestServer } from '../support/web/server.ts';

describe('the link page and linked accounts', () => {
  let server: TestServer;
  let seed: Awaited<ReturnType<typeof seedOrg>>;
  let n = 0;
  const chatUser = (name: string): Promise<ExternalIdentity> =>
    server.app.store.identities.upsert(
      { surface: 'slack', tenantId: 'T0WEB', externalUserId: `U0WEB${(n++).toString().padStart(4, '0')}` },
      { displayName: name, email: `${name.toLowerCase()}@example.test`, fetchedAt: new Date() },
    );
  const linkPath = async (i: ExternalIdentity) =>
    new URL((await server.app.links.offer(i, { tenantName: 'Acme Slack' })).url).pathname;
  const signedIn = async (handle: string) => {
    const b = new HttpBrowser(server.url);
    await b.signIn(handle, seed.password);
    return b;
  };

  beforeAll(async () => {
    server = await startTestServer({ mounts: [mountLink] });
    // Slack is not mounted here; its surface registers this wording when it is.
    server.app.links.registerWording('slack', slackLinkWording('/switchboard'));
    seed = await seedOrg(server, { org: 'Acme', workspace: 'acme', admin: 'alice', member: 'bob' });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('sends someone signed out to sign in, then back to the link, which shows whose account becomes whose', async () => {
    const path = await linkPath(await chatUser('Carol'));
    const b = new HttpBrowser(server.url);
    const first = await b.get(path);
    expect(first.status).toBe(303);
    expect(first.location).toBe(`/signin?next=${encodeURIComponent(path)}`);
    await b.get(first.location!);
    const signin = await b.form('/signin', { handle: 'bob', password: seed.password, next: path });
    expect(signin.location).toBe(path);
    const page = await b.get(path);
    expect(page.status).toBe(200);
    expect(page.text).toMatch(
      /<strong>Carol<\/strong> \(carol@example\.test, user U0WEB\d{4}\) in the Slack team Acme Slack/,
    );
    expect(page.text).toContain('Anyone can give their chat account any name; check the user id and e-mail above.');
    expect(page.text).toContain('<strong>Bob</strong> (@bob)');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    // Looking at it changed nothing.
    expect((await server.app.links.check(path.split('/').pop()!)).state).toBe('valid');
  });

  it('asks a POST made while signed out to sign in first, and links nothing', async () => {
    const carol = await chatUser('Dora');
    const path = await linkPath(carol);
    const b = new HttpBrowser(server.url);
    await b.get('/signin');
    const post = await b.form(path, {});
    expect(post.status).toBe(303);
    expect(post.location).toMatch(/^\/signin\?next=/);
    expect((await server.app.store.identities.get(carol.id))?.personId).toBeNull();
  });

  it('escapes what a chat profile says', async () => {
    const path = await linkPath(await chatUser('<script>alert(1)</script>'));
    const b = await signedIn('alice');
    const page = await b.get(path);
    expect(page.text).not.toContain('<script>alert(1)</script>');
    expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('lists linked accounts in the settings and unlinks one with a CSRF-protected form', async () => {
    const erin = await chatUser('Erin');
    const b = await signedIn('alice');
    await b.get('/');
    expect((await b.form(`/link/${'x'.repeat(43)}`, {})).status).toBe(410);
    const path = await linkPath(erin);
    await b.get(path);
    expect((await b.form(path, {})).text).toContain('Linked as @alice.');

    const list = await b.get('/account/links');
    expect(list.status).toBe(200);
    expect(list.text).toContain('<strong>Erin</strong>');
    expect(list.text).toContain(`/account/links/${erin.id}/unlink`);
    expect((await b.form(`/account/links/${erin.id}/unlink`, {}, { csrf: false })).status).toBe(403);
    expect((await server.app.store.identities.get(erin.id))?.personId).not.toBeNull();

    const other = await signedIn('bob');
    await other.get('/account/links');
    expect((await other.form(`/account/links/${erin.id}/unlink`, {})).status).toBe(404);

    await b.get('/account/links');
    const done = await b.form(`/account/links/${erin.id}/unlink`, {});
    expect(done.status).toBe(303);
    expect((await b.get(done.location!)).text).toContain('The account was unlinked');
    expect((await server.app.store.identities.get(erin.id))?.personId).toBeNull();
  });

  it('tells someone with no linked account how to ask each chat app for a link, with the configured slash command', async () => {
    server.app.links.registerWording('slack', slackLinkWording('/sb'));
    try {
      const page = await (await signedIn('alice')).get('/account/links');
      expect(page.text).toContain(
        'No chat account is linked yet. To link one, write <code>/sb link</code> to the Switchboard app in Slack;',
      );
      expect(page.text).not.toContain('/switchboard');
    } finally {
      server.app.links.registerWording('slack', slackLinkWording('/switchboard'));
    }
  });

  it('offers the same list and unlink as JSON for the web chat, with the CSRF header', async () => {
    const fay = await chatUser('Fay');
    await server.app.links.confirm((await server.app.links.offer(fay)).url.split('/link/')[1], seed.member!.id);
    const b = await signedIn('bob');
    const list = await b.request('GET', '/api/links');
    expect(list.json().links).toEqual([
      expect.objectContaining({ id: fay.id, surface: 'slack', tenant: 'T0WEB', name: 'Fay' }),
    ]);
    expect((await b.request('DELETE', `/api/links/${fay.id}`)).status).toBe(403);
    expect(
      (await b.request('DELETE', `/api/links/${fay.id}`, { headers: { 'x-csrf-token': b.csrf } })).json().unlinked,
    ).toMatchObject({ id: fay.id });
    expect((await b.request('DELETE', `/api/links/${fay.id}`, { headers: { 'x-csrf-token': b.csrf } })).status).toBe(
      404,
    );
    expect((await new HttpBrowser(server.url).request('GET', '/api/links')).status).toBe(401);
  });

  it('puts "Linked accounts" in the chat\'s user menu', async () => {
    const b = await signedIn('alice');
    expect((await b.get('/')).text).toContain('<a href="/account/links">Linked accounts</a>');
  });
});
