// `npm run bench mcp`: MCP messaging figures for clients of both protocol families, side by side, each printed with
// its target (bench/README.md lists them) and ratio:
//  - the wake: from the start of a send_message call to the moment the waiting subscribe's answer reached its
//    client, and to the moment the inbox push (resources/subscribe, or subscriptions/listen) reached it;
//  - check_inbox throughput with 1,000 agents and 100,000 unread messages;
//  - search_messages p50/p95 over 1,000,000 messages (monitor and regular agent).
// Every call goes over real HTTP to one server: from the 1.x SDK's client (2025-11-25, a session) and from the 2.x
// SDK's client pinned to 2026-07-28 (no session). Each phase runs in rounds alternating the two, so the machine's
// drift during the run weighs on both alike.
// On a shared machine wall-clock figures move with the load, so each phase also prints what moves
// less: database round trips and this process's CPU time per call (clients and server share it).
// Uses a fresh database on BENCH_DATABASE_URL or TEST_DATABASE_URL (dropped afterwards), else an
// in-memory PGlite. BENCH_SCALE (default 1) scales the message counts, e.g. 0.1 for a quick run.
import { loadavg } from 'node:os';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import type { Database } from '../src/infra/db/client.ts';
import { rowsOf } from '../src/infra/db/org-repo.ts';
import type { App } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { SYSTEM } from '../src/core/actor.ts';
import { inboxTopic } from '../src/core/messaging/messaging-service.ts';
import { createMcpMount } from '../src/mcp/http.ts';
import { INBOX_URI } from '../src/mcp/resources.ts';
import { startServer } from '../src/server.ts';
import { openBenchDatabase } from './database.ts';

const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const AGENTS = 1000;
const INBOX_MESSAGES = Math.round(100_000 * SCALE);
const SEARCH_MESSAGES = Math.round(1_000_000 * SCALE);
/** Per protocol family, over all rounds. */
const WAKES = 200;
const INBOX_CALLS = 2000;
const SEARCHES = 100;
/** Rounds per protocol family in each phase, alternating the two. */
const ROUNDS = 4;
/** Agents calling check_inbox, per protocol family (each family has its own, so both find the same unread counts). */
const INBOX_AGENTS = 200;

const ERAS = ['2025-11-25', '2026-07-28'] as const;
type Era = (typeof ERAS)[number];
const ERA_NAMES: Record<Era, string> = {
  '2025-11-25': '2025-11-25 (1.x client, a session)',
  '2026-07-28': '2026-07-28 (2.x client, no session)',
};

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

/** A figure measured for each protocol family, against one target. */
interface Figure {
  what: string;
  values: Record<Era, number>;
  unit: string;
  target: number;
  better: 'lower' | 'higher';
}
/**
 * The figures against their targets, one column per protocol family: the ratio is value/target, so ≤ 1 meets a
 * "lower" target and ≥ 1 a "higher" one.
 */
