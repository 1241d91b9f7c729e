// `npm run bench scale`: several `switchboard serve` processes on one PostgreSQL and one Redis, as a deployment that
// outgrew one machine runs them behind a load balancer: 1, 2 and 4 processes in turn (SCALE_BENCH_PROCESSES), each
// count on a fresh database (BENCH_DATABASE_URL or TEST_DATABASE_URL) and a private redis-server, with BullMQ.
// For each count:
//  - signed Slack `app_mention` events, sent to the processes in turn (slack.bench.ts's load generator): events per
//    second end to end (from the first request to the last message in the agent's inbox) and ack p50/p99;
//  - send → wake across processes: an MCP agent waits in `subscribe` on one process while another agent's
//    `send_message` goes to the next process; from the start of the send to the waiting call's answer, p50/p99;
//  - the jobs each process ran during the Slack load (its /metrics), the CPU each process used per event (from
//    /proc/<pid>/stat), and the CPU of PostgreSQL's backends for the bench's database per event, with its share.
// BENCH_SCALE (default 1) scales the counts: 2,000 events and 200 wakes per process count at 1.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { count } from 'drizzle-orm';
import pino from 'pino';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { SYSTEM } from '../src/core/actor.ts';
import { deliveries } from '../src/infra/db/schema.ts';
import { SLACK_DEFAULTS } from '../test/support/slack/defaults.ts';
import type { SlackStandin } from '../test/support/slack/web-api-standin.ts';
import { freshPostgresDatabase } from '../test/support/db.ts';
import { freePort, PrivateRedis, ServerProcess } from './chaos/processes.ts';
import {
  load,
  pct,
  processCpuMs,
  seedSlackBench,
  serverCpu,
  serverCpuBetween,
  startBenchStandin,
} from './slack.bench.ts';

const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const EVENTS = Math.max(40, Math.round(2000 * SCALE));
const WAKES = Math.max(8, Math.round(200 * SCALE));
/** Events per process before the figures are taken: each process warms up (compiles its hot code) on its own. */
const WARMUP = 50;
const COUNTS = (process.env.SCALE_BENCH_PROCESSES ?? '1,2,4').split(',').map(Number);
const METRICS_TOKEN = 'scale-bench-metrics-token-0123456789';
/** An agent may send 30 messages a minute into one conversation: each sender sends fewer. */
const SENDS_PER_SENDER = 25;
/** How long a `subscribe` is given to start waiting before the send (another process cannot be asked whether it waits). */
const SETTLE_MS = 100;

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Figures {
  n: number;
  endToEnd: number;
  ackP50: number;
  ackP99: number;
  failures: number;
  wakeP50: number;
  wakeP99: number;
  jobs: number[];
  cpuPerEvent: number[];
  postgresPerEvent: number;
}

/** Jobs this process ran so far: its delivery histogram's counts, over every topic. */
async function jobsRun(server: ServerProcess): Promise<number> {
  const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const text = await res.text();
  let n = 0;
  for (const m of text.matchAll(/^switchboard_delivery_latency_seconds_count\{[^}]*\} (\d+)/gm)) n += Number(m[1]);
  return n;
}

