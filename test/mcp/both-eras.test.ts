// Clients of both protocol families against the same endpoint: the 1.x SDK's client (2025-11-25, a session) and
// the 2.x SDK's client pinned to 2026-07-28 (no session: each of its requests goes to the next of two servers
// sharing one database, as behind a load balancer without sticky sessions).
import { Client as ModernClient, type FetchLike, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport as LegacyInMemory } from '@modelcontextprotocol/sdk/inMemory.js';
import { type CallToolResult, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryTransport as ServerInMemory } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SYSTEM } from '../../src/core/actor.ts';
import { LIVE_PAYLOAD, type LiveEvent } from '../../src/core/live/live-service.ts';
import { conversationTopic } from '../../src/core/messaging/messaging-service.ts';
import { ERROR_META_KEY } from '../../src/mcp/errors.ts';
import type { Database } from '../../src/infra/db/client.ts';
import { createMcpMount } from '../../src/mcp/http.ts';
import { openToolContext } from '../../src/mcp/context.ts';
import { INBOX_URI } from '../../src/mcp/resources.ts';
import { buildMcpServer } from '../../src/mcp/server.ts';
import { serveConnection } from '../../src/mcp/stdio.ts';
import type { Server } from '../../src/server.ts';
import { pgliteDb, twoPoolsOnOneDatabase } from '../support/db.ts';
import { serviceUrl } from '../support/services.ts';
import { startServerForTest } from '../support/server.ts';
import { docsWorld } from '../support/mcp/documents-world.ts';
import { makeWorld, type World } from '../support/world.ts';

const MODERN = '2026-07-28';

/** One database for two servers: two PostgreSQL pools (as two processes), or one PGlite without PostgreSQL. */
async function sharedDatabase(): Promise<{ databases: [Database, Database]; close(): Promise<void> }> {
  const url = serviceUrl('postgres');
  if (url) return twoPoolsOnOneDatabase(url);
  const d = await pgliteDb.open();
  return { databases: [d, d], close: () => d.close() };
}

let env: Awaited<ReturnType<typeof sharedDatabase>>;
let servers: [Server, Server];
let w: World;

beforeAll(async () => {
  env = await sharedDatabase();
  const start = (database: Database, statusTimeoutMs?: number) =>
    startServerForTest({
      database,
      migrate: false,
      mounts: [createMcpMount()],
      ...(statusTimeoutMs ? { live: { statusTimeoutMs } } : {}),
    });
  // The first server lets a forgotten status go after a moment, the second after the usual two minutes.
  servers = [await start(env.databases[0], 300), await start(env.databases[1])];
  w = await makeWorld(servers[0].app);
});
afterAll(async () => {
  await Promise.all(servers?.map((s) => s.stop()) ?? []);
  await env?.close();
});

/** Where the client's requests went: the index of the server that answered each. */
type Hits = number[];

/**
 * A 2.x client speaking 2026-07-28 whose requests go to the two servers in turn (the URL it is given is the first
 * server's; each request is sent to the next one).
 */
async function modern(token: string, opts: { elicit?: boolean; workspace?: string } = {}) {
  const hits: Hits = [];
  let next = 0;
  const roundRobin: FetchLike = (url, init) => {
    const i = next++ % servers.length;
    hits.push(i);
    return fetch(String(url).replace(servers[0].url, servers[i].url), init);
  };
  const client = new ModernClient(
    { name: 'modern-test', version: '1.0.0' },
    {
      versionNegotiation: { mode: { pin: MODERN } },
      ...(opts.elicit ? { capabilities: { elicitation: { form: {} } } } : {}),
    },
  );
  const transport = new StreamableHTTPClientTransport(new URL(`${servers[0].url}/mcp/${opts.workspace ?? w.ws.slug}`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    fetch: roundRobin,
  });
  await client.connect(transport);
  return {
    client,
    hits,
    /** Sends the next request to this server. */
    next: (i: number) => {
      next = i;
    },
    call: (name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args }),
  };
}

