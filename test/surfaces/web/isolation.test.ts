import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYSTEM } from '../../../src/core/actor.ts';
import { chatOf } from '../../../src/surfaces/web/index.ts';
import { databases } from '../../support/db.ts';
import { HttpBrowser } from '../../support/web/browser.ts';
import { seedOrg, startTestServer, type TestServer } from '../../support/web/server.ts';
import { openEvents } from '../../support/web/sse.ts';

describe.each(databases())('what a person can read in the web chat, on $kind', (db) => {
  let server: TestServer;
  let alice: HttpBrowser;
  let bob: HttpBrowser;
  let carol: HttpBrowser;
  let general: string;
  let dm: string;
  let dmMessage: string;

  beforeAll(async () => {
    server = await startTestServer({ db });
    const acme = await seedOrg(server, { org: 'Acme', workspace: 'acme', admin: 'alice', member: 'bob' });
    await seedOrg(server, { org: 'Globex', workspace: 'globex', admin: 'carol' });
    await server.app.agents.add(SYSTEM, { name: 'helper', owner: 'alice' });
    await server.app.agents.join(SYSTEM, { agent: 'alice/helper', workspace: 'acme' });
    [alice, bob, carol] = [new HttpBrowser(server.url), new HttpBrowser(server.url), new HttpBrowser(server.url)];
    await alice.signIn('alice', acme.password);
    await bob.signIn('bob', acme.password);
    await carol.signIn('carol', acme.password);
    general = (await alice.api('GET', '/w/acme/sidebar')).json().channels[0].id;
    await alice.api('POST', `/w/acme/conversations/${general}/messages`, { body: 'quarterly numbers are in' });
    const helper = (await server.app.store.agents.byQualifiedName('alice', 'helper'))!;
    dm = (await alice.api('POST', '/w/acme/dms', { agentId: helper.id })).json().conversation.id;
    dmMessage = (
      await alice.api('POST', `/w/acme/conversations/${dm}/messages`, { body: 'private salary question' })
    ).json().message.id;
  });
  afterAll(async () => {
    await server?.close();
  });

  it('does not let a person of another organization into the workspace, and does not confirm it exists', async () => {
    const sidebar = await carol.api('GET', '/w/acme/sidebar');
    expect(sidebar.status).toBe(404);
    expect(sidebar.json().error.message).toBe(
      'The workspace "acme" was not found. Pick one of your workspaces, or ask an admin to add you.',
    );
    expect((await carol.api('GET', '/w/no-such-ws/sidebar')).json().error.message).toBe(
      sidebar.json().error.message.replace('acme', 'no-such-ws'),
    );
    expect((await carol.api('GET', '/me')).json().workspaces.map((w: { slug: string }) => w.slug)).toEqual(['globex']);
  });

  it("does not serve another workspace's channel or DM through one's own workspace", async () => {
    for (const id of [general, dm]) {
      expect((await carol.api('GET', `/w/globex/conversations/${id}`)).status).toBe(404);
      expect((await carol.api('POST', `/w/globex/conversations/${id}/messages`, { body: 'hi' })).status).toBe(404);
    }
    expect((await carol.api('POST', `/w/globex/messages/${dmMessage}/thread`)).status).toBe(404);
    expect((await carol.api('POST', `/w/globex/channels/${general}/join`)).status).toBe(404);
    expect((await carol.api('GET', '/w/globex/search?q=quarterly')).json().results).toEqual([]);
  });

  it('finds what a person may read even when many better matches are in conversations they cannot see', async () => {
    await alice.api('POST', `/w/acme/conversations/${general}/messages`, { body: 'the osprey migration plan' });
    // Newer, equally good matches in Alice's DM with the helper: more than a page of them.
    for (let i = 0; i < 6; i++)
      await alice.api('POST', `/w/acme/conversations/${dm}/messages`, { body: `osprey migration note ${i}` });
    const { chat } = chatOf(server.app);
    const bobView = await chat.viewer((await server.app.store.people.get('bob'))!.id, 'acme');
    expect((await chat.search(bobView, 'osprey migration', 1)).map((r) => r.body)).toEqual([
      'the osprey migration plan',
    ]);
  });

  it('keeps a DM between its participants: a colleague in the same workspace cannot read, search or follow it', async () => {
    const read = await bob.api('GET', `/w/acme/conversations/${dm}`);
    expect(read.status).toBe(404);
    expect(read.json().error.message).toMatch(/no conversation .* that you can see/);
    expect((await bob.api('POST', `/w/acme/conversations/${dm}/messages`, { body: 'me too' })).status).toBe(404);
    expect((await bob.api('POST', `/w/acme/messages/${dmMessage}/thread`)).status).toBe(404);
    expect((await bob.api('GET', '/w/acme/search?q=salary')).json().results).toEqual([]);
    expect((await alice.api('GET', '/w/acme/search?q=salary')).json().results).toHaveLength(1);
    expect((await bob.api('GET', '/w/acme/sidebar')).json().conversations).toEqual([]);

    const events = await openEvents(bob, 'acme');
    try {
      await alice.api('POST', `/w/acme/conversations/${dm}/messages`, { body: 'another private note' });
      await alice.api('POST', `/w/acme/conversations/${general}/messages`, { body: 'public note' });
      await events.next((e) => e.event === 'message' && e.data.message.body === 'public note');
      expect(events.events.filter((e) => e.event === 'message').map((e) => e.data.message.body)).toEqual([
        'public note',
      ]);
    } finally {
      await events.close();
    }
  });

  it('shows a restricted channel only to its members', async () => {
    const secret = (await alice.api('POST', '/w/acme/channels', { name: 'secret', restricted: true })).json().channel
      .id;
    await alice.api('POST', `/w/acme/conversations/${secret}/messages`, { body: 'launch codename is heron' });
    expect((await bob.api('GET', '/w/acme/sidebar')).json().channels.map((c: { name: string }) => c.name)).toEqual([
      'general',
    ]);
    expect((await bob.api('GET', `/w/acme/conversations/${secret}`)).status).toBe(404);
    expect((await bob.api('POST', `/w/acme/channels/${secret}/join`)).status).toBe(404);
    expect((await bob.api('POST', `/w/acme/conversations/${secret}/messages`, { body: 'let me in' })).status).toBe(404);
    expect((await bob.api('GET', '/w/acme/search?q=heron')).json().results).toEqual([]);

    expect((await alice.api('POST', `/w/acme/channels/${secret}/members`, { handle: '@bob' })).json()).toEqual({
      added: 'bob',
      channel: 'secret',
    });
    expect((await carol.api('POST', `/w/globex/channels/${secret}/members`, { handle: 'carol' })).status).toBe(404);
    expect((await alice.api('POST', `/w/acme/channels/${secret}/members`, { handle: 'carol' })).status).toBe(404);
    expect((await bob.api('GET', `/w/acme/conversations/${secret}`)).json().messages[0].body).toBe(
      'launch codename is heron',
    );
    expect((await bob.api('POST', `/w/acme/conversations/${secret}/messages`, { body: 'thanks' })).status).toBe(201);
  });

  it('keeps a restricted workspace to the people added to it', async () => {
    await server.app.orgs.setPlan(SYSTEM, 'acme', 'team', 5000);
    await server.app.orgs.addWorkspace(SYSTEM, { name: 'Vault', org: 'acme', restricted: true });
    expect((await bob.api('GET', '/w/vault/sidebar')).status).toBe(404);
    expect((await alice.api('GET', '/w/vault/sidebar')).status).toBe(200);
    await server.app.orgs.addWorkspaceMember(SYSTEM, 'vault', 'bob', 'viewer');
    expect((await bob.api('GET', '/w/vault/sidebar')).status).toBe(200);
  });
});
