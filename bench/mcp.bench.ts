// `npm run bench mcp`: MCP messaging figures, each printed with its target (bench/README.md lists them) and ratio.
//  - send → subscribe wake latency (p50/p99), two SDK clients over real HTTP: from the start of the
//    send_message call to the moment the waiting subscribe's answer reached its client;
//  - check_inbox throughput with 1,000 agents and 100,000 unread messages;
//  - search_messages p50/p95 over 1,000,000 messages (monitor and regular agent).
// On a shared machine wall-clock figures move with the load, so each phase also prints what moves
// less: database round trips and this process's CPU time per call (client and server share it).
// Uses a fresh database on BENCH_DATABASE_URL or TEST_DATABASE_URL (dropped afterwards), else an
// in-memory PGlite. BENCH_SCALE (default 1) scales the message counts, e.g. 0.1 for a quick run.
import { loadavg } from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import type { Database } from '../src/infra/db/client.ts';
import type { App } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { SYSTEM } from '../src/core/actor.ts';
import { inboxTopic } from '../src/core/messaging/messaging-service.ts';
import type { Agent } from '../src/core/entities.ts';
import { createMcpMount } from '../src/mcp/http.ts';
import { startServer } from '../src/server.ts';
import { openBenchDatabase } from './database.ts';
import { connectInProcess } from '../test/support/world.ts';

const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const AGENTS = 1000;
const INBOX_MESSAGES = Math.round(100_000 * SCALE);
const SEARCH_MESSAGES = Math.round(1_000_000 * SCALE);
const WAKES = 200;
const INBOX_CALLS = 2000;
const SEARCHES = 100;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const ms = (x: number) => `${x.toFixed(1)} ms`;
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

/**
 * Database round trips: the statements the app's database sent (BEGIN and COMMIT included; on PGlite, those its
 * thread ran), as `Database.queries` counts them. Set once the database is open.
 */
let statements = () => 0;

/** Round trips and this process's CPU milliseconds spent while `fn` ran, per `per` units of work. */
async function metered<T>(fn: () => Promise<T>): Promise<T & { cpuMs: number; trips: number }> {
  const cpu = process.cpuUsage();
  const trips = statements();
  const r = await fn();
  const d = process.cpuUsage(cpu);
  return { ...r, cpuMs: (d.user + d.system) / 1000, trips: statements() - trips };
}

interface Figure {
  what: string;
  value: number;
  unit: string;
  target: number;
  better: 'lower' | 'higher';
}
/** The figures against their targets: the ratio is value/target, so ≤ 1 meets a "lower" target and ≥ 1 a "higher" one. */
function report(figures: Figure[]) {
  const w = Math.max(...figures.map((f) => f.what.length));
  console.log(`\n${'figure'.padEnd(w)}  ${'measured'.padStart(14)}  ${'target'.padStart(16)}  ratio  met`);
  for (const f of figures) {
    const ratio = f.value / f.target;
    const met = f.better === 'lower' ? ratio <= 1 : ratio >= 1;
    const target = `${f.better === 'lower' ? '<' : '≥'} ${f.target} ${f.unit}`;
    console.log(
      `${f.what.padEnd(w)}  ${`${f.value.toFixed(1)} ${f.unit}`.padStart(14)}  ${target.padStart(16)}  ${ratio.toFixed(2).padStart(5)}  ${met ? 'yes' : 'no'}`,
    );
  }
}

const timed = async <T>(label: string, fn: () => Promise<T>) => {
  const t = performance.now();
  const r = await fn();
  console.log(`  ${label}: ${((performance.now() - t) / 1000).toFixed(1)} s`);
  return r;
};

/** Pseudo-words from syllables: a fixed vocabulary, so query selectivity is the same on every run. */
function vocabulary(n: number): string[] {
  const syl = [
    'ka',
    'lo',
    'mi',
    'ren',
    'tus',
    'vo',
    'zan',
    'pel',
    'dor',
    'qui',
    'sha',
    'ber',
    'nix',
    'gal',
    'tor',
    'fen',
  ];
  return Array.from(
    { length: n },
    (_, i) =>
      syl[i % 16] +
      syl[Math.floor(i / 16) % 16] +
      syl[Math.floor(i / 256) % 16] +
      (i >= 4096 ? syl[Math.floor(i / 4096) % 16] : ''),
  );
}
export const VOCAB = vocabulary(3000);
// Ten words a message, common words far more likely than rare ones (random()^2 skews towards the start).
const BODY = sql.raw(
  Array.from({ length: 10 }, () => 'v.w[1 + floor(power(random(), 2) * array_length(v.w, 1))::int]').join(
    ` || ' ' || `,
  ),
);
const VOCAB_CTE = sql.raw(`v as (select ARRAY[${VOCAB.map((w) => `'${w}'`).join(',')}]::text[] as w)`);

