import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYSTEM } from '../../../src/core/actor.ts';
import type { Agent, Workspace } from '../../../src/core/entities.ts';
import { pgliteDb, postgresDb } from '../../support/db.ts';
import { HttpBrowser } from '../../support/web/browser.ts';
import { seedOrg, startTestServer, type TestServer } from '../../support/web/server.ts';
import { openEvents } from '../../support/web/sse.ts';
import { chatOf } from '../../../src/surfaces/web/index.ts';

// What is tested is the web chat's HTTP API and its rules; the reads that differ by database (who may read what) run on
// both in isolation.test.ts. PostgreSQL when there is one.
describe.each([postgresDb() ?? pgliteDb])('the web chat on $kind', (db) => {
  let server: TestServer;
  let ws: Workspace;
  let helper: Agent;
  let alice: HttpBrowser;
  let bob: HttpBrowser;
  let general: string;

  beforeAll(async () => {
    server = await startTestServer({ db });
    const seed = await seedOrg(server, { org: 'Acme', workspace: 'acme', admin: 'alice', member: 'bob' });
    ws = seed.ws;
    const { app } = server;
    ({ agent: helper } = await app.agents.add(SYSTEM, {
      name: 'helper',
      owner: 'alice',
      displayName: 'Helper',
      avatarUrl: 'https://example.com/helper.png',
      roleLine: 'Helps',
    }));
    await app.agents.join(SYSTEM, { agent: 'alice/helper', workspace: 'acme' });
    alice = new HttpBrowser(server.url);
    bob = new HttpBrowser(server.url);
    await alice.signIn('alice', seed.password);
    await bob.signIn('bob', seed.password);
    const sidebar = (await alice.api('GET', '/w/acme/sidebar')).json();
    general = sidebar.channels.find((c: { name: string }) => c.name === 'general').id;
  });
  afterAll(async () => {
    await server?.close();
  });

  /** What the agent does over MCP, done through the domain: wait for its inbox, answer in the same conversation. */
  async function agentAnswers(reply: (body: string) => string) {
    const got = await server.app.messaging.waitForInbox(helper, ws, 10, 5_000);
    expect(got.items.length).toBeGreaterThan(0);
    const item = got.items.at(-1)!;
    await server.app.messaging.send({
      workspace: ws,
      sender: helper,
      conversationId: item.conversation.id,
      body: reply(item.message.body),
    });
    return item;
  }

  it('gives everyone #general, and lists the workspaces a person can reach', async () => {
    const me = (await bob.api('GET', '/me')).json();
    expect(me.workspaces).toEqual([{ slug: 'acme', name: 'acme', role: 'viewer' }]);
    const sidebar = (await bob.api('GET', '/w/acme/sidebar')).json();
    expect(sidebar.channels).toEqual([expect.objectContaining({ name: 'general', member: true, restricted: false })]);
    expect((await bob.api('POST', `/w/acme/channels/${general}/leave`)).json().error.message).toMatch(
      /stays in #general/,
    );
  });

  it("delivers a channel message to the agents it mentions; the reply arrives live with the agent's name and avatar", async () => {
    const events = await openEvents(bob, 'acme');
    try {
      const posted = await alice.api('POST', `/w/acme/conversations/${general}/messages`, {
        body: 'Hi @helper, what can you do?',
      });
      expect(posted.status).toBe(201);
      expect(posted.json().recipients).toEqual([expect.objectContaining({ to: 'alice/helper', status: 'delivered' })]);
      const item = await agentAnswers((b) => `You said: ${b}`);
      expect(item.conversation.id).toBe(general);
      const live = await events.next((e) => e.event === 'message' && e.data.message.sender.id === helper.id);
      expect(live.data.conversation).toMatchObject({ id: general, kind: 'channel', title: '#general' });
      expect(live.data.message).toMatchObject({
        body: 'You said: Hi @helper, what can you do?',
        html: '<p>You said: Hi <span class="mention">@helper</span>, what can you do?</p>',
        sender: {
          displayName: 'Helper',
          avatarUrl: 'https://example.com/helper.png',
          label: 'alice/helper',
          kind: 'agent',
        },
      });
      // Bob saw both messages without opening #general: two unread.
      const sidebar = (await bob.api('GET', '/w/acme/sidebar')).json();
      expect(sidebar.channels.find((c: { id: string }) => c.id === general).unread).toBe(2);
      const history = (await bob.api('GET', `/w/acme/conversations/${general}`)).json();
      expect(history.messages.map((m: { body: string }) => m.body)).toEqual([
        'Hi @helper, what can you do?',
        'You said: Hi @helper, what can you do?',
      ]);
      expect(history.messages[0].html).toBe('<p>Hi <span class="mention">@helper</span>, what can you do?</p>');
      expect((await bob.api('GET', '/w/acme/sidebar')).json().channels[0].unread).toBe(0);
      // The reply went to Alice, who asked: it is in her inbox.
      const inbox = (await alice.api('GET', '/w/acme/inbox')).json();
      expect(inbox.items[0]).toMatchObject({
        kind: 'mention',
        unread: true,
        message: { sender: { displayName: 'Helper' } },
      });
      expect((await alice.api('GET', '/w/acme/sidebar')).json().inboxUnread).toBe(0);
    } finally {
      await events.close();
    }
  });

  it('posts a message that mentions nobody to the channel only, and says when a mention matches no one', async () => {
    const plain = (
      await bob.api('POST', `/w/acme/conversations/${general}/messages`, { body: 'Lunch at noon?' })
    ).json();
    expect(plain.message.body).toBe('Lunch at noon?');
    expect(plain.recipients).toEqual([]);
    expect(await server.app.store.messages.unreadCount(helper.id, ws.id)).toBe(0);
    const typo = (await bob.api('POST', `/w/acme/conversations/${general}/messages`, { body: 'ping @helpr' })).json();
    expect(typo.message).not.toBeNull();
    // The web chat names agents as people type them there, the same sentence every surface gives (resolveNames).
    expect(typo.notices[0]).toBe('There is no agent @helpr in this workspace; did you mean @helper?');
  });

  it('opens a thread on a message; mentions in it reach the agent, whose reply lands in the thread', async () => {
    const root = (
      await bob.api('POST', `/w/acme/conversations/${general}/messages`, { body: 'Release checklist' })
    ).json().message;
    const thread = (await bob.api('POST', `/w/acme/messages/${root.id}/thread`)).json().conversation.id;
    expect((await alice.api('POST', `/w/acme/messages/${root.id}/thread`)).json().conversation.id).toBe(thread);
    await bob.api('POST', `/w/acme/conversations/${thread}/messages`, { body: '@helper please draft it' });
    const item = await agentAnswers(() => 'Draft: 1. tests 2. notes');
    expect(item.conversation).toMatchObject({ id: thread, kind: 'thread' });
    const view = (await alice.api('GET', `/w/acme/conversations/${thread}`)).json();
    expect(view.conversation).toMatchObject({ kind: 'thread', parentId: general, rootMessageId: root.id });
    expect(view.root.body).toBe('Release checklist');
    expect(view.messages.map((m: { body: string }) => m.body)).toEqual([
      '@helper please draft it',
      'Draft: 1. tests 2. notes',
    ]);
    const channel = (await alice.api('GET', `/w/acme/conversations/${general}`)).json();
    expect(channel.messages.find((m: { id: string }) => m.id === root.id).thread).toMatchObject({
      conversationId: thread,
      replies: 2,
    });
    expect((await alice.api('POST', `/w/acme/messages/${view.messages[0].id}/thread`)).json().error.message).toMatch(
      /Threads do not nest/,
    );
  });

  it('sends a DM to the agent and shows the DM with its unread reply in the sidebar', async () => {
    const dm = (await bob.api('POST', '/w/acme/dms', { agentId: helper.id })).json().conversation.id;
    const sent = (await bob.api('POST', `/w/acme/conversations/${dm}/messages`, { body: 'help' })).json();
    expect(sent.recipients).toEqual([expect.objectContaining({ agent_id: helper.id, status: 'delivered' })]);
    await agentAnswers(() => 'Here is some help.');
    const sidebar = (await bob.api('GET', '/w/acme/sidebar')).json();
    expect(sidebar.conversations).toEqual([
      expect.objectContaining({ id: dm, kind: 'dm', title: 'Helper', unread: 1 }),
    ]);
    // The DM reply, and the agent's answer in the thread Bob wrote in earlier.
    expect(sidebar.inboxUnread).toBe(2);
    const inbox = (await bob.api('GET', '/w/acme/inbox')).json();
    expect(inbox.items[0]).toMatchObject({ kind: 'dm', unread: true, message: { body: 'Here is some help.' } });
  });

  it('creates, joins and leaves channels', async () => {
    const created = await alice.api('POST', '/w/acme/channels', { name: '#Design', description: 'UI talk' });
    expect(created.status).toBe(201);
    const id = created.json().channel.id;
    expect(created.json().channel.name).toBe('design');
    expect((await alice.api('POST', '/w/acme/channels', { name: 'design' })).status).toBe(409);
    expect((await alice.api('POST', '/w/acme/channels', { name: 'no spaces please' })).json().error.message).toMatch(
      /not a valid channel name/,
    );
    const refused = await bob.api('POST', `/w/acme/conversations/${id}/messages`, { body: 'hello' });
    expect(refused.json().error.message).toBe('Join #design to post in it.');
    expect((await bob.api('POST', `/w/acme/channels/${id}/join`)).status).toBe(200);
    expect((await bob.api('POST', `/w/acme/conversations/${id}/messages`, { body: 'hello' })).status).toBe(201);
    await bob.api('POST', `/w/acme/channels/${id}/leave`);
    const sidebar = (await bob.api('GET', '/w/acme/sidebar')).json();
    expect(sidebar.channels.find((c: { id: string }) => c.id === id)).toMatchObject({ member: false, unread: 0 });
  });

  it('searches what the person can see', async () => {
    const hits = (await bob.api('GET', '/w/acme/search?q=checklist')).json().results;
    expect(hits.map((h: { body: string }) => h.body)).toContain('Release checklist');
    expect(hits[0].conversation.title).toBe('#general');
    expect((await bob.api('GET', '/w/acme/search?q=')).status).toBe(400);
  });

  it('creates an agent with its token shown once and a ready MCP configuration; rotating replaces the token', async () => {
    const created = await bob.api('POST', '/w/acme/agents', {
      name: 'scout',
      displayName: 'Scout',
      roleLine: 'Finds things',
    });
    expect(created.status).toBe(201);
    const { agent, token, config } = created.json();
    expect(agent).toMatchObject({ name: 'bob/scout', displayName: 'Scout', mine: true, connected: false });
    expect(config.url).toBe(`${server.app.config.publicUrl}/mcp/acme`);
    expect(config.header).toBe(`Authorization: Bearer ${token}`);
    expect(config.clients.map((c: { id: string }) => c.id)).toEqual(['claude-code', 'cursor', 'vscode', 'generic']);
    expect(config.clients[1].text).toContain(token);
    // Using the token counts as being connected.
    expect((await server.app.agents.authenticate(token))?.id).toBe(agent.id);
    const page = (await bob.api('GET', '/w/acme/agents')).json();
    expect(page.agents.find((a: { id: string }) => a.id === agent.id)).toMatchObject({
      connected: true,
      owner: { handle: 'bob' },
      roleLine: 'Finds things',
    });
    expect(page.agents.find((a: { id: string }) => a.id === helper.id)).toMatchObject({
      mine: false,
      connected: false,
    });
    expect(page.people.map((p: { handle: string }) => p.handle)).toEqual(['alice', 'bob']);
    const rotated = (await bob.api('POST', `/w/acme/agents/${agent.id}/rotate-token`)).json();
    expect(rotated.token).not.toBe(token);
    expect(await server.app.agents.authenticate(token)).toBeNull();
    // Bob may not rotate Alice's agent; nor may Alice, an admin, rotate Bob's (she would be shown its token).
    expect((await bob.api('POST', `/w/acme/agents/${helper.id}/rotate-token`)).status).toBe(403);
    const byAdmin = await alice.api('POST', `/w/acme/agents/${agent.id}/rotate-token`);
    expect(byAdmin.status).toBe(403);
    expect(byAdmin.json().error.message).toMatch(/^Only @bob, its owner, can rotate bob\/.+'s token here/);
    expect(byAdmin.json().token).toBeUndefined();
    expect((await server.app.agents.authenticate(rotated.token))?.id).toBe(agent.id);
    expect((await bob.api('POST', '/w/acme/agents', { name: 'Bad Name' })).json().error.message).toMatch(
      /not a valid agent name/,
    );
  });

  it('marks read only the inbox items it shows, so older unread ones stay on the badge until their page is shown', async () => {
    const badge = async () => (await bob.api('GET', '/w/acme/sidebar')).json().inboxUnread;
    await bob.api('GET', '/w/acme/inbox');
    expect(await badge()).toBe(0);
    const { agent: bobAgent } = await chatOf(server.app).chat.viewer(
      (await server.app.store.people.get('bob'))!.id,
      'acme',
    );
    const system = await server.app.orgs.systemAgent();
    for (let i = 1; i <= 52; i++) await server.app.messaging.notice(ws, system, bobAgent, `Notice ${i}`);
    expect(await badge()).toBe(52);

    const inbox = (await bob.api('GET', '/w/acme/inbox')).json();
    expect(inbox.items).toHaveLength(50);
    expect(inbox.items.every((i: { unread: boolean }) => i.unread)).toBe(true);
    expect(inbox.items.map((i: { message: { body: string } }) => i.message.body)).not.toContain('Notice 2');
    // Notices 1 and 2 were not shown: they are still unread.
    expect(await badge()).toBe(2);
    expect(inbox).toMatchObject({ page: 1, older: true });

    // The older page shows them (and what was there before), marks them read, and says nothing older follows.
    const older = (await bob.api('GET', '/w/acme/inbox?page=2')).json();
    expect(older).toMatchObject({ page: 2, older: false });
    const bodies = older.items.map((i: { message: { body: string } }) => i.message.body);
    expect(bodies.slice(0, 2)).toEqual(['Notice 2', 'Notice 1']);
    expect(bodies).toContain('Here is some help.');
    expect(await badge()).toBe(0);
    // A page past the end is empty; a page that is not a whole number from 1 up is refused with why.
    expect((await bob.api('GET', '/w/acme/inbox?page=3')).json()).toEqual({ items: [], page: 3, older: false });
    for (const bad of ['0', 'two', '1.5', '-1', '99999']) {
      const r = await bob.api('GET', `/w/acme/inbox?page=${bad}`);
      expect(r.status).toBe(400);
      expect(r.json().error).toMatchObject({
        code: 'INVALID_INPUT',
        message: expect.stringMatching(/^page: must be a whole number from 1 to 10000/),
      });
    }
  });
});
