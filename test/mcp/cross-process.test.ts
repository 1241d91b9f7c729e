import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { EventEmitter } from 'node:events';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../src/infra/db/client.ts';
import { SYSTEM } from '../../src/core/actor.ts';
import { inboxTopic } from '../../src/core/messaging/messaging-service.ts';
import { createMcpMount } from '../../src/mcp/http.ts';
import { INBOX_URI } from '../../src/mcp/resources.ts';
import type { Server } from '../../src/server.ts';
import { startServerForTest } from '../support/server.ts';
import { pgliteDb, twoPoolsOnOneDatabase } from '../support/db.ts';
import { makeWorld, type World } from '../support/world.ts';
import { serviceUrl } from '../support/services.ts';

/**
 * Two servers, each with its own App, notifier and HTTP port, over one database:
 * on PostgreSQL each has its own connection pool (as two processes would), so
 * a wake-up can only cross through LISTEN/NOTIFY.
 */
interface Pair {
  kind: string;
  open(): Promise<{ databases: [Database, Database]; close(): Promise<void> }>;
}

const pairs: Pair[] = [
  {
    kind: 'pglite (one embedded database, two apps)',
    async open() {
      const d = await pgliteDb.open();
      return { databases: [d, d], close: () => d.close() };
    },
  },
];
const url = serviceUrl('postgres');
if (url) {
  pairs.push({
    kind: 'postgres (two connection pools)',
    open: () => twoPoolsOnOneDatabase(url),
  });
}

async function connect(server: Server, w: World, token: string) {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/${w.ws.slug}`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'cross-process-test', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    call: (name: string, args: Record<string, unknown>) =>
      client.callTool({ name, arguments: args }) as Promise<CallToolResult>,
  };
}

describe.each(pairs)('two servers on one database: $kind', (pair) => {
  let env: Awaited<ReturnType<Pair['open']>>;
  let one: Server;
  let two: Server;
  let w: World;

  beforeAll(async () => {
    env = await pair.open();
    const start = (database: Database) => startServerForTest({ database, migrate: false, mounts: [createMcpMount()] });
    [one, two] = await Promise.all([start(env.databases[0]), start(env.databases[1])]);
    w = await makeWorld(one.app);
  });
  afterAll(async () => {
    await Promise.all([one?.stop(), two?.stop()]);
    await env?.close();
  });

  it('wakes a subscribe waiting on one server when a message is sent through the other', async () => {
    const waiter = await connect(two, w, w.reviewer.token);
    const sender = await connect(one, w, w.builder.token);
    const waiting = waiter.call('subscribe', { timeout_seconds: 55 });
    // Wait until the waiter listens on server two, so the wake-up (not the first look) is what answers it.
    const listeners = () =>
      (two.app.notifier as unknown as { local: EventEmitter }).local.listenerCount(inboxTopic(w.reviewer.agent.id));
    await vi.waitFor(() => expect(listeners()).toBe(1), { timeout: 5_000, interval: 10 });
    const started = performance.now();
    const sent = (await sender.call('send_message', { to: ['reviewer'], body: 'across the servers' }))
      .structuredContent as { message_id: string };
    const got = (await waiting).structuredContent as { messages: Array<{ id: string }>; timed_out: boolean };
    const wakeMs = performance.now() - started;
    expect(got.timed_out).toBe(false);
    expect(got.messages.map((m) => m.id)).toEqual([sent.message_id]);
    // Only the wake-up or the 55 s timeout ends the wait (there is no polling): well under it means the NOTIFY did.
    expect(wakeMs, 'woken by the other server, not by the timeout').toBeLessThan(30_000);
    await Promise.all([waiter.client.close(), sender.client.close()]);
  });

  it('ends a subscribe waiting on one server when the token is rotated through the other', async () => {
    const fresh = await one.app.agents.add(SYSTEM, { name: `rotated-${pair.kind.slice(0, 4)}`, owner: w.alice });
    const name = `${w.alice}/${fresh.agent.name}`;
    await one.app.agents.join(SYSTEM, { agent: name, workspace: w.ws.slug });
    const waiter = await connect(two, w, fresh.token);
    const waiting = waiter.call('subscribe', { timeout_seconds: 55 });
    const listeners = () =>
      (two.app.notifier as unknown as { local: EventEmitter }).local.listenerCount(inboxTopic(fresh.agent.id));
    await vi.waitFor(() => expect(listeners()).toBe(1), { timeout: 10_000, interval: 10 });
    const started = performance.now();
    await one.app.agents.rotateToken(SYSTEM, name);
    const r = await waiting;
    expect(r.isError).toBe(true);
    expect((r.content[0] as { text: string }).text).toMatch(/token was rotated/);
    expect(performance.now() - started, 'ended by the rotation, not by its 55 s timeout').toBeLessThan(30_000);
    await waiter.client.close();
  }, 60_000);

  it('refuses a token on one server once it was rotated through the other, although that server had signed it in before', async () => {
    const fresh = await one.app.agents.add(SYSTEM, { name: `signed-in-${pair.kind.slice(0, 4)}`, owner: w.alice });
    const name = `${w.alice}/${fresh.agent.name}`;
    await one.app.agents.join(SYSTEM, { agent: name, workspace: w.ws.slug });
    // Signed in on the second server (its sign-in read is now kept in its read cache).
    const before = await connect(two, w, fresh.token);
    expect((await before.call('list_agents', {})).isError).toBeFalsy();
    await before.client.close();
    const { token } = await one.app.agents.rotateToken(SYSTEM, name);
    // The rotation changes the agents table; the second server drops what it kept once the change reaches it.
    await vi.waitFor(
      async () => {
        expect(await two.app.agents.authenticate(fresh.token)).toBeNull();
      },
      { timeout: 20_000, interval: 50 },
    );
    await expect(connect(two, w, fresh.token)).rejects.toThrow(/401|token/i);
    const after = await connect(two, w, token);
    expect((await after.call('list_agents', {})).isError).toBeFalsy();
    await after.client.close();
  });

  it('notifies an inbox resource subscriber on one server of a message sent through the other', async () => {
    const watcher = await connect(two, w, w.builder.token);
    const sender = await connect(one, w, w.reviewer.token);
    const updated = new Promise<string>((resolve) =>
      watcher.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolve(n.params.uri)),
    );
    await watcher.client.subscribeResource({ uri: INBOX_URI });
    await sender.call('send_message', { to: ['builder'], body: 'resource ping' });
    expect(await updated).toBe(INBOX_URI);
    await Promise.all([watcher.client.close(), sender.client.close()]);
  });
});