function report(figures: Figure[]) {
  const w = Math.max(...figures.map((f) => f.what.length));
  console.log(
    `\n${'figure'.padEnd(w)}  ${'target'.padStart(16)}${ERAS.map((e) => `  ${e.padStart(14)}  ratio  met`).join('')}`,
  );
  for (const f of figures) {
    const target = `${f.better === 'lower' ? '<' : '≥'} ${f.target} ${f.unit}`;
    const cells = ERAS.map((e) => {
      const ratio = f.values[e] / f.target;
      const met = f.better === 'lower' ? ratio <= 1 : ratio >= 1;
      return `  ${`${f.values[e].toFixed(1)} ${f.unit}`.padStart(14)}  ${ratio.toFixed(2).padStart(5)}  ${(met ? 'yes' : 'no').padEnd(3)}`;
    });
    console.log(`${f.what.padEnd(w)}  ${target.padStart(16)}${cells.join('')}`.trimEnd());
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

/** An agent's MCP client of one protocol family, over HTTP. */
interface McpAgent {
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** Asks for the inbox push (`notifications/resources/updated`), calling `onUpdate` on each; returns how to stop. */
  push(onUpdate: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** Connects as the agent of `token` to the workspace at `endpoint`, speaking `era`. */
async function connect(era: Era, endpoint: string, token: string): Promise<McpAgent> {
  const url = new URL(endpoint);
  const requestInit = { headers: { Authorization: `Bearer ${token}` } };
  if (era === '2025-11-25') {
    const client = new LegacyClient({ name: 'bench', version: '1' });
    await client.connect(new LegacyTransport(url, { requestInit }));
    return {
      call: (name, args = {}) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>,
      async push(onUpdate) {
        client.setNotificationHandler(ResourceUpdatedNotificationSchema, onUpdate);
        await client.subscribeResource({ uri: INBOX_URI });
        return async () => {
          await client.unsubscribeResource({ uri: INBOX_URI });
        };
      },
      close: () => client.close(),
    };
  }
  const client = new ModernClient({ name: 'bench', version: '1' }, { versionNegotiation: { mode: { pin: era } } });
  await client.connect(new ModernTransport(url, { requestInit }));
  return {
    call: (name, args = {}) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>,
    async push(onUpdate) {
      client.setNotificationHandler('notifications/resources/updated', onUpdate);
      const subscription = await client.listen({ resourceSubscriptions: [INBOX_URI] });
      return () => subscription.close();
    },
    close: () => client.close(),
  };
}

/** Adds this process's CPU milliseconds and the database round trips spent while `fn` ran to `into`. */
async function meter<T>(into: { cpuMs: number; trips: number }, fn: () => Promise<T>): Promise<T> {
  const cpu = process.cpuUsage();
  const trips = statements();
  const r = await fn();
  const d = process.cpuUsage(cpu);
  into.cpuMs += (d.user + d.system) / 1000;
  into.trips += statements() - trips;
  return r;
}

/** Runs `round(era, r)` ROUNDS times for each family, alternating them: A B, B A, A B, … */
async function alternate(round: (era: Era, r: number) => Promise<void>) {
  for (let r = 0; r < ROUNDS; r++) for (const era of r % 2 ? [...ERAS].reverse() : ERAS) await round(era, r);
}

const perEra = <T>(make: (era: Era) => T) => Object.fromEntries(ERAS.map((e) => [e, make(e)])) as Record<Era, T>;

/** Tokens for the bench's agents numbered `from` to `to - 1` (their stored token hashes match no token). */
async function benchTokens(app: App, db: Database, from: number, to: number): Promise<string[]> {
  const rows = rowsOf<{ name: string; handle: string }>(
    await db.db.execute(sql`select a.name, p.handle from bench_agents b join agents a on a.id = b.id
      join people p on p.id = a.owner_id where b.k >= ${from} and b.k < ${to} order by b.k`),
  );
  const tokens: string[] = [];
  for (const r of rows) tokens.push((await app.agents.rotateToken(SYSTEM, `${r.handle}/${r.name}`)).token);
  return tokens;
}

interface Wakes {
  /** From the start of send_message to the waiting subscribe's answer at its client. */
  subscribe: number[];
  /** From the start of send_message to the inbox push at its client. */
  push: number[];
  /** The send_message calls alone. */
  sends: number[];
  /** Pushes received, to compare with the sends that caused them. */
  pushes: number;
  meter: { cpuMs: number; trips: number };
}

/**
 * The wake, both ways an agent waits: `pinger` sends to `ponger`, who waits in subscribe, then to `listener`, who
 * has the inbox push.
 */
async function wakeLatency(app: App, url: string): Promise<Record<Era, Wakes>> {
  const w = await app.orgs.addWorkspace(SYSTEM, { name: 'Bench wake', org: 'bench' });
  const added: Record<string, Awaited<ReturnType<App['agents']['add']>>> = {};
  for (const n of ['pinger', 'ponger', 'listener']) {
    added[n] = await app.agents.add(SYSTEM, { name: n, owner: 'bench-admin' });
    await app.agents.join(SYSTEM, { agent: `bench-admin/${n}`, workspace: w.slug });
  }
  const ponger = added.ponger.agent.id;
  const listening = () =>
    (app.notifier as unknown as { local: { listenerCount(t: string): number } }).local.listenerCount(
      inboxTopic(ponger),
    ) > 0;
  const out = perEra((): Wakes => ({ subscribe: [], push: [], sends: [], pushes: 0, meter: { cpuMs: 0, trips: 0 } }));
  await alternate(async (era, r) => {
    const o = out[era];
    const endpoint = `${url}/mcp/${w.slug}`;
    const [sender, waiter, listener] = await Promise.all(
      ['pinger', 'ponger', 'listener'].map((n) => connect(era, endpoint, added[n].token)),
    );
    let pushed: ((at: number) => void) | null = null;
    const stop = await listener.push(() => {
      o.pushes += 1;
      pushed?.(performance.now());
    });
    await meter(o.meter, async () => {
      for (let i = 0; i < WAKES / ROUNDS; i++) {
        // Timed to the moment the waiting call's answer reached its client, whether or not the sender's own answer came first.
        const waiting = waiter
          .call('subscribe', { timeout_seconds: 20 })
          .then((got) => ({ got, at: performance.now() }));
        while (!listening()) await new Promise((res) => setTimeout(res, 1));
        const t = performance.now();
        await sender.call('send_message', { to: ['ponger'], body: `ping ${era} ${r}.${i}` });
        o.sends.push(performance.now() - t);
        const { got, at } = await waiting;
        o.subscribe.push(at - t);
        if ((got.structuredContent as { messages: unknown[] }).messages.length !== 1)
          throw new Error('subscribe did not return the message');

        const arrived = new Promise<number>((res) => {
          pushed = res;
        });
        const p = performance.now();
        await sender.call('send_message', { to: ['listener'], body: `push ${era} ${r}.${i}` });
        o.push.push((await arrived) - p);
        pushed = null;
      }
    });
    await stop();
    await Promise.all([sender, waiter, listener].map((c) => c.close()));
  });
  return out;
}

interface Throughput {
  calls: number;
  seconds: number;
  messages: number;
  latencies: number[];
  meter: { cpuMs: number; trips: number };
}

/** check_inbox from 8 callers at once, each family over its own 200 agents. */
async function inboxThroughput(app: App, db: Database, url: string): Promise<Record<Era, Throughput>> {
  const clients = perEra((): McpAgent[] => []);
  for (const [e, era] of ERAS.entries()) {
    // One at a time: 200 at once wait on the pool past its connection timeout on a loaded machine.
    for (const token of await benchTokens(app, db, e * INBOX_AGENTS, (e + 1) * INBOX_AGENTS))
      clients[era].push(await connect(era, url, token));
  }
  const out = perEra(
    (): Throughput => ({ calls: 0, seconds: 0, messages: 0, latencies: [], meter: { cpuMs: 0, trips: 0 } }),
  );
  await alternate(async (era, r) => {
    const o = out[era];
    const sessions = clients[era];
    const first = (r * INBOX_CALLS) / ROUNDS;
    let next = first;
    const worker = async () => {
      while (next < first + INBOX_CALLS / ROUNDS) {
        const s = sessions[next++ % sessions.length];
        const t = performance.now();
        const got = await s.call('check_inbox', { limit: 20 });
        o.latencies.push(performance.now() - t);
        o.messages += (got.structuredContent as { messages: unknown[] }).messages.length;
      }
    };
    const started = performance.now();
    await meter(o.meter, () => Promise.all(Array.from({ length: 8 }, worker)));
    o.seconds += (performance.now() - started) / 1000;
    o.calls += INBOX_CALLS / ROUNDS;
  });
  await Promise.all(ERAS.flatMap((era) => clients[era].map((c) => c.close())));
  return out;
}

const WORD_CLASSES = ['common', 'middling', 'rare'] as const;
interface Searches {
  latencies: number[];
  byClass: Record<string, number[]>;
  meter: { cpuMs: number; trips: number };
}

async function searchLatency(app: App, db: Database, url: string) {
  const [monitorToken, regularToken] = await benchTokens(app, db, 10, 12);
  const [{ id: monitorId }] = rowsOf<{ id: string }>(
    await db.db.execute(sql`select id from bench_agents where k = 10`),
  );
  await db.db.execute(sql`update agent_memberships set monitor = true where agent_id = ${monitorId}`);
  const kinds = { monitor: monitorToken, regular: regularToken };
  const out = {
    monitor: perEra(
      (): Searches => ({
        latencies: [],
        byClass: { common: [], middling: [], rare: [] },
        meter: { cpuMs: 0, trips: 0 },
      }),
    ),
    regular: perEra(
      (): Searches => ({
        latencies: [],
        byClass: { common: [], middling: [], rare: [] },
        meter: { cpuMs: 0, trips: 0 },
      }),
    ),
  };
  await alternate(async (era, r) => {
    for (const [kind, token] of Object.entries(kinds) as Array<[keyof typeof kinds, string]>) {
      const o = out[kind][era];
      const s = await connect(era, url, token);
      await meter(o.meter, async () => {
        for (let i = (r * SEARCHES) / ROUNDS; i < ((r + 1) * SEARCHES) / ROUNDS; i++) {
          // One common, one middling and one rare word in turn, alone or in pairs.
          const word = (j: number) => VOCAB[[3, 60, 900][j % 3] + ((i * 7) % 40)];
          const query = i % 2 ? word(i) : `${word(i)} ${word(i + 1)}`;
          const t = performance.now();
          const got = await s.call('search_messages', { query, limit: 10 });
          const took = performance.now() - t;
          o.latencies.push(took);
          o.byClass[WORD_CLASSES[i % 3]].push(took);
          if (got.isError) throw new Error(`search failed: ${JSON.stringify(got.content)}`);
        }
      });
      await s.close();
    }
  });
  return out;
}

export default async function bench() {
  const { db, kind, close } = await openBenchDatabase();
  statements = () => db.queries();
  console.log(
    `database: ${kind}; ${AGENTS} agents, ${INBOX_MESSAGES} unread + ${SEARCH_MESSAGES} searchable messages; ` +
      `protocol families ${ERAS.join(' and ')}, ${ROUNDS} rounds each, alternating; load average ${load()}`,
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
  const perCall = (m: { cpuMs: number; trips: number }, calls: number, what = 'per call') =>
    `${what}: ${(m.cpuMs / calls).toFixed(2)} ms CPU of this process, ${(m.trips / calls).toFixed(1)} database round trips`;
  try {
    const { org } = await app.orgs.init({ org: 'Bench', admin: 'bench-admin' });
    await app.orgs.setPlan(SYSTEM, org.slug, 'team', 100_000_000);
    const ws = await app.orgs.addWorkspace(SYSTEM, { name: 'Bench', org: org.slug });
    const endpoint = `${server.url}/mcp/${ws.slug}`;

    const wakes = await timed('send → subscribe and send → push wakes', () => wakeLatency(app, server.url));
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
    const inbox = await timed('check_inbox runs', () => inboxThroughput(app, db, endpoint));
    const loadAfterInbox = load();
    const search = await timed('search_messages runs', () => searchLatency(app, db, endpoint));
    const loadAfterSearch = load();

    for (const era of ERAS) {
      const wk = wakes[era];
      console.log(`\n${ERA_NAMES[era]}`);
      console.log(
        `  send → subscribe wake (${WAKES} over HTTP; load average after: ${loadAfterWakes}): p50 ${ms(pct(wk.subscribe, 50))}, p99 ${ms(pct(wk.subscribe, 99))} ` +
          `(the send_message call itself: p50 ${ms(pct(wk.sends, 50))}, p99 ${ms(pct(wk.sends, 99))})`,
      );
      console.log(
        `  send → inbox push (${era === '2025-11-25' ? 'resources/subscribe' : 'subscriptions/listen'}; ${wk.pushes} pushes for ${WAKES} messages): ` +
          `p50 ${ms(pct(wk.push, 50))}, p99 ${ms(pct(wk.push, 99))}`,
      );
      console.log(
        `    ${perCall(wk.meter, WAKES, 'per wake pair (two send_message, a subscribe, a push; both sides)')}`,
      );
      const ib = inbox[era];
      console.log(
        `  check_inbox (8 concurrent callers, ${INBOX_AGENTS} agents, limit 20; load average after: ${loadAfterInbox}): ${(ib.calls / ib.seconds).toFixed(0)} calls/s, ` +
          `${(ib.messages / ib.seconds).toFixed(0)} messages/s; p50 ${ms(pct(ib.latencies, 50))}, p95 ${ms(pct(ib.latencies, 95))}`,
      );
      console.log(`    ${perCall(ib.meter, ib.calls)}`);
      for (const who of ['monitor', 'regular'] as const) {
        const r = search[who][era];
        console.log(
          `  search_messages as a ${who} agent over ${SEARCH_MESSAGES + INBOX_MESSAGES} messages (load average after: ${loadAfterSearch}): ` +
            `p50 ${ms(pct(r.latencies, 50))}, p95 ${ms(pct(r.latencies, 95))}; p95 by word: ` +
            WORD_CLASSES.map((c) => `${c} ${ms(pct(r.byClass[c], 95))}`).join(', '),
        );
        console.log(`    ${perCall(r.meter, SEARCHES)}`);
      }
    }
    report([
      {
        what: 'send → waiting subscribe wake, p50',
        values: perEra((e) => pct(wakes[e].subscribe, 50)),
        unit: 'ms',
        target: 20,
        better: 'lower',
      },
      {
        what: 'send → inbox push, p50',
        values: perEra((e) => pct(wakes[e].push, 50)),
        unit: 'ms',
        target: 20,
        better: 'lower',
      },
      {
        what: 'check_inbox throughput',
        values: perEra((e) => inbox[e].calls / inbox[e].seconds),
        unit: 'calls/s',
        target: 200,
        better: 'higher',
      },
      ...(['monitor', 'regular'] as const).map((who) => ({
        what: `search_messages p95 (${who} agent)`,
        values: perEra((e) => pct(search[who][e].latencies, 95)),
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