/** A 1.x client (a 2025-11-25 session) on one server. */
async function legacy(token: string, server = servers[0], workspace = w.ws.slug) {
  const client = new LegacyClient({ name: 'legacy-test', version: '1.0.0' });
  await client.connect(
    new LegacyTransport(new URL(`${server.url}/mcp/${workspace}`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return {
    client,
    call: (name: string, args: Record<string, unknown> = {}) =>
      client.callTool({ name, arguments: args }) as Promise<CallToolResult>,
  };
}

describe('one endpoint, both protocol families', () => {
  it('negotiates 2026-07-28 with a 2.x client and 2025-11-25 with a 1.x one, listing the same tools', async () => {
    const m = await modern(w.builder.token);
    const l = await legacy(w.builder.token);
    expect(m.client.getProtocolEra()).toBe('modern');
    expect(l.client.getServerCapabilities()).toBeTruthy();
    const [mt, lt] = await Promise.all([m.client.listTools(), l.client.listTools()]);
    expect(mt.tools.map((t) => t.name)).toEqual(lt.tools.map((t) => t.name));
    const r = await m.call('list_agents');
    expect(r.isError).toBeFalsy();
    expect(new Set(m.hits)).toEqual(new Set([0, 1]));
    await Promise.all([m.client.close(), l.client.close()]);
  });
});

type Out = Record<string, any>;
type State = Record<string, string>;

/**
 * Every tool once, in an order where each finds what the earlier ones made: the tool, its arguments from what is
 * known so far, and what to remember of its result. `era` keeps the two passes apart.
 */
type Step = [string, (s: State, era: string) => Record<string, unknown>, ((o: Out, s: State) => void)?];
const STEPS: Step[] = [
  ['list_agents', () => ({})],
  [
    'send_message',
    (_s, era) => ({ to: ['viewer-bot'], body: `hello from the ${era} client` }),
    (o, s) => {
      s.conversation = o.conversation_id;
      s.message = o.message_id;
    },
  ],
  ['check_inbox', () => ({})],
  ['subscribe', () => ({ timeout_seconds: 0.2 })],
  ['search_messages', (_s, era) => ({ query: era })],
  ['set_status', (s) => ({ conversation: s.conversation, text: 'thinking' })],
  ['start_message', (s) => ({ conversation: s.conversation, text: 'a long' }), (o, s) => (s.stream = o.stream_id)],
  ['append_message', (s) => ({ stream_id: s.stream, text: ' answer' })],
  ['finish_message', (s) => ({ stream_id: s.stream })],
  ['get_workspace_information', () => ({})],
  ['get_workspace_informations', () => ({})],
  ['get_available_collection_types', () => ({})],
  [
    'create_collection',
    (_s, era) => ({ type: 'notes', name: `Notes ${era}` }),
    (o, s) => (s.collection = o.identifier),
  ],
  ['update_collection_instructions', (s) => ({ collection: s.collection, instructions: 'Keep notes short.' })],
  [
    'create_document',
    (s, era) => ({ collection: s.collection, title: `Plan ${era}`, summary: 'What we plan', content: 'Steps' }),
    (o, s) => {
      s.document = o.identifier;
      s.version = o.updated_at;
    },
  ],
  ['list_documents', (s) => ({ collection: s.collection })],
  ['search_documents', (_s, era) => ({ query: era })],
  ['get_document', (s) => ({ document: s.document })],
  ['update_document', (s) => ({ document: s.document, updated_at: s.version, summary: 'What we now plan' })],
  ['request_approval', (_s, era) => ({ title: `Ship the ${era} plan` }), (o, s) => (s.approval = o.approval_id)],
  ['get_approval', (s) => ({ approval_id: s.approval })],
  ['cancel_approval', (s) => ({ approval_id: s.approval })],
  [
    'file_intake',
    (s, era) => ({ title: `Asked by the ${era} client`, kind: 'question', source_message_ids: [s.message] }),
    (o, s) => (s.intake = o.item.id),
  ],
  ['update_intake', (s) => ({ id: s.intake, status: 'triaged', note: 'Looking into it' })],
  ['list_intake', () => ({})],
  ['get_intake', (s) => ({ id: s.intake })],
];

/** What only a Simplified workspace has: its owner writes the workspace's instructions, and documents have no collection. */
const SIMPLIFIED_STEPS: Step[] = [
  ['update_workspace_instructions', (_s, era) => ({ instructions: `Written by the ${era} client.` })],
  [
    'create_document',
    (_s, era) => ({ title: `Memo ${era}`, summary: 'A memo' }),
    (o, s) => (s.document = o.identifier),
  ],
  ['get_document', (s) => ({ document: s.document })],
];

/** What a result was: ok, or the refusal's code and sentence. */
function outcome(r: { isError?: boolean; _meta?: Record<string, unknown>; content?: unknown[] }): string {
  if (!r.isError) return 'ok';
  const code = (r._meta?.[ERROR_META_KEY] as { code?: string } | undefined)?.code;
  return `refused ${code}: ${(r.content?.[0] as { text?: string } | undefined)?.text}`;
}

describe('every tool from both protocol families', () => {
  /**
   * Runs `steps` as the owner's agent of a fresh workspace of `kind`, once from a 1.x client (a session on the
   * second server) and once from a 2.x client speaking 2026-07-28 (its requests spread over both servers), and
   * returns what each tool answered, with the tools listed.
   */
  async function bothPasses(kind: 'structured' | 'simplified', steps: Step[]) {
    const d = await docsWorld(servers[0].app, kind);
    const { token } = await servers[0].app.agents.rotateToken(SYSTEM, `${d.people.owner}/owner-bot`);
    const l = await legacy(token, servers[1], d.ws.slug);
    const m = await modern(token, { workspace: d.ws.slug });
    const listed = (await m.client.listTools()).tools.map((t) => t.name);
    expect((await l.client.listTools()).tools.map((t) => t.name)).toEqual(listed);
    const pass = async (era: string, call: (name: string, args: Record<string, unknown>) => Promise<Out>) => {
      const s: State = {};
      const seen: Array<[string, string, string[]]> = [];
      for (const [tool, args, remember] of steps) {
        const r = await call(tool, args(s, era));
        seen.push([tool, outcome(r), Object.keys(r.structuredContent ?? {}).sort()]);
        if (!r.isError) remember?.(r.structuredContent, s);
      }
      return seen;
    };
    const legacyPass = await pass('legacy', l.call as never);
    const modernPass = await pass('modern', m.call as never);
    expect(new Set(m.hits), 'both servers answered the 2026-07-28 client').toEqual(new Set([0, 1]));
    await Promise.all([m.client.close(), l.client.close()]);
    return { listed, legacyPass, modernPass };
  }

  it('answers every tool alike to a 2025-11-25 session and to 2026-07-28 requests spread over two servers', async () => {
    const structured = await bothPasses('structured', STEPS);
    const simplified = await bothPasses('simplified', SIMPLIFIED_STEPS);
    expect(
      new Set([...STEPS, ...SIMPLIFIED_STEPS].map(([tool]) => tool)),
      'the tables cover every tool an owner lists in either kind of workspace',
    ).toEqual(new Set([...structured.listed, ...simplified.listed]));
    for (const { legacyPass, modernPass } of [structured, simplified]) {
      expect(legacyPass.filter(([, o]) => o !== 'ok')).toEqual([]);
      expect(modernPass).toEqual(legacyPass);
    }
  });
});

describe('push to a 2026-07-28 client', () => {
  it('tells a listening client of each message landing in its own inbox, sent through either server, and of no one else’s', async () => {
    const m = await modern(w.reviewer.token);
    const updates: string[] = [];
    let arrived: (() => void) | null = null;
    m.client.setNotificationHandler('notifications/resources/updated', (n) => {
      updates.push(n.params.uri);
      arrived?.();
    });
    const subscription = await m.client.listen({ resourceSubscriptions: [INBOX_URI] });
    expect(subscription.honoredFilter.resourceSubscriptions).toEqual([INBOX_URI]);
    const next = () =>
      new Promise<void>((resolve) => {
        arrived = resolve;
      });
    // Through the server that does not hold the stream, and through the one that does: one update each.
    for (const server of servers) {
      const sender = await legacy(w.builder.token, server);
      // A message for someone else first: it must not reach this stream.
      await servers[0].app.messaging.send({
        workspace: w.ws,
        sender: w.reviewer.agent,
        to: ['builder'],
        body: 'not for the listener',
        surface: 'mcp',
      });
      const landed = next();
      await sender.call('send_message', { to: ['reviewer'], body: `through ${server.url}` });
      await landed;
      await sender.client.close();
    }
    expect(updates).toEqual([INBOX_URI, INBOX_URI]);
    // The 1.x session's own push (resources/subscribe) keeps working next to it: see cross-process.test.ts.
    await subscription.close();
    expect(await subscription.closed).toBe('local');
    await m.client.close();
  });

  it('ends the listen stream gracefully when the token is rotated through the other server, and when the server stops', async () => {
    const fresh = await servers[0].app.agents.add(SYSTEM, { name: 'listener', owner: w.alice });
    await servers[0].app.agents.join(SYSTEM, { agent: `${w.alice}/listener`, workspace: w.ws.slug });
    const m = await modern(fresh.token);
    const subscription = await m.client.listen({ resourceSubscriptions: [INBOX_URI] });
    await servers[0].app.agents.rotateToken(SYSTEM, `${w.alice}/listener`);
    expect(await subscription.closed).toBe('graceful');
    await m.client.close();
  });
});

describe('approvals asked of the owner in a 2026-07-28 call', () => {
  it('asks the owner in the call’s own rounds, which any server may take, and settles the approval with the answer', async () => {
    const m = await modern(w.builder.token, { elicit: true });
    const asked: string[] = [];
    m.client.setRequestHandler('elicitation/create', async (req) => {
      asked.push(req.params.message);
      return { action: 'accept', content: { decision: 'approve', reason: 'Ship it' } };
    });
    const before = m.hits.length;
    const r = await m.call('request_approval', { title: 'Deploy #9', ask_owner_here: true });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ status: 'approved', asked_here: true });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('“Deploy #9”');
    // Two rounds (the question, then the answer), each to another server.
    expect(new Set(m.hits.slice(before))).toEqual(new Set([0, 1]));
    const seen = await m.call('get_approval', { approval_id: (r.structuredContent as Out).approval_id });
    expect(seen.structuredContent).toMatchObject({
      status: 'approved',
      decided_by: w.alice,
      via: 'mcp',
      reason: 'Ship it',
    });
    await m.client.close();
  });

  it('leaves it pending when the owner declines, and does not ask a client that cannot show a form', async () => {
    const m = await modern(w.builder.token, { elicit: true });
    m.client.setRequestHandler('elicitation/create', async () => ({ action: 'decline' }));
    const declined = await m.call('request_approval', { title: 'Rotate keys', ask_owner_here: true });
    expect(declined.structuredContent).toMatchObject({ status: 'pending', asked_here: true });
    expect((declined.content[0] as { text: string }).text).toMatch(/^Your owner did not decide here \(decline\)/);
    await m.client.close();

    const plain = await modern(w.builder.token);
    const r = await plain.call('request_approval', { title: 'Rotate more keys', ask_owner_here: true });
    expect(r.structuredContent).toMatchObject({ status: 'pending', asked_here: false });
    expect((r.content[0] as { text: string }).text).toMatch(/does not support elicitation/);
    await plain.client.close();
  });

  it('reports a decision made elsewhere while the owner was asked, instead of the owner’s late answer', async () => {
    const m = await modern(w.builder.token, { elicit: true });
    m.client.setRequestHandler('elicitation/create', async () => {
      // Someone decides on the web while the form is open in the client.
      const [pending] = (await servers[1].app.store.approvals.listPending(w.ws.id)).filter(
        (a) => a.title === 'Drop the table',
      );
      const alice = (await servers[1].app.store.people.get(w.alice))!;
      await servers[1].app.approvals.decide({
        approvalId: pending.id,
        workspaceId: w.ws.id,
        decision: 'rejected',
        decider: { personId: alice.id, role: 'owner' },
        via: 'web',
      });
      return { action: 'accept', content: { decision: 'approve' } };
    });
    const r = await m.call('request_approval', { title: 'Drop the table', ask_owner_here: true });
    expect(r.structuredContent).toMatchObject({ status: 'rejected', asked_here: true });
    expect((r.content[0] as { text: string }).text).toMatch(
      /^It was settled elsewhere while your owner was asked here: Rejected by/,
    );
    await m.client.close();
  });

  it('refuses a round whose carried state was tampered with', async () => {
    const m = await modern(w.builder.token, { elicit: true });
    const raw = await m.client
      .request({
        method: 'tools/call',
        params: { name: 'request_approval', arguments: { title: 'Forged' }, requestState: 'v1.forged.state' } as never,
      })
      .then(
        () => null,
        (e: unknown) => e as { code?: number },
      );
    expect(raw?.code).toBe(-32602);
    await m.client.close();
  });
});

describe('streamed messages without a session', () => {
  it('passes appends and the finish to the server holding the stream, a long text in parts, for its owner only', async () => {
    const m = await modern(w.builder.token);
    const started = (await m.call('start_message', { to: ['reviewer'], text: 'Report: ' })).structuredContent as Out;
    // Longer than one NOTIFY carries, with characters of several bytes.
    const long = 'ünïcødé ✓ \u{1F600} '.repeat(600);
    const appended = await m.call('append_message', { stream_id: started.stream_id, text: long });
    expect(appended.structuredContent).toMatchObject({ length: 'Report: '.length + long.length });
    // Another agent naming the stream hears what an unknown id gets, from either server.
    const other = await modern(w.reviewer.token);
    const refused = await other.call('append_message', { stream_id: started.stream_id, text: 'mine now' });
    expect(refused.isError).toBe(true);
    expect(refused._meta?.[ERROR_META_KEY]).toMatchObject({ code: 'NOT_FOUND' });
    const finished = await m.call('finish_message', { stream_id: started.stream_id, text: 'end.' });
    expect(finished.isError).toBeFalsy();
    const id = (finished.structuredContent as Out).message_id;
    const [stored] = (await servers[1].app.messaging.checkInbox(w.reviewer.agent, w.ws, 100)).items.filter(
      (i) => i.message.id === id,
    );
    expect(stored.message.body).toBe(`Report: ${long}end.`.trim());
    // The text kept in the store as it grew is closed by the process that stored it: no other process stores it again.
    const kept = await servers[1].app.store.outbox.get(id);
    expect(kept).toMatchObject({ topic: 'live.rescue', status: 'done' });
    await servers[1].app.live.rescue(kept!.payload);
    await servers[0].app.live.rescue(kept!.payload);
    expect(await servers[0].app.store.messages.get(w.ws.id, id)).toMatchObject({ body: stored.message.body });
    expect(new Set(m.hits), 'the calls reached both servers').toEqual(new Set([0, 1]));
    await Promise.all([m.client.close(), other.client.close()]);
  });
});

describe('what a 2026-07-28 request reads again', () => {
  it("sees the owner's seat taken away at once on the server that took it, and on the other once it hears of it", async () => {
    const d = await docsWorld(servers[0].app, 'structured');
    const { token } = await servers[0].app.agents.rotateToken(SYSTEM, `${d.people.writer}/writer-bot`);
    const m = await modern(token, { workspace: d.ws.slug });
    const seat = async (server: number) => {
      m.next(server);
      const r = await m.call('get_workspace_information');
      expect(m.hits.at(-1)).toBe(server);
      return (r.structuredContent as Out).access.has_seat as boolean;
    };
    // Both servers have read the owner's seat (and keep it until it changes).
    expect([await seat(0), await seat(1), await seat(0), await seat(1)]).toEqual([true, true, true, true]);
    await servers[1].app.orgs.setSeat(SYSTEM, d.org, d.people.writer, false);
    expect(await seat(1)).toBe(false);
    await vi.waitFor(async () => expect(await seat(0)).toBe(false), { timeout: 20_000, interval: 50 });
    await m.client.close();
  });

  it('reads the database at most three times for a check_inbox', async () => {
    const m = await modern(w.builder.token);
    const trips: number[] = [];
    for (const server of [0, 1, 0, 1]) {
      const db = servers[server].app.database;
      m.next(server);
      const before = db.queries();
      expect((await m.call('check_inbox')).isError).toBeFalsy();
      trips.push(db.queries() - before);
    }
    // The inbox itself, the workspace's collections (for the server's instructions) and the statement around them;
    // the token, the workspace, the agent's standing and its owner's role and seat come from the read cache.
    // The least of four, as other work may run meanwhile.
    expect(Math.min(...trips)).toBeLessThanOrEqual(3);
    await m.client.close();
  });
});

describe('statuses without a session', () => {
  /** An agent's status lines in a conversation, as the web chat hears them through the first server. */
  async function statusLines(conversationId: string) {
    const events: LiveEvent[] = [];
    const stop = await servers[0].app.notifier.subscribe(conversationTopic(conversationId), (p) => {
      if (p.startsWith(LIVE_PAYLOAD)) events.push(JSON.parse(p.slice(LIVE_PAYLOAD.length)) as LiveEvent);
    });
    const last = (agentId: string) => events.filter((e) => e.agent_id === agentId).at(-1)?.status;
    const cleared = (agentId: string) =>
      events.some((e) => e.agent_id === agentId && e.status === null && e.stream === null);
    return { last, cleared, stop };
  }

  async function conversationWithReviewer(m: Awaited<ReturnType<typeof modern>>, body: string): Promise<string> {
    const sent = await m.call('send_message', { to: ['reviewer'], body });
    return (sent.structuredContent as Out).conversation_id;
  }

  it('clears a status set through one server when the answer goes through the other', async () => {
    const m = await modern(w.builder.token);
    const conversation = await conversationWithReviewer(m, 'status check');
    const shown = await statusLines(conversation);
    m.next(1);
    await m.call('set_status', { conversation, text: 'is reading the logs…' });
    await vi.waitFor(() => expect(shown.last(w.builder.agent.id)).toBe('is reading the logs…'));
    // The answer goes through the first server; the status, held by the second for two minutes, goes with it.
    await m.call('send_message', { conversation, body: 'All green.' });
    expect(m.hits.slice(-2)).toEqual([1, 0]);
    await vi.waitFor(() => expect(shown.last(w.builder.agent.id)).toBeNull(), { timeout: 5_000 });
    await shown.stop();
    await m.client.close();
  });

  it('clears a status set through one server when a streamed answer begins through the other', async () => {
    const m = await modern(w.builder.token);
    const conversation = await conversationWithReviewer(m, 'stream check');
    const shown = await statusLines(conversation);
    m.next(1);
    await m.call('set_status', { conversation, text: 'is drafting…' });
    await vi.waitFor(() => expect(shown.last(w.builder.agent.id)).toBe('is drafting…'));
    const started = (await m.call('start_message', { conversation, text: 'Here it comes' })).structuredContent as Out;
    expect(m.hits.slice(-2)).toEqual([1, 0]);
    // The status's own clearing (no stream in it), not the stream's updates.
    await vi.waitFor(() => expect(shown.cleared(w.builder.agent.id)).toBe(true), { timeout: 5_000 });
    await m.call('finish_message', { stream_id: started.stream_id });
    await shown.stop();
    await m.client.close();
  });

  it('never lets the timer of a status on one server clear a newer status set through the other', async () => {
    const m = await modern(w.builder.token);
    const other = await modern(w.reviewer.token);
    const conversation = await conversationWithReviewer(m, 'timer check');
    const shown = await statusLines(conversation);
    m.next(0);
    await m.call('set_status', { conversation, text: 'is reading' });
    await m.call('set_status', { conversation, text: 'is writing' });
    expect(m.hits.slice(-2)).toEqual([0, 1]);
    // Set after the first status on the same server: once its timeout cleared it, the first one's timer has run too.
    other.next(0);
    await other.call('set_status', { conversation, text: 'is waiting' });
    await vi.waitFor(() => expect(shown.last(w.reviewer.agent.id)).toBeNull(), { timeout: 5_000 });
    expect(shown.last(w.builder.agent.id)).toBe('is writing');
    await shown.stop();
    await Promise.all([m.client.close(), other.client.close()]);
  });
});

describe('a lasting connection (stdio) of either family', () => {
  it('serves a 2026-07-28 client with push on its listen stream, and a 1.x client with resources/subscribe', async () => {
    const app = servers[1].app;
    const ctx = await openToolContext(app, w.reviewer.agent, w.ws.slug);
    const [serverSide, clientSide] = ServerInMemory.createLinkedPair();
    const served = serveConnection(ctx, serverSide, buildMcpServer);
    const client = new ModernClient(
      { name: 'stdio-like', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: MODERN } } },
    );
    await client.connect(clientSide);
    expect(client.getProtocolEra()).toBe('modern');
    const updated = new Promise<string>((resolve) =>
      client.setNotificationHandler('notifications/resources/updated', (n) => resolve(n.params.uri)),
    );
    await client.listen({ resourceSubscriptions: [INBOX_URI] });
    const r = await client.callTool({ name: 'list_agents', arguments: {} });
    expect(r.structuredContent).toMatchObject({ you: w.reviewer.name });
    // Sent through the other server: the wake-up crosses through the database.
    await servers[0].app.messaging.send({
      workspace: w.ws,
      sender: w.builder.agent,
      to: ['reviewer'],
      body: 'over stdio',
      surface: 'mcp',
    });
    expect(await updated).toBe(INBOX_URI);
    await client.close();
    await served.close();

    const [legacySide, legacyClientSide] = LegacyInMemory.createLinkedPair();
    const servedLegacy = serveConnection(ctx, legacySide as never, buildMcpServer);
    const old = new LegacyClient({ name: 'stdio-like-1x', version: '1.0.0' });
    await old.connect(legacyClientSide);
    const oldUpdated = new Promise<string>((resolve) =>
      old.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolve(n.params.uri)),
    );
    await old.subscribeResource({ uri: INBOX_URI });
    await servers[0].app.messaging.send({
      workspace: w.ws,
      sender: w.builder.agent,
      to: ['reviewer'],
      body: 'over stdio, 1.x',
      surface: 'mcp',
    });
    expect(await oldUpdated).toBe(INBOX_URI);
    await old.close();
    await servedLegacy.close();
  });
});