/** 20 people owning 50 agents each, all in one workspace, and 1,000 conversations. */
export async function populate(app: App, db: Database, wsId: string, orgId: string) {
  const x = (q: ReturnType<typeof sql>) => db.db.execute(q);
  await x(
    sql`insert into people (handle, display_name) select 'bench-p' || g, 'Bench person ' || g from generate_series(1, 20) g`,
  );
  await x(
    sql`insert into org_members (org_id, person_id, role) select ${orgId}, id, 'member' from people where handle like 'bench-p%'`,
  );
  await x(
    sql`insert into agents (owner_id, name, display_name, kind) select id, handle, display_name, 'person' from people where handle like 'bench-p%'`,
  );
  await x(sql`insert into agents (owner_id, name, display_name, kind, token_hash)
    select p.id, 'bot' || g, 'Bot ' || g, 'agent', md5(p.id::text || g) from people p, generate_series(1, ${sql.raw(String(AGENTS / 20))}) g where p.handle like 'bench-p%'`);
  await x(sql`insert into agent_memberships (agent_id, workspace_id)
    select a.id, ${wsId} from agents a join people p on p.id = a.owner_id where p.handle like 'bench-p%' and a.kind = 'agent'`);
  await x(sql`create table bench_agents as select a.id, (row_number() over (order by a.id) - 1)::int as k
    from agents a join agent_memberships m on m.agent_id = a.id where m.workspace_id = ${wsId}`);
  await x(sql`create table bench_convs as select gen_random_uuid() as id, g - 1 as k from generate_series(1, 1000) g`);
  await x(
    sql`insert into conversations (id, workspace_id, kind, key, title) select id, ${wsId}, 'dm', 'bench:' || k, 'Bench ' || k from bench_convs`,
  );
  void app;
}

/** Messages spread over the last `days`, each delivered to one agent; `read` marks them read. */
export async function insertMessages(
  db: Database,
  wsId: string,
  n: number,
  opts: { days: number; read: boolean; batch?: number },
) {
  const batch = opts.batch ?? 100_000;
  for (let from = 0; from < n; from += batch) {
    const count = Math.min(batch, n - from);
    await db.db.execute(sql`with ${VOCAB_CTE},
      m as (insert into messages (workspace_id, conversation_id, sender_id, body, chain_id, hop, surface, created_at)
        select ${wsId}, c.id, a.id, ${BODY}, gen_random_uuid(), 0, 'mcp', now() - random() * ${`${opts.days} days`}::interval
        from generate_series(${sql.raw(String(from))}, ${sql.raw(String(from + count - 1))}) g
        cross join v
        join bench_agents a on a.k = g % ${sql.raw(String(AGENTS))}
        join bench_convs c on c.k = (g / 7) % 1000
        returning id, conversation_id, sender_id, created_at)
      insert into deliveries (message_id, agent_id, workspace_id, conversation_id, message_created_at, read_at, created_at)
        select m.id, r.id, ${wsId}, m.conversation_id, m.created_at, ${opts.read ? sql`m.created_at` : sql`null`}, m.created_at
        from m join bench_agents s on s.id = m.sender_id join bench_agents r on r.k = (s.k + 1 + (hashtext(m.id::text) & 255)) % ${sql.raw(String(AGENTS))}`);
  }
}

