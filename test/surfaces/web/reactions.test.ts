// Reactions, edits and deletes in the web chat, through its JSON API and event
// stream, on real PostgreSQL when TEST_DATABASE_URL is set: each change
// reaches every open page of the conversation, and only those.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteDb, postgresDb } from '../../support/db.ts';
import { HttpBrowser } from '../../support/web/browser.ts';
import { seedOrg, startTestServer, type TestServer } from '../../support/web/server.ts';
import { openEvents } from '../../support/web/sse.ts';

const WAIT = 20_000;

describe('reactions, edits and deletes in the web chat', () => {
  let server: TestServer;
  let alice: HttpBrowser;
  let bob: HttpBrowser;
  let general: string;

  beforeAll(async () => {
    server = await startTestServer({ db: postgresDb() ?? pgliteDb });
    const seed = await seedOrg(server, { org: 'Acme', workspace: 'acme', admin: 'alice', member: 'bob' });
    [alice, bob] = [new HttpBrowser(server.url), new HttpBrowser(server.url)];
    await alice.signIn('alice', seed.password);
    await bob.signIn('bob', seed.password);
    general = (await alice.api('GET', '/w/acme/sidebar'))
      .json()
      .channels.find((c: { name: string }) => c.name === 'general').id;
  });
  afterAll(async () => {
    await server?.close();
  });

  const post = async (who: HttpBrowser, conversation: string, body: string) => {
    const res = await who.api('POST', `/w/acme/conversations/${conversation}/messages`, { body });
    expect(res.status).toBe(201);
    return res.json().message.id as string;
  };
  const historyOf = async (who: HttpBrowser, conversation: string) =>
    (await who.api('GET', `/w/acme/conversations/${conversation}`)).json().messages as Array<{
      id: string;
      body: string;
      editedAt: string | null;
      reactions: unknown[];
    }>;

  it('counts a reaction once per person, says whose it is, and shows it live to the others', async () => {
    const id = await post(alice, general, 'Ship it on Friday?');
    const events = await openEvents(alice, 'acme');
    try {
      const first = await bob.api('POST', `/w/acme/messages/${id}/reactions`, { emoji: 'thumbsup' });
      expect(first.status).toBe(200);
      expect(first.json().reactions).toEqual([{ emoji: 'thumbsup', count: 1, mine: true, names: ['Bob'] }]);
      // Giving it again changes nothing.
      expect(
        (await bob.api('POST', `/w/acme/messages/${id}/reactions`, { emoji: 'thumbsup' })).json().reactions,
      ).toEqual([{ emoji: 'thumbsup', count: 1, mine: true, names: ['Bob'] }]);
      const live = await events.next((e) => e.event === 'changed' && e.data.message.id === id, WAIT);
      // Alice's page sees Bob's reaction as not hers.
      expect(live.data.message.reactions).toEqual([{ emoji: 'thumbsup', count: 1, mine: false, names: ['Bob'] }]);
      expect(live.data.conversation.id).toBe(general);

      await alice.api('POST', `/w/acme/messages/${id}/reactions`, { emoji: 'thumbsup' });
      await alice.api('POST', `/w/acme/messages/${id}/reactions`, { emoji: 'tada' });
      const [mine] = (await historyOf(alice, general)).filter((m) => m.id === id);
      expect(mine.reactions).toEqual([
        { emoji: 'thumbsup', count: 2, mine: true, names: ['Bob', 'Alice'] },
        { emoji: 'tada', count: 1, mine: true, names: ['Alice'] },
      ]);

      const taken = await bob.api('DELETE', `/w/acme/messages/${id}/reactions/thumbsup`);
      expect(taken.json().reactions).toEqual([
        { emoji: 'thumbsup', count: 1, mine: false, names: ['Alice'] },
        { emoji: 'tada', count: 1, mine: false, names: ['Alice'] },
      ]);
      await events.next(
        (e) =>
          e.event === 'changed' &&
          e.data.message.id === id &&
          e.data.message.reactions[0]?.count === 1 &&
          e.data.message.reactions.length === 2,
        WAIT,
      );
    } finally {
      await events.close();
    }
  });

  it('offers a small palette, and any emoji already on the message; refuses other names with why', async () => {
    const id = await post(alice, general, 'Lunch?');
    const odd = await bob.api('POST', `/w/acme/messages/${id}/reactions`, { emoji: 'rocket' });
    expect(odd.status).toBe(400);
    expect(odd.json().error).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/not one of the reactions offered here.*thumbsup/),
    });
    // A Slack user's emoji on the message may be joined.
    await server.app.store.reactions.add((await server.app.store.workspaces.get('acme'))!.id, {
      messageId: id,
      emoji: 'rocket',
      reactor: 'identity:00000000-0000-4000-8000-000000000001',
      reactorName: 'Carol',
      surface: 'slack',
    });
    expect((await bob.api('POST', `/w/acme/messages/${id}/reactions`, { emoji: 'rocket' })).json().reactions).toEqual([
      { emoji: 'rocket', count: 2, mine: true, names: ['Carol', 'Bob'] },
    ]);
    const bad = await bob.api('POST', `/w/acme/messages/${id}/reactions`, { emoji: '<img src=x>' });
    expect(bad.status).toBe(400);
    expect(bad.json().error.message).toMatch(/emoji short name/);
    expect((await bob.api('POST', `/w/acme/messages/not-an-id/reactions`, { emoji: 'heart' })).status).toBe(400);
  });

  it('lets people edit and delete their own messages only, and every open page follows', async () => {
    const id = await post(alice, general, 'Standup at 9');
    const events = await openEvents(bob, 'acme');
    try {
      const edited = await alice.api('PATCH', `/w/acme/messages/${id}`, { body: 'Standup at **10**' });
      expect(edited.status).toBe(200);
      expect(edited.json().message).toMatchObject({
        id,
        body: 'Standup at **10**',
        html: expect.stringContaining('<strong>10</strong>'),
        editedAt: expect.any(String),
      });
      const live = await events.next((e) => e.event === 'changed' && e.data.message.id === id, WAIT);
      expect(live.data.message).toMatchObject({ body: 'Standup at **10**', editedAt: expect.any(String) });

      const notHers = await bob.api('PATCH', `/w/acme/messages/${id}`, { body: 'hijacked' });
      expect(notHers.status).toBe(403);
      expect(notHers.json().error.message).toBe('You can only edit your own messages.');
      expect((await bob.api('DELETE', `/w/acme/messages/${id}`)).json().error.message).toBe(
        'You can only delete your own messages.',
      );
      expect((await alice.api('PATCH', `/w/acme/messages/${id}`, { body: '   ' })).status).toBe(400);

      expect((await alice.api('DELETE', `/w/acme/messages/${id}`)).status).toBe(200);
      const gone = await events.next((e) => e.event === 'deleted' && e.data.id === id, WAIT);
      expect(gone.data).toEqual({ id, conversationId: general });
      expect((await historyOf(bob, general)).map((m) => m.id)).not.toContain(id);
      const again = await alice.api('DELETE', `/w/acme/messages/${id}`);
      expect(again.status).toBe(404);
      expect(again.json().error.message).toMatch(/deleted already/);
    } finally {
      await events.close();
    }
  });

  it('keeps changes in a restricted channel to its members: no reacting, no live event for others', async () => {
    const secret = (await alice.api('POST', '/w/acme/channels', { name: 'board', restricted: true })).json().channel.id;
    const id = await post(alice, secret, 'Quiet plans');
    const events = await openEvents(bob, 'acme');
    try {
      const refused = await bob.api('POST', `/w/acme/messages/${id}/reactions`, { emoji: 'eyes' });
      expect(refused.status).toBe(404);
      expect(refused.json().error.message).toMatch(/no conversation .* that you can see/);
      await alice.api('POST', `/w/acme/messages/${id}/reactions`, { emoji: 'eyes' });
      await alice.api('PATCH', `/w/acme/messages/${id}`, { body: 'Quieter plans' });
      await alice.api('DELETE', `/w/acme/messages/${id}`);
      // A change Bob may see, made after those: when it arrives, the others would have arrived before it.
      const marker = await post(alice, general, 'after the quiet ones');
      await alice.api('POST', `/w/acme/messages/${marker}/reactions`, { emoji: 'heart' });
      await events.next((e) => e.event === 'changed' && e.data.message.id === marker, WAIT);
      expect(
        events.events.filter(
          (e) => (e.event === 'changed' && e.data.message.id === id) || (e.event === 'deleted' && e.data.id === id),
        ),
      ).toEqual([]);
    } finally {
      await events.close();
    }
  });

  it('needs the CSRF token to react, edit or delete', async () => {
    const id = await post(alice, general, 'guarded');
    expect(
      (await bob.api('POST', `/w/acme/messages/${id}/reactions`, { emoji: 'heart' }, { csrf: false })).status,
    ).toBe(403);
    expect((await alice.api('PATCH', `/w/acme/messages/${id}`, { body: 'x' }, { csrf: false })).status).toBe(403);
    expect((await alice.api('DELETE', `/w/acme/messages/${id}`, undefined, { csrf: false })).status).toBe(403);
    expect((await historyOf(alice, general)).find((m) => m.id === id)).toMatchObject({
      body: 'guarded',
      editedAt: null,
      reactions: [],
    });
  });
});
