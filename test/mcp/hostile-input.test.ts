import { randomUUID } from 'node:crypto';
import {
  CallToolResultSchema,
  EmptyResultSchema,
  ErrorCode,
  McpError,
  ReadResourceResultSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { EventEmitter } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../src/infra/db/client.ts';
import type { App } from '../../src/app.ts';
import { SYSTEM } from '../../src/core/actor.ts';
import { inboxTopic } from '../../src/core/messaging/messaging-service.ts';
import { openToolContext } from '../../src/mcp/context.ts';
import { ERROR_META_KEY } from '../../src/mcp/errors.ts';
import { buildMcpServer } from '../../src/mcp/server.ts';
import { findUnstorable } from '../../src/core/safe-text.ts';
import { pgliteDb } from '../support/db.ts';
import { docsWorld } from '../support/mcp/documents-world.ts';
import { connectInProcess, makeWorld, testApp, textOf, type World } from '../support/world.ts';

let db: Database;
let app: App;
let w: World;

beforeAll(async () => {
  db = await pgliteDb.open();
  app = await testApp(db);
  w = await makeWorld(app);
});
afterAll(async () => {
  await app.close();
  await db.close();
});

const codeOf = (r: CallToolResult) => (r._meta?.[ERROR_META_KEY] as { code?: string } | undefined)?.code;

/** A refusal an agent can act on: a tool error with a stable code other than INTERNAL. */
function expectRefusal(r: CallToolResult, text: RegExp) {
  expect(r.isError).toBe(true);
  expect(codeOf(r)).not.toBe('INTERNAL');
  expect(textOf(r)).not.toMatch(/Something went wrong/);
  expect(textOf(r)).toMatch(text);
}

describe('hostile tool arguments', () => {
  it('finds a NUL character or a lone surrogate in any string or key, nested or not, and names where', () => {
    expect(findUnstorable({ body: 'fine', to: ['a', 'b\0'] })).toEqual({ where: 'to[1]', what: 'nul' });
    expect(findUnstorable({ 'k\0': 1 })).toEqual({ where: 'a key', what: 'nul' });
    expect(findUnstorable({ patch: { title: '\0' } })).toEqual({ where: 'patch.title', what: 'nul' });
    expect(findUnstorable({ patch: { title: 'x\udc00' } })).toEqual({ where: 'patch.title', what: 'surrogate' });
    expect(findUnstorable({ body: 'fine \u{1F600}', limit: 3 })).toBeNull();
  });

  it('refuses a NUL byte in a message body as a tool error naming the argument, and stores nothing', async () => {
    const a = await connectInProcess(app, w.builder.agent, w.ws.slug);
    const b = await connectInProcess(app, w.reviewer.agent, w.ws.slug);
    const r = await a.call('send_message', { to: 'reviewer', body: 'before\u0000after' });
    expectRefusal(r, /`body` contains a NUL character .*remove it and call send_message again/);
    expect(codeOf(r)).toBe('INVALID_INPUT');
    expect((await b.call('check_inbox')).structuredContent).toMatchObject({ messages: [], remaining: 0 });
    await Promise.all([a.close(), b.close()]);
  });

  it('refuses a NUL byte or a lone surrogate in every text argument of every tool, never answering INTERNAL', async () => {
    const d = await docsWorld(app, 'structured');
    for (const c of [await connectInProcess(app, w.builder.agent, w.ws.slug), await d.connect('owner')]) {
      const { tools } = await c.client.listTools();
      let checked = 0;
      for (const tool of tools) {
        const props = (tool.inputSchema.properties ?? {}) as Record<
          string,
          { type?: string | string[]; anyOf?: Array<{ type?: string }> }
        >;
        for (const [name, schema] of Object.entries(props)) {
          const types = [schema.type, ...(schema.anyOf ?? []).map((s) => s.type)].flat();
          if (!types.includes('string')) continue;
          expectRefusal(
            await c.call(tool.name, { [name]: 'x\0y' }),
            new RegExp(`\`${name}\` contains a NUL character`),
          );
          for (const half of ['x\ud800', '\udfffy'])
            expectRefusal(
              await c.call(tool.name, { [name]: half }),
              new RegExp(
                `\`${name}\` contains a lone UTF-16 surrogate .*send valid Unicode and call ${tool.name} again`,
              ),
            );
          checked++;
        }
      }
      expect(checked).toBeGreaterThan(10);
      await c.close();
    }
  });

  it('stores nothing from a message with a lone surrogate, and records the refusal in the audit trail', async () => {
    const a = await connectInProcess(app, w.builder.agent, w.ws.slug);
    const b = await connectInProcess(app, w.reviewer.agent, w.ws.slug);
    const r = await a.call('send_message', { to: 'reviewer', body: 'half a \ud83d character' });
    expectRefusal(r, /`body` contains a lone UTF-16 surrogate/);
    expect(codeOf(r)).toBe('INVALID_INPUT');
    expect((await b.call('check_inbox')).structuredContent).toMatchObject({ messages: [], remaining: 0 });
    await Promise.all([a.close(), b.close()]);
  });

  it('says what to pass instead of an empty or unknown conversation id, in every tool that takes one', async () => {
    const d = await docsWorld(app, 'simplified');
    const owner = await d.connect('owner');
    const a = await connectInProcess(app, w.builder.agent, w.ws.slug);
    const doc = (await owner.call('create_document', { title: 'T', summary: 'S' })).structuredContent as
      | { identifier: string; updated_at: string }
      | undefined;
    const calls: Array<[typeof a, string, Record<string, unknown>]> = [
      [a, 'send_message', { to: ['reviewer'], body: 'hi' }],
      [a, 'search_messages', { query: 'hi' }],
      [a, 'request_approval', { title: 'Deploy' }],
    ];
    if (doc) {
      calls.push([owner, 'get_document', { document: doc.identifier }]);
      calls.push([owner, 'update_document', { document: doc.identifier, updated_at: doc.updated_at, title: 'U' }]);
      calls.push([owner, 'create_document', { title: 'Another', summary: 'S' }]);
    }
    for (const [c, tool, args] of calls) {
      expectRefusal(
        await c.call(tool, { ...args, conversation: '' }),
        /conversation id is empty; pass the conversation\.id of a message/,
      );
      for (const bad of ['not-a-conversation', randomUUID()]) {
        const r = await c.call(tool, { ...args, conversation: bad });
        expect(codeOf(r), `${tool} with conversation ${bad}`).not.toBe('INTERNAL');
        if (r.isError) expect(textOf(r)).toMatch(/conversation/i);
      }
    }
    expect(doc, 'the owner could create a document to read').toBeDefined();
    await Promise.all([a.close(), owner.close()]);
  });

  it('never answers INTERNAL to ids that are not ids', async () => {
    const a = await connectInProcess(app, w.builder.agent, w.ws.slug);
    for (const bad of ['not-an-id', randomUUID(), "'; drop table messages; --", '%ZZ']) {
      for (const [tool, args] of [
        ['send_message', { to: 'reviewer', body: 'hi', reply_to: bad }],
        ['get_approval', { approval_id: bad }],
        ['cancel_approval', { approval_id: bad }],
        ['get_document', { document: bad }],
        ['search_messages', { query: 'hi', from: bad }],
      ] as const) {
        const r = await a.call(tool, args);
        expect(codeOf(r), `${tool} ${JSON.stringify(args)}: ${textOf(r)}`).not.toBe('INTERNAL');
      }
    }
    await a.close();
  });

  it('answers arguments that are not an object with a JSON-RPC invalid-params error and a sentence', async () => {
    const a = await connectInProcess(app, w.builder.agent, w.ws.slug);
    for (const args of ['hello', ['body'], 42, null]) {
      const call = a.client.request(
        { method: 'tools/call', params: { name: 'send_message', arguments: args as never } },
        CallToolResultSchema,
      );
      const err = await call.then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, JSON.stringify(args)).toBeInstanceOf(McpError);
      expect((err as McpError).code).toBe(ErrorCode.InvalidParams);
      expect((err as McpError).message).toMatch(/`arguments` must be a JSON object of named arguments/);
    }
    // Leaving them out is fine for a tool that takes none.
    const listed = await a.client.request(
      { method: 'tools/call', params: { name: 'list_agents' } },
      CallToolResultSchema,
    );
    expect(listed.isError).toBeFalsy();
    await a.close();
  });

  it('answers a call without params, or whose name is not a string, with invalid params (-32602) and a sentence', async () => {
    const a = await connectInProcess(app, w.builder.agent, w.ws.slug);
    for (const [params, says] of [
      // (A `params` that is not an object is not JSON-RPC at all: the transport refuses it before any method.)
      [undefined, /tools\/call needs `params`: .*it is missing/],
      [{ name: null, arguments: {} }, /`params.name`: the tool's name as a string .*it is null/],
      [{ arguments: {} }, /`params.name`: the tool's name as a string .*it is missing/],
      [{ name: 42 }, /`params.name`/],
      [{ name: '' }, /`params.name`/],
    ] as const) {
      const err = await a.client.request({ method: 'tools/call', params: params as never }, CallToolResultSchema).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, JSON.stringify(params)).toBeInstanceOf(McpError);
      expect((err as McpError).code, JSON.stringify(params)).toBe(ErrorCode.InvalidParams);
      expect((err as McpError).message).toMatch(says);
    }
    await a.close();
  });
});

describe('hostile params to methods other than tools/call', () => {
  it('answers params the SDK cannot read, or a uri that is not one, with invalid params (-32602) and a sentence, never -32603', async () => {
    const a = await connectInProcess(app, w.builder.agent, w.ws.slug);
    for (const [method, params, says] of [
      ['resources/read', { uri: null }, /resources\/read cannot read `params.uri`: .*expected string/],
      ['resources/read', {}, /resources\/read cannot read `params.uri`/],
      ['resources/read', { uri: { a: 1 } }, /`params.uri`/],
      ['resources/read', { uri: 'not a uri' }, /resources\/read needs `params.uri` to be a URI/],
      ['resources/read', { uri: 'x\ud800' }, /needs `params.uri` to be a URI/],
      ['resources/subscribe', { uri: 42 }, /resources\/subscribe cannot read `params.uri`/],
    ] as const) {
      const schema = method === 'resources/read' ? ReadResourceResultSchema : EmptyResultSchema;
      const err = await a.client.request({ method, params: params as never }, schema).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, `${method} ${JSON.stringify(params)}`).toBeInstanceOf(McpError);
      expect((err as McpError).code, `${method} ${JSON.stringify(params)}`).toBe(ErrorCode.InvalidParams);
      expect((err as McpError).message).toMatch(says);
    }
    // A URI that is one, but of nothing here, was invalid params already (the SDK's own answer).
    const unknown = await a.client
      .request({ method: 'resources/read', params: { uri: 'switchboard://nothing' } }, ReadResourceResultSchema)
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect((unknown as McpError).code).toBe(ErrorCode.InvalidParams);
    // And the inbox still reads.
    const inbox = await a.client.request(
      { method: 'resources/read', params: { uri: 'switchboard://inbox' } },
      ReadResourceResultSchema,
    );
    expect(inbox.contents[0]?.uri).toBe('switchboard://inbox');
    await a.close();
  });
});

