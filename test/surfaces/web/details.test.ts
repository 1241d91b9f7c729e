// The web chat's details that are data rather than looks: where a search hit
// was said, one MCP server name per agent, and the demo agent's token.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../../src/cli/control.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import { DEMO_AGENT, seedDemo } from '../../../src/demo/index.ts';
import { hashPassword } from '../../../src/http/auth/index.ts';
import { mcpServerName } from '../../../src/surfaces/web/mcp-config.ts';
import { HttpBrowser } from '../../support/web/browser.ts';
import { startTestServer, type TestServer } from '../../support/web/server.ts';

describe('web chat details', () => {
  let server: TestServer;
  let admin: HttpBrowser;
  let demoToken: string;
  let general: string;

  beforeAll(async () => {
    server = await startTestServer();
    demoToken = (await seedDemo(server)).token;
    const person = (await server.app.store.people.get('demo-admin'))!;
    await server.app.store.people.setPasswordHash(person.id, await hashPassword('correct horse battery'));
    admin = new HttpBrowser(server.url);
    await admin.signIn('demo-admin', 'correct horse battery');
    general = (await admin.api('GET', '/w/demo/sidebar'))
      .json()
      .channels.find((c: { name: string }) => c.name === 'general').id;
  });
  afterAll(async () => {
    await server?.close();
  });

  it('names the channel of a hit, and for a thread both the thread and the channel it hangs off', async () => {
    const root = (
      await admin.api('POST', `/w/demo/conversations/${general}/messages`, { body: 'Planning the zeppelin launch' })
    ).json().message;
    const thread = (await admin.api('POST', `/w/demo/messages/${root.id}/thread`)).json().conversation.id;
    await admin.api('POST', `/w/demo/conversations/${thread}/messages`, {
      body: 'The zeppelin needs <b>helium</b> first',
    });
    const hits = (await admin.api('GET', '/w/demo/search?q=zeppelin')).json().results as Array<Record<string, any>>;
    const inChannel = hits.find((h) => h.body.startsWith('Planning'))!;
    expect(inChannel.conversation).toMatchObject({ id: general, kind: 'channel', title: '#general' });
    expect(inChannel.parent).toBeNull();
    const inThread = hits.find((h) => h.body.includes('helium'))!;
    expect(inThread.conversation).toMatchObject({
      id: thread,
      kind: 'thread',
      title: 'Planning the zeppelin launch',
      parentId: general,
    });
    expect(inThread.parent).toEqual({ id: general, kind: 'channel', title: '#general' });
    expect(inThread.snippet).toContain('**zeppelin**');
    // Markup the snippet drops does not count as words left out; a long message is cut on both sides.
    expect(inChannel.cut).toEqual({ before: false, after: false });
    expect(inThread.cut).toEqual({ before: false, after: false });
    const long = `${'alpha '.repeat(30)}zeppelin ${'omega '.repeat(30)}`.trim();
    await admin.api('POST', `/w/demo/conversations/${general}/messages`, { body: `**Note:** ${long}` });
    const cut = (
      (await admin.api('GET', '/w/demo/search?q=zeppelin')).json().results as Array<Record<string, any>>
    ).find((h) => h.body.includes('alpha'))!;
    expect(cut.cut).toEqual({ before: true, after: true });
  });

  it('gives each agent and workspace its own MCP server name in the snippets, so one client can hold several agents', async () => {
    const one = (await admin.api('POST', '/w/demo/agents', { name: 'scout' })).json();
    const two = (await admin.api('POST', '/w/demo/agents', { name: 'scribe.bot' })).json();
    expect(one.config.server).toBe('switchboard-scout-demo');
    expect(two.config.server).toBe('switchboard-scribe-bot-demo');
    expect(one.config.clients[0].text).toBe(
      `claude mcp add --transport http switchboard-scout-demo ${server.app.config.publicUrl}/mcp/demo --header "Authorization: Bearer ${one.token}"`,
    );
    for (const c of two.config.clients.slice(1)) {
      const servers = JSON.parse(c.text).mcpServers ?? JSON.parse(c.text).servers;
      expect(Object.keys(servers)).toEqual(['switchboard-scribe-bot-demo']);
    }
    expect(mcpServerName('Team Room', 'alice/Builder')).toBe('switchboard-builder-team-room');
  });

  it("refuses to rotate the demo agent's token from the web and the CLI with the reason, and the demo agent keeps its token", async () => {
    const helper = (await server.app.store.agents.byQualifiedName('demo-admin', 'helper'))!;
    const card = (await admin.api('GET', '/w/demo/agents'))
      .json()
      .agents.find((a: { id: string }) => a.id === helper.id);
    expect(card).toMatchObject({
      mine: true,
      tokenHeld: expect.stringMatching(/^demo-admin\/helper is the demo agent/),
    });
    const refused = await admin.api('POST', `/w/demo/agents/${helper.id}/rotate-token`);
    expect(refused.status).toBe(403);
    expect(refused.json().error.message).toMatch(
      /cannot be rotated by hand\. Create an agent of your own to connect an MCP client\.$/,
    );
    const cli = await runCommand(server.app, 'agent rotate-token', { agent: DEMO_AGENT });
    expect(cli).toMatchObject({ ok: false });
    expect(JSON.stringify(cli)).toContain('is the demo agent');
    expect((await server.app.agents.authenticate(demoToken))?.id).toBe(helper.id);
    // Any other agent still rotates.
    const scout = (await server.app.store.agents.byQualifiedName('demo-admin', 'scout'))!;
    expect((await admin.api('POST', `/w/demo/agents/${scout.id}/rotate-token`)).status).toBe(200);
    // The next start renews the demo agent's token itself, and only then does the old one stop working.
    const next = (await seedDemo(server)).token;
    expect(await server.app.agents.authenticate(demoToken)).toBeNull();
    expect((await server.app.agents.authenticate(next))?.id).toBe(helper.id);
    await expect(server.app.agents.rotateToken(SYSTEM, DEMO_AGENT)).rejects.toMatchObject({ code: 'NOT_PERMITTED' });
  });
});
