import { describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { docsWorld } from '../support/mcp/documents-world.ts';
import { appPerFile, connectInProcess, makeWorld, textOf } from '../support/world.ts';

let app: App;
appPerFile((a) => {
  app = a;
});

type Schema = {
  type?: string;
  description?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
};

/** Every property (nested objects and array items too) that has no description, as tool.path. */
function undescribed(tool: string, props: Record<string, Schema>, at = ''): string[] {
  return Object.entries(props).flatMap(([name, s]) => {
    const path = `${tool}.${at}${name}`;
    const own = s.description?.trim() ? [] : [path];
    const nested = [s, s.items, ...(s.anyOf ?? [])].flatMap((x) =>
      x?.properties ? undescribed(tool, x.properties, `${at}${name}.`) : [],
    );
    return [...own, ...nested];
  });
}

describe('the tool catalogue', () => {
  it('describes every parameter of every tool, for every role and kind of workspace', async () => {
    expect(
      undescribed('t', { a: {}, b: { description: 'ok', items: { properties: { c: {} } } } }),
      'the check itself finds gaps',
    ).toEqual(['t.a', 't.b.c']);
    const seen = new Set<string>();
    for (const kind of ['structured', 'simplified'] as const) {
      const d = await docsWorld(app, kind);
      for (const who of ['owner', 'viewer'] as const) {
        const c = await d.connect(who);
        const { tools } = await c.client.listTools();
        for (const t of tools) {
          seen.add(t.name);
          expect(t.description?.trim(), `${t.name} has a description`).toBeTruthy();
          expect(undescribed(t.name, (t.inputSchema.properties ?? {}) as Record<string, Schema>)).toEqual([]);
        }
        await c.close();
      }
    }
    // The parameters the issue named, among every tool both kinds of workspace list.
    expect([...seen]).toEqual(
      expect.arrayContaining([
        'subscribe',
        'search_messages',
        'list_documents',
        'search_documents',
        'create_collection',
        'update_workspace_instructions',
        'request_approval',
      ]),
    );
  });

  it('annotates every tool truthfully: what only reads, what replaces or cannot be undone, what is safe to repeat, what reaches people outside', async () => {
    // [readOnlyHint, destructiveHint, idempotentHint, openWorldHint], per the MCP spec's ToolAnnotations: destructive unless it only adds.
    const reads = [true, false, true, false];
    const expected: Record<string, boolean[]> = {
      list_agents: reads,
      search_messages: reads,
      get_approval: reads,
      list_intake: reads,
      get_intake: reads,
      get_workspace_information: reads,
      get_workspace_informations: reads,
      list_documents: reads,
      search_documents: reads,
      get_document: reads,
      get_available_collection_types: reads,
      send_message: [false, false, false, true],
      check_inbox: [false, false, false, false],
      subscribe: [false, false, false, false],
      set_status: [false, false, true, true],
      start_message: [false, false, false, true],
      append_message: [false, false, false, true],
      finish_message: [false, false, false, true],
      request_approval: [false, false, false, true],
      cancel_approval: [false, true, true, true],
      file_intake: [false, false, false, false],
      update_intake: [false, true, false, true],
      create_document: [false, false, false, false],
      update_document: [false, true, true, false],
      create_collection: [false, false, false, false],
      update_collection_instructions: [false, true, true, false],
      update_workspace_instructions: [false, true, true, false],
    };
    const seen: Record<string, boolean[]> = {};
    for (const kind of ['structured', 'simplified'] as const) {
      const c = await (await docsWorld(app, kind)).connect('owner');
      for (const t of (await c.client.listTools()).tools) {
        const a = t.annotations ?? {};
        seen[t.name] = [a.readOnlyHint, a.destructiveHint, a.idempotentHint, a.openWorldHint] as boolean[];
      }
      await c.close();
    }
    expect(seen).toEqual(expected);
  });

  it('accepts a string `to` as one recipient', async () => {
    const w = await makeWorld(app);
    const a = await connectInProcess(app, w.builder.agent, w.ws.slug);
    const b = await connectInProcess(app, w.reviewer.agent, w.ws.slug);
    const { tools } = await a.client.listTools();
    const to = (
      tools.find((t) => t.name === 'send_message')!.inputSchema.properties as Record<
        string,
        Schema & { anyOf?: Array<{ type?: string }> }
      >
    ).to;
    expect(to.anyOf?.map((s) => s.type)).toEqual(['string', 'array']);
    const r = await a.call('send_message', { to: 'reviewer', body: 'one name, no list' });
    expect(r.structuredContent).toMatchObject({ recipients: [{ to: 'reviewer', status: 'delivered' }] });
    // Clients that type arguments by `type` alone (the MCP Inspector CLI) send a list as its JSON text.
    const listed = await a.call('send_message', { to: '["reviewer", "nobody-here"]', body: 'a list as text' });
    expect(listed.structuredContent).toMatchObject({
      recipients: [
        { to: 'reviewer', status: 'delivered' },
        { to: 'nobody-here', status: 'refused' },
      ],
    });
    const broken = await a.call('send_message', { to: '["reviewer"', body: 'x' });
    expect(textOf(broken)).toMatch(/starts like a JSON list but is not one/);
    expect((await b.call('check_inbox')).structuredContent).toMatchObject({
      messages: [{ body: 'one name, no list' }, { body: 'a list as text' }],
    });
    const empty = await a.call('send_message', { to: '', body: 'x' });
    expect(empty.isError).toBe(true);
    expect(textOf(empty)).toMatch(/recipient is empty; name an agent/);
    await Promise.all([a.close(), b.close()]);
  });

  it('names the workspace tool in correct English and keeps the old name as a deprecated alias answering the same', async () => {
    const d = await docsWorld(app, 'structured');
    const c = await d.connect('viewer');
    const { tools } = await c.client.listTools();
    const alias = tools.find((t) => t.name === 'get_workspace_informations');
    expect(tools.map((t) => t.name)).toContain('get_workspace_information');
    expect(alias?.description).toMatch(/^Deprecated name of get_workspace_information/);
    const now = await c.call('get_workspace_information');
    const old = await c.call('get_workspace_informations');
    expect(now.isError).toBeFalsy();
    expect(old.structuredContent).toEqual(now.structuredContent);
    expect((now.structuredContent as { access: { tools: string[] } }).access.tools).toContain(
      'get_workspace_information',
    );
    await c.close();
  });
});