describe('a rotated token on a session nothing re-authenticates in front of (stdio)', () => {
  it('ends a waiting subscribe at once and refuses every later call, saying what to do', async () => {
    const { agent, token } = await app.agents.add(SYSTEM, {
      name: `stdio-${randomUUID().slice(0, 6)}`,
      owner: w.alice,
    });
    const name = `${w.alice}/${agent.name}`;
    await app.agents.join(SYSTEM, { agent: name, workspace: w.ws.slug });
    // What runMcpStdio sets up: the token checked on each call and when a rotation wakes a wait.
    const ctx = await openToolContext(app, agent, w.ws.slug);
    ctx.stillAuthorized = async () => (await app.agents.authenticate(token))?.id === agent.id;
    ctx.checkEachCall = true;
    const server = await buildMcpServer(ctx);
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'stdio-like', version: '1.0.0' });
    await client.connect(clientSide);
    const call = (tool: string, args: Record<string, unknown>) =>
      client.callTool({ name: tool, arguments: args }) as Promise<CallToolResult>;

    expect((await call('list_agents', {})).isError).toBeFalsy();
    const waiting = call('subscribe', { timeout_seconds: 55 });
    const listeners = () =>
      (app.notifier as unknown as { local: EventEmitter }).local.listenerCount(inboxTopic(agent.id));
    await vi.waitFor(() => expect(listeners()).toBe(1), { timeout: 10_000, interval: 10 });
    await app.agents.rotateToken(SYSTEM, name);
    const ended = await waiting;
    expect(codeOf(ended)).toBe('UNAUTHENTICATED');
    expect(textOf(ended)).toMatch(/^Your agent token was rotated/);
    const later = await call('list_agents', {});
    expect(codeOf(later)).toBe('UNAUTHENTICATED');
    await client.close();
    await server.close();
  }, 60_000);
});