async function measure(n: number, baseUrl: string, standin: SlackStandin): Promise<Figures> {
  const fresh = await freshPostgresDatabase(baseUrl);
  const redis = new PrivateRedis(await freePort());
  const dir = mkdtempSync(path.join(tmpdir(), `sb-scale-${n}-`));
  const env = {
    DATABASE_URL: fresh.url,
    SWITCHBOARD_SECRET: 'scale-bench-switchboard-secret-0123456789',
    SLACK_SIGNING_SECRET: SLACK_DEFAULTS.signingSecret,
    SLACK_API_URL: standin.url,
    DATA_DIR: dir,
  };
  // The bench's own App seeds the database and counts what arrived; its queue never starts (the servers deliver).
  const app = await createApp(loadConfig({ ...env, REDIS_URL: '', PORT: '0', LOG_LEVEL: 'silent' }), {
    logger: pino({ level: 'silent' }),
  });
  const servers: ServerProcess[] = [];
  const clients: Client[] = [];
  try {
    await redis.start();
    const { ws } = await seedSlackBench(app, standin);
    // Waiters, one per process; senders enough to stay under the rate limit; alice's own organization holds them all.
    const alice = await app.orgs.person('alice');
    const own = (await app.store.orgs.listForPerson(alice.id)).find((o) => o.personalFor === alice.id);
    if (own) await app.store.orgs.setPlan(own.id, 'team', 10_000_000);
    const agent = async (name: string) => {
      const { token } = await app.agents.add(SYSTEM, { name, owner: 'alice' });
      await app.agents.join(SYSTEM, { agent: `alice/${name}`, workspace: ws.slug });
      return { name, token };
    };
    const waiters = await Promise.all(Array.from({ length: n }, (_, i) => agent(`waiter${i}`)));
    const senders = await Promise.all(
      Array.from({ length: Math.ceil(WAKES / SENDS_PER_SENDER) }, (_, i) => agent(`sender${i}`)),
    );
    for (let i = 0; i < n; i++) {
      const port = await freePort();
      servers.push(
        new ServerProcess({
          port,
          logDir: dir,
          env: { ...env, REDIS_URL: redis.url, METRICS_TOKEN, LOG_LEVEL: 'warn', DATA_DIR: path.join(dir, `p${i}`) },
        }),
      );
    }
    await Promise.all(servers.map((s) => s.start()));
    const slackUrls = servers.map((s) => `${s.url}/slack/events`);
    const delivered = async () => Number((await app.database.db.select({ n: count() }).from(deliveries))[0].n);
    const drained = async (total: number) => {
      while ((await delivered()) < total) await pause(200);
    };

    const warmup = WARMUP * n;
    await load(slackUrls, warmup, 'warm-up');
    await drained(warmup);
    const cpu0 = servers.map((s) => processCpuMs(s.pid!));
    const [pg0, jobs0] = await Promise.all([serverCpu(app.database), Promise.all(servers.map(jobsRun))]);
    const started = performance.now();
    const run = await load(slackUrls, EVENTS, `scale ${n}`);
    await drained(warmup + EVENTS);
    const seconds = (performance.now() - started) / 1000;
    const cpu1 = servers.map((s) => processCpuMs(s.pid!));
    const [pg1, jobs1] = await Promise.all([serverCpu(app.database), Promise.all(servers.map(jobsRun))]);

    // Send → wake: waiter i waits on process i, the send goes to process i + 1.
    const connect = async (token: string, server: ServerProcess) => {
      const client = new Client({ name: 'scale-bench', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/${ws.slug}`), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      );
      clients.push(client);
      return client;
    };
    const waiting = await Promise.all(waiters.map((w, i) => connect(w.token, servers[i])));
    const sending = new Map<string, Client>();
    const sender = async (k: number, server: ServerProcess) => {
      const { token, name } = senders[k % senders.length];
      const key = `${name} ${server.url}`;
      if (!sending.has(key)) sending.set(key, await connect(token, server));
      return sending.get(key)!;
    };
    const wakes: number[] = [];
    for (let k = 0; k < WAKES; k++) {
      const i = k % n;
      const from = await sender(k, servers[(i + 1) % n]);
      const answered = (
        waiting[i].callTool({ name: 'subscribe', arguments: { timeout_seconds: 20 } }) as Promise<CallToolResult>
      ).then((got) => ({ got, at: performance.now() }));
      await pause(SETTLE_MS);
      const t = performance.now();
      await from.callTool({ name: 'send_message', arguments: { to: [waiters[i].name], body: `ping ${k}` } });
      const { got, at } = await answered;
      if ((got.structuredContent as { messages?: unknown[] } | undefined)?.messages?.length !== 1)
        throw new Error(`subscribe did not return the message: ${JSON.stringify(got.content)}`);
      wakes.push(at - t);
    }

    const children = cpu1.map((c, i) => (c - cpu0[i]) / EVENTS);
    return {
      n,
      endToEnd: EVENTS / seconds,
      ackP50: run.p50,
      ackP99: run.p99,
      failures: run.failures,
      wakeP50: pct(wakes, 50),
      wakeP99: pct(wakes, 99),
      jobs: jobs1.map((j, i) => j - jobs0[i]),
      cpuPerEvent: children,
      postgresPerEvent: serverCpuBetween(pg0, pg1) / EVENTS,
    };
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await Promise.all(servers.map((s) => s.stop()));
    await app.close();
    await redis.stop();
    await fresh.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export default async function bench() {
  const baseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!baseUrl) {
    console.log('  skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL (several processes need PostgreSQL)');
    return;
  }
  console.log(
    `  ${EVENTS} signed app_mention events per process count, spread over the processes in turn, then ${WAKES} send → wake pairs across processes; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const standin = await startBenchStandin();
  const all: Figures[] = [];
  try {
    for (const n of COUNTS) all.push(await measure(n, baseUrl, standin));
  } finally {
    await standin.close();
  }
  const ms = (x: number) => `${x.toFixed(1)} ms`;
  const list = (xs: number[], f: (x: number) => string) => xs.map(f).join(' / ');
  for (const f of all) {
    const servers = f.cpuPerEvent.reduce((a, b) => a + b, 0);
    const pg = Number.isFinite(f.postgresPerEvent)
      ? `${f.postgresPerEvent.toFixed(2)} ms per event, ${((100 * f.postgresPerEvent) / (f.postgresPerEvent + servers)).toFixed(0)}% of servers and PostgreSQL together`
      : 'not readable here (the server is not on this machine)';
    console.log(`  ${f.n} process${f.n > 1 ? 'es' : ''}`);
    console.log(
      `    end to end ${f.endToEnd.toFixed(0)} events/s; ack p50 ${ms(f.ackP50)}, p99 ${ms(f.ackP99)}; non-200: ${f.failures}`,
    );
    console.log(`    send → wake across processes: p50 ${ms(f.wakeP50)}, p99 ${ms(f.wakeP99)}`);
    console.log(`    jobs run per process: ${list(f.jobs, String)}`);
    console.log(
      `    CPU per event, per process: ${list(f.cpuPerEvent, (x) => `${x.toFixed(2)} ms`)} (all processes ${servers.toFixed(2)} ms)`,
    );
    console.log(`    PostgreSQL's backends: ${pg}`);
  }
}
