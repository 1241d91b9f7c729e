import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYSTEM } from '../../../src/core/actor.ts';
import { hashPassword, SESSION_IDLE_MS, SESSION_MAX_MS } from '../../../src/http/auth/index.ts';
import { HttpBrowser } from '../../support/web/browser.ts';
import { seedOrg, startTestServer, type TestServer } from '../../support/web/server.ts';
import { openEvents } from '../../support/web/sse.ts';

describe('the web chat event stream', () => {
  let server: TestServer;
  let alice: HttpBrowser;
  let bob: HttpBrowser;
  let password: string;

  beforeAll(async () => {
    server = await startTestServer();
    ({ password } = await seedOrg(server, { org: 'Acme', workspace: 'acme', admin: 'alice', member: 'bob' }));
    [alice, bob] = [new HttpBrowser(server.url), new HttpBrowser(server.url)];
    await alice.signIn('alice', password);
    await bob.signIn('bob', password);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('needs a session', async () => {
    const res = await fetch(`${server.url}/api/chat/w/acme/events`);
    expect(res.status).toBe(401);
  });

  it('follows channels and threads that appear after it opened', async () => {
    const events = await openEvents(bob, 'acme');
    try {
      const design = (await alice.api('POST', '/w/acme/channels', { name: 'design' })).json().channel.id;
      await events.next((e) => e.event === 'sidebar');
      await alice.api('POST', `/w/acme/conversations/${design}/messages`, { body: 'first sketch' });
      const first = await events.next((e) => e.event === 'message' && e.data.message.body === 'first sketch');
      const thread = (await alice.api('POST', `/w/acme/messages/${first.data.message.id}/thread`)).json().conversation
        .id;
      await alice.api('POST', `/w/acme/conversations/${thread}/messages`, { body: 'a detail' });
      const reply = await events.next((e) => e.event === 'message' && e.data.message.body === 'a detail');
      expect(reply.data.conversation).toMatchObject({
        id: thread,
        kind: 'thread',
        parentId: design,
        rootMessageId: first.data.message.id,
      });
    } finally {
      await events.close();
    }
  });

  it("ends an open stream once its session ends (signed out); another session's stream stays open", async () => {
    const [laptop, phone] = [new HttpBrowser(server.url), new HttpBrowser(server.url)];
    await laptop.signIn('bob', password);
    await phone.signIn('bob', password);
    const onLaptop = await openEvents(laptop, 'acme');
    const onPhone = await openEvents(phone, 'acme');
    expect((await laptop.form('/signout', {})).status).toBe(303);
    await onLaptop.ended;
    // Still open: a message reaches the phone's stream.
    await alice.api(
      'POST',
      `/w/acme/conversations/${(await alice.api('GET', '/w/acme/sidebar')).json().channels[0].id}/messages`,
      { body: 'still here?' },
    );
    await onPhone.next((e) => e.event === 'message' && e.data.message.body === 'still here?');
    await onPhone.close();
  });

  it('ends an open stream at once when its person is taken out of the organization, without waiting for a keepalive', async () => {
    const carol = await server.app.orgs.addPerson(SYSTEM, { handle: 'carol', org: 'acme', role: 'member' });
    await server.app.store.people.setPasswordHash(carol.id, await hashPassword(password));
    const tab = new HttpBrowser(server.url);
    await tab.signIn('carol', password);
    const events = await openEvents(tab, 'acme');
    const started = Date.now();
    await server.app.orgs.removePerson(SYSTEM, 'acme', 'carol');
    await events.ended;
    // A keepalive comes every 25 s here; ending well before one proves the removal itself ended it.
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 40_000);

  it('ends open streams as soon as the server stops, so shutdown does not wait for them', async () => {
    const events = await openEvents(bob, 'acme');
    const started = Date.now();
    await server.stop();
    // The HTTP close waits up to 10 s for open requests; an open stream must not make it wait that long.
    // (A few seconds can go to the test client's own aborted connections from the test before.)
    expect(Date.now() - started).toBeLessThan(8_000);
    await events.close();
  });
});

describe('an event stream left open in an idle tab', () => {
  let server: TestServer;
  let password: string;

  // Keepalives come often here so each step can wait for some; the clock is moved by hand.
  beforeAll(async () => {
    server = await startTestServer({ keepaliveMs: 200 });
    ({ password } = await seedOrg(server, { org: 'Acme', workspace: 'acme', admin: 'alice', member: 'bob' }));
  });
  afterAll(async () => {
    await server?.close();
  });

  it('ends once the session was idle too long, though its keepalives went on; the session is gone for API calls too', async () => {
    const tab = new HttpBrowser(server.url);
    await tab.signIn('bob', password);
    const events = await openEvents(tab, 'acme');
    // Half the idle time passes with keepalives sent and checked, but no request: they must not count as use.
    server.clock.advance(SESSION_IDLE_MS / 2);
    await events.keepalives(2);
    server.clock.advance(SESSION_IDLE_MS / 2 + 60_000);
    // The first keepalive check after that ends it (one already under way may still be sent).
    expect(await Promise.race([events.ended.then(() => 'ended'), events.keepalives(3).then(() => 'still open')])).toBe(
      'ended',
    );
    expect((await tab.api('GET', '/me')).status).toBe(401);
  });

  it("stays open while the tab makes requests, and ends at the session's maximum age", async () => {
    const tab = new HttpBrowser(server.url);
    await tab.signIn('bob', password);
    const events = await openEvents(tab, 'acme');
    const step = SESSION_IDLE_MS / 2 + 60_000;
    let age = 0;
    for (; age + step < SESSION_MAX_MS; age += step) {
      server.clock.advance(step);
      expect((await tab.api('GET', '/me')).status).toBe(200);
      // Past the idle time the stream opened with: it looks again, sees the request, and stays.
      await events.keepalives(2);
    }
    server.clock.advance(SESSION_MAX_MS - age);
    await events.ended;
    expect((await tab.api('GET', '/me')).status).toBe(401);
  });

  it('still ends at a keepalive once the person was removed from the organization', async () => {
    const tab = new HttpBrowser(server.url);
    await tab.signIn('bob', password);
    const events = await openEvents(tab, 'acme');
    await server.app.orgs.removePerson(SYSTEM, 'acme', 'bob');
    await events.ended;
  });
});
