import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { EventEmitter } from 'node:events';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../src/infra/db/client.ts';
import { SYSTEM } from '../../src/core/actor.ts';
import { inboxTopic } from '../../src/core/messaging/messaging-service.ts';
import { ERROR_META_KEY } from '../../src/mcp/errors.ts';
import { createMcpMount, mcpSessions } from '../../src/mcp/http.ts';
import type { Server } from '../../src/server.ts';
import { startServerForTest } from '../support/server.ts';
import { pgliteDb } from '../support/db.ts';
import { makeWorld, textOf, type World } from '../support/world.ts';

let db: Database;
let server: Server;
let w: World;
/** The sessions' clock: idle time passes only when a test moves it, and sweeps run when a test calls them. */
let now = Date.now();

beforeAll(async () => {
  db = await pgliteDb.open();
  server = await startServerForTest({
    database: db,
    migrate: false,
    mounts: [createMcpMount({ idleMs: 60_000, sweepMs: 3_600_000, now: () => now })],
  });
  w = await makeWorld(server.app);
});
afterAll(async () => {
  await server?.stop();
  await db?.close();
});

const endpoint = (ws = w.ws.slug) => `${server.url}/mcp/${ws}`;

async function connect(token: string, ws = w.ws.slug) {
  const transport = new StreamableHTTPClientTransport(new URL(endpoint(ws)), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'switchboard-http-test', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    transport,
    call: (name: string, args: Record<string, unknown> = {}) =>
      client.callTool({ name, arguments: args }) as Promise<CallToolResult>,
  };
}

