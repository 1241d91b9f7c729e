import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answer, HELP } from '../../src/demo/agent.ts';
import { chatOf } from '../../src/surfaces/web/index.ts';
import { DEMO, seedDemo, startDemo } from '../../src/demo/index.ts';
import { mountMcp } from '../../src/mcp/http.ts';
import { startTestServer, type TestServer } from '../support/web/server.ts';

describe("the demo agent's answers", () => {
  const listAgents = async () => 'LIST';

  it('answers help, agents, and echoes anything else, ignoring mentions', async () => {
    expect(await answer('@helper help', listAgents)).toBe(HELP);
    expect(await answer('@helper', listAgents)).toBe(HELP);
    expect(await answer('@demo-admin/helper Agents!', listAgents)).toBe('LIST');
    expect(await answer('@helper  what is   up?', listAgents)).toBe('You said: "what is up?"');
  });
});

describe('serve --demo', () => {
  let server: TestServer;
  let signinUrl: string;

  beforeAll(async () => {
    server = await startTestServer({ mounts: [mountMcp] });
    ({ signinUrl } = await startDemo(server));
  });
  afterAll(async () => {
    await server?.close();
  });

  it('seeds an organization, workspace, #general with a welcome, an admin and a connected demo agent', async () => {
    const { app } = server;
    expect(signinUrl).toMatch(/\/signin\?token=[\w-]{40,}$/);
    const ws = (await app.store.workspaces.get(DEMO.workspace))!;
    const admin = (await app.store.people.get(DEMO.admin))!;
    expect(await app.orgs.roleIn(admin.id, ws)).toBe('owner');
    const v = await chatOf(app).chat.viewer(admin.id, ws.slug);
    const sidebar = await chatOf(app).chat.sidebar(v);
    expect(sidebar.channels.map((c) => c.name)).toEqual(['general']);
    const history = await chatOf(app).chat.history(v, sidebar.channels[0].id);
    expect(history.messages[0]).toMatchObject({
      sender: { displayName: 'Helper' },
      body: expect.stringContaining('@helper help'),
    });
    const page = await chatOf(app).agentsPage.list(v);
    await expect
      .poll(async () => (await chatOf(app).agentsPage.list(v)).agents[0].connected, { timeout: 20_000 })
      .toBe(true);
    expect(page.agents[0]).toMatchObject({ name: `${DEMO.admin}/${DEMO.agent}`, displayName: 'Helper' });
  });

  it('gives the admin a seat and the workspace a collection with a document, which the admin may move', async () => {
    const { app } = server;
    const ws = (await app.store.workspaces.get(DEMO.workspace))!;
    const admin = (await app.store.people.get(DEMO.admin))!;
    expect((await app.store.orgs.member(ws.orgId, admin.id))?.hasSeat).toBe(true);
    const collections = await app.documents.allCollections(ws);
    expect(collections.map((c) => c.name)).toEqual(['Getting started']);
    const list = await app.documents.list(ws, { collection: collections[0].key });
    expect(list.items.map((d) => d.title)).toEqual(['How the demo works']);
    const access = (await app.documents.access(ws, admin.id, null))!;
    expect(access).toMatchObject({ role: 'owner', hasSeat: true });
  });

  it('answers a mention in #general in the same conversation, over MCP', async () => {
    const { app } = server;
    const admin = (await app.store.people.get(DEMO.admin))!;
    const { chat } = chatOf(app);
    const v = await chat.viewer(admin.id, DEMO.workspace);
    const general = (await chat.sidebar(v)).channels[0].id;
    const posted = await chat.post(v, general, '@helper agents');
    expect(posted.recipients).toEqual([expect.objectContaining({ status: 'delivered' })]);
    const reply = await app.messaging.waitForInbox(v.agent, v.workspace, 10, 20_000);
    expect(reply.items[0]).toMatchObject({
      conversation: { id: general },
      sender: { displayName: 'Helper' },
      message: { body: expect.stringContaining('Demo Admin (@demo-admin)'), replyTo: posted.message!.id },
    });
  });

  it('prints a new sign-in link on every start and gives the agent a new token, so the old one stops working', async () => {
    const { app } = server;
    const helper = (await app.store.agents.byQualifiedName(DEMO.admin, DEMO.agent))!;
    const again = await seedDemo(server);
    expect(again.firstRun).toBe(false);
    expect(again.signinUrl).not.toBe(signinUrl);
    expect((await app.agents.authenticate(again.token))?.id).toBe(helper.id);
    const ws = (await app.store.workspaces.get(DEMO.workspace))!;
    expect((await app.store.chat.listChannels(ws.id, helper.ownerId)).length).toBe(1);
    // Documents are seeded once, not again on every start.
    expect((await app.documents.allCollections(ws)).length).toBe(1);
  });
});