async function wakeLatency(app: App, url: string) {
  const w = await app.orgs.addWorkspace(SYSTEM, { name: 'Bench wake', org: 'bench' });
  const a = await app.agents.add(SYSTEM, { name: 'pinger', owner: 'bench-admin' });
  const b = await app.agents.add(SYSTEM, { name: 'ponger', owner: 'bench-admin' });
  for (const n of ['pinger', 'ponger']) await app.agents.join(SYSTEM, { agent: `bench-admin/${n}`, workspace: w.slug });
  const connect = async (token: string) => {
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp/${w.slug}`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    return client;
  };
  const [sender, waiter] = await Promise.all([connect(a.token), connect(b.token)]);
  const listening = () =>
    (app.notifier as unknown as { local: { listenerCount(t: string): number } }).local.listenerCount(
      inboxTopic(b.agent.id),
    ) > 0;
  const samples: number[] = [];
  const sends: number[] = [];
  for (let i = 0; i < WAKES; i++) {
    // The wake is timed to the moment the waiting call's answer reached its client, whether or not the sender's own answer came first.
    const waiting = (
      waiter.callTool({ name: 'subscribe', arguments: { timeout_seconds: 20 } }) as Promise<CallToolResult>
    ).then((got) => ({ got, at: performance.now() }));
    while (!listening()) await new Promise((r) => setTimeout(r, 1));
    const t = performance.now();
    await sender.callTool({ name: 'send_message', arguments: { to: ['ponger'], body: `ping ${i}` } });
    sends.push(performance.now() - t);
    const { got, at } = await waiting;
    samples.push(at - t);
    if ((got.structuredContent as { messages: unknown[] }).messages.length !== 1)
      throw new Error('subscribe did not return the message');
  }
  await Promise.all([sender.close(), waiter.close()]);
  return { samples, sends };
}

async function inboxThroughput(app: App, db: Database, wsSlug: string) {
  const rows = await db.db.execute(sql`select id from bench_agents order by k limit 200`);
  const ids = (Array.isArray(rows) ? rows : (rows as { rows: Array<{ id: string }> }).rows) as Array<{ id: string }>;
  const agents = (await Promise.all(ids.map((r) => app.store.agents.get(r.id)))) as Agent[];
  // One at a time: 200 at once wait on the pool past its connection timeout on a loaded machine.
  const sessions: Array<Awaited<ReturnType<typeof connectInProcess>>> = [];
  for (const a of agents) sessions.push(await connectInProcess(app, a, wsSlug));
  const latencies: number[] = [];
  let messages = 0;
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < INBOX_CALLS) {
      const s = sessions[next++ % sessions.length];
      const t = performance.now();
      const r = await s.call('check_inbox', { limit: 20 });
      latencies.push(performance.now() - t);
      messages += (r.structuredContent as { messages: unknown[] }).messages.length;
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(sessions.map((s) => s.close()));
  return { calls: latencies.length, seconds, messages, latencies };
}

const WORD_CLASSES = ['common', 'middling', 'rare'] as const;

async function searchLatency(app: App, db: Database, wsSlug: string) {
  const rows = await db.db.execute(sql`select id from bench_agents where k in (10, 11) order by k`);
  const [monitorId, regularId] = (
    (Array.isArray(rows) ? rows : (rows as { rows: Array<{ id: string }> }).rows) as Array<{ id: string }>
  ).map((r) => r.id);
  await db.db.execute(sql`update agent_memberships set monitor = true where agent_id = ${monitorId}`);
  const out: Record<string, { latencies: number[]; byClass: Record<string, number[]>; cpuMs: number; trips: number }> =
    {};
  for (const [kind, id] of [
    ['monitor', monitorId],
    ['regular', regularId],
  ] as const) {
    const s = await connectInProcess(app, (await app.store.agents.get(id))!, wsSlug);
    out[kind] = await metered(async () => {
      const latencies: number[] = [];
      const byClass: Record<string, number[]> = { common: [], middling: [], rare: [] };
      for (let i = 0; i < SEARCHES; i++) {
        // One common, one middling and one rare word in turn, alone or in pairs.
        const word = (j: number) => VOCAB[[3, 60, 900][j % 3] + ((i * 7) % 40)];
        const query = i % 2 ? word(i) : `${word(i)} ${word(i + 1)}`;
        const t = performance.now();
        const r = await s.call('search_messages', { query, limit: 10 });
        latencies.push(performance.now() - t);
        byClass[WORD_CLASSES[i % 3]].push(latencies[i]);
        if (r.isError) throw new Error(`search failed: ${JSON.stringify(r.content)}`);
      }
      return { latencies, byClass };
    });
    await s.close();
  }
  return out;
}

export default async function bench() {
  const { db, kind, close } = await openBenchDatabase();
  statements = () => db.queries();
  console.log(
    `database: ${kind}; ${AGENTS} agents, ${INBOX_MESSAGES} unread + ${SEARCH_MESSAGES} searchable messages; load average ${load()}`,
  );
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: '',
    REDIS_URL: '',
    PORT: '0',
    LOG_LEVEL: 'silent',
    SWITCHBOARD_SECRET: 'bench-secret'.padEnd(40, 'x'),
  });
  const server = await startServer(config, {
    database: db,
    logger: pino({ level: 'silent' }),
    migrate: false,
    control: false,
    host: '127.0.0.1',
    mounts: [createMcpMount()],
    rateLimit: { max: 1_000_000, windowMs: 60_000 },
  });
  const { app } = server;
  const trips = (n: number, calls: number) => `${(n / calls).toFixed(1)} database round trips`;
  const perCall = (m: { cpuMs: number; trips: number }, calls: number) =>
    `per call: ${(m.cpuMs / calls).toFixed(2)} ms CPU of this process, ${trips(m.trips, calls)}`;
  try {
    const { org } = await app.orgs.init({ org: 'Bench', admin: 'bench-admin' });
    await app.orgs.setPlan(SYSTEM, org.slug, 'team', 100_000_000);
    const ws = await app.orgs.addWorkspace(SYSTEM, { name: 'Bench', org: org.slug });

    const wake = await timed('send → subscribe wakes', () => metered(() => wakeLatency(app, server.url)));
    const loadAfterWakes = load();
    await timed('agents and conversations', () => populate(app, db, ws.id, org.id));
    // The search index is built once after the bulk load: far faster than keeping it up row by row.
    await db.db.execute(sql`drop index messages_search_idx`);
    await timed(`${SEARCH_MESSAGES} read messages`, () =>
      insertMessages(db, ws.id, SEARCH_MESSAGES, { days: 30, read: true }),
    );
    await timed('search index', () =>
      db.db.execute(sql`create index messages_search_idx on messages using gin (search)`),
    );
    await timed(`${INBOX_MESSAGES} unread messages`, () =>
      insertMessages(db, ws.id, INBOX_MESSAGES, { days: 1, read: false }),
    );
    await db.db.execute(sql`analyze`);
    const inbox = await timed('check_inbox run', () => metered(() => inboxThroughput(app, db, ws.slug)));
    const loadAfterInbox = load();
    const search = await timed('search_messages run', () => searchLatency(app, db, ws.slug));
    const loadAfterSearch = load();

    const { samples: wakes, sends } = wake;
    console.log(
      `\nsend → subscribe wake (${WAKES} over HTTP; load average after: ${loadAfterWakes}): p50 ${ms(pct(wakes, 50))}, p99 ${ms(pct(wakes, 99))} ` +
        `(the send_message call itself: p50 ${ms(pct(sends, 50))}, p99 ${ms(pct(sends, 99))})`,
    );
    console.log(`  ${perCall(wake, WAKES).replace('per call', 'per wake (send_message + subscribe, both sides)')}`);
    const inboxRate = inbox.calls / inbox.seconds;
    console.log(
      `check_inbox (8 concurrent callers, 200 agents, limit 20; load average after: ${loadAfterInbox}): ${inboxRate.toFixed(0)} calls/s, ` +
        `${(inbox.messages / inbox.seconds).toFixed(0)} messages/s; p50 ${ms(pct(inbox.latencies, 50))}, p95 ${ms(pct(inbox.latencies, 95))}`,
    );
    console.log(`  ${perCall(inbox, inbox.calls)}`);
    for (const [who, r] of Object.entries(search)) {
      console.log(
        `search_messages as a ${who} agent over ${SEARCH_MESSAGES + INBOX_MESSAGES} messages (load average after: ${loadAfterSearch}): ` +
          `p50 ${ms(pct(r.latencies, 50))}, p95 ${ms(pct(r.latencies, 95))}; p95 by word: ` +
          WORD_CLASSES.map((c) => `${c} ${ms(pct(r.byClass[c], 95))}`).join(', '),
      );
      console.log(`  ${perCall(r, SEARCHES)}`);
    }
    report([
      { what: 'send → waiting subscribe wake, p50', value: pct(wakes, 50), unit: 'ms', target: 20, better: 'lower' },
      { what: 'check_inbox throughput', value: inboxRate, unit: 'calls/s', target: 200, better: 'higher' },
      ...Object.entries(search).map(([who, r]) => ({
        what: `search_messages p95 (${who} agent)`,
        value: pct(r.latencies, 95),
        unit: 'ms',
        target: 50,
        better: 'lower' as const,
      })),
    ]);
  } finally {
    await server.stop();
    await close();
  }
}