/** A raw MCP POST, for the status codes an SDK client hides. */
function post(body: unknown, headers: Record<string, string> = {}, ws = w.ws.slug) {
  return fetch(endpoint(ws), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
}
const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** One more agent of alice's (her plan allows five), made once for the tests that need an inbox of their own. */
let spareAgent: Promise<{ agent: { id: string }; token: string }> | null = null;
const spare = () =>
  (spareAgent ??= server.app.agents.add(SYSTEM, { name: 'dropper', owner: w.alice }).then(async (a) => {
    await server.app.agents.join(SYSTEM, { agent: `${w.alice}/dropper`, workspace: w.ws.slug });
    return a;
  }));

describe('MCP over Streamable HTTP', () => {
  it('lets two agents message each other with the SDK client, a reply arriving through subscribe', async () => {
    const a = await connect(w.builder.token);
    const b = await connect(w.reviewer.token);
    expect((await a.client.listTools()).tools.map((t) => t.name)).toContain('subscribe');
    const waiting = a.call('subscribe', { timeout_seconds: 20 });
    const sent = (await b.call('send_message', { to: ['builder'], body: 'ready for review?' })).structuredContent as {
      message_id: string;
    };
    const got = (await waiting).structuredContent as { messages: Array<{ id: string; body: string }> };
    expect(got.messages.map((m) => m.id)).toEqual([sent.message_id]);
    const search = (await a.call('search_messages', { query: 'review' })).structuredContent as { results: unknown[] };
    expect(search.results).toHaveLength(1);
    await a.transport.terminateSession();
    await Promise.all([a.client.close(), b.client.close()]);
  }, 60_000); // two HTTP clients, a wait and a search: room for a loaded machine

  it('answers 401 with a WWW-Authenticate challenge when the token is missing or wrong', async () => {
    const missing = await post(initialize);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="switchboard"');
    expect((await missing.json()).error_description).toContain('Authorization: Bearer <token>');

    const wrong = await post(initialize, { authorization: 'Bearer sb_not-a-real-token' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toMatch(
      /^Bearer realm="switchboard", error="invalid_token", error_description="That agent token is not valid/,
    );
  });

  it('answers 403 with a sentence when the agent is not a member of the workspace', async () => {
    const outsider = await server.app.agents.add(SYSTEM, { name: `outsider`, owner: w.bob });
    const res = await post(initialize, { authorization: `Bearer ${outsider.token}` });
    expect(res.status).toBe(403);
    expect((await res.json()).error.message).toBe(
      `${w.bob}/outsider is not a member of the workspace "${w.ws.slug}"; ask its owner to run \`switchboard agent join ${w.bob}/outsider ${w.ws.slug}\`.`,
    );
    await expect(connect(outsider.token)).rejects.toThrow(/not a member of the workspace/);
  });

  it('answers 404 for an unknown workspace and for an unknown session id', async () => {
    const auth = { authorization: `Bearer ${w.builder.token}` };
    expect((await post(initialize, auth, 'no-such-workspace')).status).toBe(404);
    const res = await post(
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { ...auth, 'mcp-session-id': '6d0c3f0e-0000-4000-8000-000000000000' },
    );
    expect(res.status).toBe(404);
    expect((await res.json()).error.message).toMatch(/Session not found.*initialize again/);
  });

  it('works the way the MCP Inspector CLI connects: fixed Accept and Content-Type headers, arguments typed from the schema', async () => {
    // The Inspector's CLI sends these headers on every request (GET and DELETE too) and turns
    // `--tool-arg key=value` strings into numbers or JSON by each property's schema type.
    const transport = new StreamableHTTPClientTransport(new URL(endpoint()), {
      requestInit: {
        headers: {
          Accept: 'application/json, text/event-stream',
          'Content-Type': 'application/json',
          Authorization: `Bearer ${w.reviewer.token}`,
        },
      },
    });
    const client = new Client({ name: 'inspector-cli', version: '0.0.0' });
    await client.connect(transport);
    const { tools } = await client.listTools();
    const typed = (tool: string, raw: Record<string, string>) => {
      const props = (tools.find((t) => t.name === tool)!.inputSchema.properties ?? {}) as Record<
        string,
        { type?: string }
      >;
      return Object.fromEntries(
        Object.entries(raw).map(([k, v]) => [
          k,
          props[k]?.type === 'number' || props[k]?.type === 'integer'
            ? Number(v)
            : props[k]?.type === 'array'
              ? JSON.parse(v)
              : v,
        ]),
      );
    };
    const sent = (await client.callTool({
      name: 'send_message',
      arguments: typed('send_message', { to: `["builder"]`, body: 'from the inspector' }),
    })) as CallToolResult;
    expect(sent.structuredContent).toMatchObject({ recipients: [{ to: 'builder', status: 'delivered' }] });
    const one = (await client.callTool({
      name: 'send_message',
      arguments: typed('send_message', { to: 'builder', body: 'one name, as the CLI sends it' }),
    })) as CallToolResult;
    expect(one.structuredContent).toMatchObject({ recipients: [{ to: 'builder', status: 'delivered' }] });
    const waited = (await client.callTool({
      name: 'subscribe',
      arguments: typed('subscribe', { timeout_seconds: '0.1' }),
    })) as CallToolResult;
    expect(waited.isError).toBeFalsy();
    await transport.terminateSession();
    await client.close();
  });

  it('answers a body that is not JSON with a JSON-RPC parse error', async () => {
    const res = await fetch(endpoint(), {
      method: 'POST',
      body: '{"jsonrpc": "2.0", "id": 1, "method":',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${w.builder.token}`,
      },
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toEqual({
      code: -32700,
      message: 'Parse error: the request body is not valid JSON.',
    });
  });

  it('accepts the workspace id as well as its slug', async () => {
    const c = await connect(w.builder.token, w.ws.id);
    expect((await c.call('list_agents')).isError).toBeFalsy();
    await c.client.close();
  });

  it('refuses a session opened by another agent', async () => {
    const a = await connect(w.builder.token);
    const res = await post(
      { jsonrpc: '2.0', id: 3, method: 'tools/list' },
      {
        authorization: `Bearer ${w.reviewer.token}`,
        'mcp-session-id': a.transport.sessionId!,
        'mcp-protocol-version': '2025-06-18',
      },
    );
    expect(res.status).toBe(403);
    await a.client.close();
  });

  it('stops a rotated token at once, even in the middle of a session', async () => {
    const fresh = await server.app.agents.add(SYSTEM, { name: 'rotator', owner: w.alice });
    await server.app.agents.join(SYSTEM, { agent: `${w.alice}/rotator`, workspace: w.ws.slug });
    const c = await connect(fresh.token);
    expect((await c.call('list_agents')).isError).toBeFalsy();
    const id = c.transport.sessionId!;
    const { token: next } = await server.app.agents.rotateToken(SYSTEM, `${w.alice}/rotator`);
    await expect(c.call('list_agents')).rejects.toThrow(/401|not valid/);
    // Its open notification stream does not outlive the token either.
    await vi.waitFor(() => expect(mcpSessions(server.app)!.get(id)).toBeUndefined(), { timeout: 10_000, interval: 50 });
    const again = await connect(next);
    expect((await again.call('list_agents')).isError).toBeFalsy();
    await Promise.all([c.client.close(), again.client.close()]);
  });

  it('ends a subscribe already waiting when the token is rotated, with a sentence, long before its timeout', async () => {
    const fresh = await server.app.agents.add(SYSTEM, { name: 'waiter', owner: w.alice });
    await server.app.agents.join(SYSTEM, { agent: `${w.alice}/waiter`, workspace: w.ws.slug });
    const c = await connect(fresh.token);
    const id = c.transport.sessionId!;
    const started = Date.now();
    const waiting = c.call('subscribe', { timeout_seconds: 55 });
    const listeners = () =>
      (server.app.notifier as unknown as { local: EventEmitter }).local.listenerCount(inboxTopic(fresh.agent.id));
    await vi.waitFor(() => expect(listeners()).toBe(1), { timeout: 10_000, interval: 10 });
    await server.app.agents.rotateToken(SYSTEM, `${w.alice}/waiter`);
    const r = await waiting;
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/^Your agent token was rotated, so this session no longer works/);
    expect(r._meta?.[ERROR_META_KEY]).toEqual({ code: 'UNAUTHENTICATED' });
    expect(Date.now() - started, 'ended by the rotation, not by its 55 s timeout').toBeLessThan(30_000);
    await expect(c.call('list_agents')).rejects.toThrow(/401|not valid/);
    await vi.waitFor(() => expect(mcpSessions(server.app)!.get(id)).toBeUndefined(), { timeout: 10_000, interval: 50 });
    await c.client.close();
  }, 60_000);

  it('closes a session on DELETE and after idle time; its id then gets 404', async () => {
    const a = await connect(w.builder.token);
    const id = a.transport.sessionId!;
    await a.transport.terminateSession();
    expect(mcpSessions(server.app)!.get(id)).toBeUndefined();
    await a.client.close();

    const b = await connect(w.builder.token);
    const idle = b.transport.sessionId!;
    await b.client.close(); // closes the notification stream, leaving the session idle
    await vi.waitFor(() => expect(mcpSessions(server.app)!.get(idle)?.inFlight).toBe(0), {
      timeout: 10_000,
      interval: 20,
    });
    await mcpSessions(server.app)!.sweep();
    expect(mcpSessions(server.app)!.get(idle), 'not idle long enough yet').toBeDefined();
    now += 61_000;
    await mcpSessions(server.app)!.sweep();
    expect(mcpSessions(server.app)!.get(idle)).toBeUndefined();
    const res = await post(
      { jsonrpc: '2.0', id: 4, method: 'tools/list' },
      { authorization: `Bearer ${w.builder.token}`, 'mcp-session-id': idle },
    );
    expect(res.status).toBe(404);
  });

  it('cancels a waiting subscribe whose client hung up, so the next message stays unread for the next call', async () => {
    const fresh = await spare();
    const c = await connect(fresh.token);
    const hangUp = new AbortController();
    const headers = {
      authorization: `Bearer ${fresh.token}`,
      'mcp-session-id': c.transport.sessionId!,
      'mcp-protocol-version': c.transport.protocolVersion ?? '2025-06-18',
    };
    const raw = fetch(endpoint(), {
      method: 'POST',
      signal: hangUp.signal,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 901,
        method: 'tools/call',
        params: { name: 'subscribe', arguments: { timeout_seconds: 55 } },
      }),
    })
      .then((r) => r.text())
      .catch(() => 'hung up');
    const listeners = () =>
      (server.app.notifier as unknown as { local: EventEmitter }).local.listenerCount(inboxTopic(fresh.agent.id));
    await vi.waitFor(() => expect(listeners()).toBe(1), { timeout: 10_000, interval: 10 });
    hangUp.abort();
    expect(await raw).toBe('hung up');
    // The wait ends with the connection, long before its 55 s; it would otherwise take the next message to a closed socket.
    await vi.waitFor(() => expect(listeners()).toBe(0), { timeout: 20_000, interval: 20 });
    const b = await connect(w.builder.token);
    await b.call('send_message', { to: 'dropper', body: 'are you still there?' });
    const got = (await c.call('check_inbox')).structuredContent as { messages: Array<{ body: string }> };
    expect(got.messages.map((m) => m.body)).toEqual(['are you still there?']);
    await Promise.all([c.client.close(), b.client.close()]);
  }, 60_000);

  it('hands back unread what a take marked read when its request was cancelled while the take ran', async () => {
    const fresh = await spare();
    const c = await connect(fresh.token);
    const b = await connect(w.builder.token);
    await b.call('send_message', { to: 'dropper', body: 'first' });
    const headers = {
      authorization: `Bearer ${fresh.token}`,
      'mcp-session-id': c.transport.sessionId!,
      'mcp-protocol-version': c.transport.protocolVersion ?? '2025-06-18',
    };
    const take = server.app.store.messages.takeUnread.bind(server.app.store.messages);
    const spy = vi.spyOn(server.app.store.messages, 'takeUnread').mockImplementationOnce(async (...args) => {
      const got = await take(...args);
      // The client cancels while the take is on its way back (the SDK then drops the call's answer).
      const cancel = await post(
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 902, reason: 'changed my mind' } },
        headers,
      );
      expect(cancel.status).toBe(202);
      return got;
    });
    const stream = new AbortController();
    const raw = fetch(endpoint(), {
      method: 'POST',
      signal: stream.signal,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 902,
        method: 'tools/call',
        params: { name: 'check_inbox', arguments: {} },
      }),
    })
      .then((r) => r.text())
      .catch(() => 'no answer');
    await vi.waitFor(() => expect(spy).toHaveBeenCalledTimes(1), { timeout: 10_000, interval: 10 });
    await vi.waitFor(async () => expect(await server.app.store.messages.unreadCount(fresh.agent.id, w.ws.id)).toBe(1), {
      timeout: 10_000,
      interval: 20,
    });
    stream.abort();
    expect(await raw).toBe('no answer');
    spy.mockRestore();
    const got = (await c.call('check_inbox')).structuredContent as { messages: Array<{ body: string }> };
    expect(got.messages.map((m) => m.body)).toEqual(['first']);
    await Promise.all([c.client.close(), b.client.close()]);
  }, 60_000);

  it('keeps a session alive while a subscribe is waiting', async () => {
    const a = await connect(w.reviewer.token);
    const id = a.transport.sessionId!;
    const waiting = a.call('subscribe', { timeout_seconds: 30 });
    const listeners = () =>
      (server.app.notifier as unknown as { local: EventEmitter }).local.listenerCount(inboxTopic(w.reviewer.agent.id));
    await vi.waitFor(() => expect(listeners()).toBe(1), { timeout: 10_000, interval: 10 });
    now += 61_000;
    await mcpSessions(server.app)!.sweep();
    expect(mcpSessions(server.app)!.get(id)).toBeDefined();
    const b = await connect(w.builder.token);
    await b.call('send_message', { to: 'reviewer', body: 'still there?' });
    expect(((await waiting).structuredContent as { timed_out: boolean }).timed_out).toBe(false);
    await Promise.all([a.client.close(), b.client.close()]);
  });
});

describe('stopping the server', () => {
  it('answers waiting subscribe calls at once, then closes the sessions, instead of waiting for them', async () => {
    const own = await startServerForTest({ database: db, migrate: false, mounts: [createMcpMount()] });
    const quiet = await spare();
    const transport = new StreamableHTTPClientTransport(new URL(`${own.url}/mcp/${w.ws.slug}`), {
      requestInit: { headers: { Authorization: `Bearer ${quiet.token}` } },
    });
    const client = new Client({ name: 'stop-test', version: '1.0.0' });
    await client.connect(transport);
    const waiting = client.callTool({
      name: 'subscribe',
      arguments: { timeout_seconds: 50 },
    }) as Promise<CallToolResult>;
    const listeners = () =>
      (own.app.notifier as unknown as { local: EventEmitter }).local.listenerCount(inboxTopic(quiet.agent.id));
    await vi.waitFor(() => expect(listeners()).toBe(1), { timeout: 5_000, interval: 10 });
    const started = Date.now();
    await own.stop();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(mcpSessions(own.app)!.size).toBe(0);
    // The call was answered before its session closed (nothing arrived), so the client has an answer, not a hang.
    expect((await waiting).structuredContent).toMatchObject({ messages: [], timed_out: true });
    await client.close();
  });
});
