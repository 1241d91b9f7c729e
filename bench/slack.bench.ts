// `npm run bench slack`: signed Slack event ingest, side by side in one run, on PGlite and (when
// BENCH_DATABASE_URL or TEST_DATABASE_URL is set) on a fresh PostgreSQL database:
//  - a bare Bolt app (ExpressReceiver, same signing check) whose listener only acknowledges;
//  - Switchboard's Slack mount, which stores each event (inbound_events and its outbox entry, one
//    statement for the requests arriving together) before the ack; the inbound.slack job then
//    records the person, delivers to the agent's inbox, and links the thread (chat.getPermalink).
// Both receive the same signed `app_mention` load over HTTP on 127.0.0.1 from a worker thread (as
// Slack's requests come from elsewhere), and call the same Slack Web API stand-in. Rounds alternate
// bare and Switchboard; each round waits until every event is in the agent's inbox. Figures (median
// round): ack p50/p99 and acks per second for both, their ratio (the median of the rounds' ratios, each
// Switchboard round against the bare round before it, with their range), and the events per second that
// reached the agent's inbox end to end, each with its target (TARGET below).
// SLACK_BENCH_EVENTS (default 400), SLACK_BENCH_CONCURRENCY (default 16) and SLACK_BENCH_ROUNDS
// (default 3) size the load; BENCH_DATABASES=pglite or =postgres runs one database only. Also printed:
// this process's CPU per event (PGlite's thread included; PostgreSQL's server not), database statements
// per event, and how long the main thread's event loop was held (p99 and max of its delay) meanwhile.
// The database's own CPU is printed too, read from /proc: PostgreSQL's server processes for the bench's
// database (when the server runs on this machine), so the figures count all the work an event costs and not
// only this process's share, and PGlite's thread (a part of this process's); the machine has 2 cores, and the
// load generator, this process and the database share them.
import { readdirSync, readFileSync } from 'node:fs';
import { mountSlack } from '../src/http/surface-mount.ts';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { App as BoltApp, ExpressReceiver, LogLevel } from '@slack/bolt';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { rowsOf } from '../src/infra/db/org-repo.ts';
import { slackRuntime } from '../src/app-surfaces.ts';
import { connectSlackTeam } from '../src/surfaces/slack/index.ts';
import { loadConfig } from '../src/config.ts';
import { SYSTEM } from '../src/core/actor.ts';
import type { App } from '../src/app.ts';
import { startServer } from '../src/server.ts';
import { benchDatabases } from './database.ts';
import { inboxCounter, type InboxCounter } from './inbox.ts';
import { SLACK_DEFAULTS } from '../test/support/slack/defaults.ts';
import { appMention, eventCallback, signRequest } from '../test/support/slack/signed-request.ts';
import { startSlackStandin, type SlackStandin } from '../test/support/slack/web-api-standin.ts';

const EVENTS = Number(process.env.SLACK_BENCH_EVENTS ?? 400);
const CONCURRENCY = Number(process.env.SLACK_BENCH_CONCURRENCY ?? 16);
const ROUNDS = Number(process.env.SLACK_BENCH_ROUNDS ?? 3);
const WARMUP = 50;
const PEOPLE = 20;
const TARGET = { ratio: 0.9, p99Ms: 100, endToEnd: 200 };

export const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const median = (xs: number[]) => pct(xs, 50);
/** CPU time this process (both receivers, the jobs, the stand-in and the load generator's thread) spent since `since`. */
const cpuMsSince = (since: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
};

export interface Run {
  p50: number;
  p99: number;
  perSecond: number;
  failures: number;
  cpuMs: number;
  threads: ThreadCpu;
}

/** CPU (ms per event) of this process's main thread, the load generator's thread, and all its other threads (V8's helpers, libuv's pool, PGlite's). */
interface ThreadCpu {
  main: number;
  loader: number;
  others: number;
}

/** CPU (ms) each thread of this process has used so far, by thread id (Linux; empty elsewhere). */
function threadsCpu(): Map<number, number> {
  try {
    return new Map(
      readdirSync('/proc/self/task').map((tid) => {
        const fields = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
        return [Number(tid), (Number(fields[11]) + Number(fields[12])) * 10];
      }),
    );
  } catch {
    return new Map();
  }
}

type BenchDb = Awaited<ReturnType<ReturnType<typeof benchDatabases>[number]['open']>>;

/** CPU (ms) a process has used so far, from /proc (Linux); throws elsewhere or once it has ended. */
export function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10; // USER_HZ is 100 on Linux
}

/**
 * CPU (ms) spent so far by each PostgreSQL server process serving the bench's database, by pid (or by PGlite's
 * thread, as one entry); null when the server is not on this machine or the system does not tell. A process that
 * ends between two readings is missed; the pool keeps its connections open for 30 s idle, longer than a round.
 */
export async function serverCpu(db: BenchDb['db']): Promise<Map<number, number> | null> {
  if (db.kind === 'pglite') {
    // PGlite's thread, which this process's CPU includes too (printed apart: the database's share of it).
    const ms = await db.threadCpuMs?.();
    return ms === null || ms === undefined ? null : new Map([[0, ms]]);
  }
  const pids = rowsOf<{ pid: number }>(
    await db.db.execute(sql`select pid from pg_stat_activity where datname = current_database()`),
  );
  try {
    return new Map(pids.map(({ pid }) => [pid, processCpuMs(pid)]));
  } catch {
    return null;
  }
}
/** Server CPU (ms) spent between two readings; a process new in the second counts from its start. */
export const serverCpuBetween = (a: Map<number, number> | null, b: Map<number, number> | null) =>
  a && b ? [...b].reduce((sum, [pid, ms]) => sum + ms - (a.get(pid) ?? 0), 0) : NaN;

// The load generator: posts the signed requests CONCURRENCY at a time and times each until its HTTP answer.
const LOADER = `
const { parentPort, workerData: { requests, concurrency } } = require('node:worker_threads');
(async () => {
  const latencies = [];
  let failures = 0, next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < requests.length) {
      const { url, headers, body } = requests[next++];
      const t = performance.now();
      const res = await fetch(url, { method: 'POST', headers, body });
      await res.arrayBuffer();
      latencies.push(performance.now() - t);
      if (res.status !== 200) failures += 1;
    }
  }));
  parentPort.postMessage({ latencies, seconds: (performance.now() - started) / 1000, failures });
})();`;

/** Posts `n` distinct signed mentions from a worker thread, to `urls` in turn (as a load balancer spreads them). */
export async function load(urls: string | string[], n: number, tag: string): Promise<Run> {
  const to = [urls].flat();
  const requests = Array.from({ length: n }, (_, i) => ({
    url: to[i % to.length],
    ...signRequest(
      eventCallback(
        appMention({
          user: `U0BENCH${String(i % PEOPLE).padStart(3, '0')}`,
          channel: `C0BENCH${i % 8}`,
          text: `<@${SLACK_DEFAULTS.botUserId}> @reviewer ${tag} request ${i}`,
        }),
      ),
    ),
  }));
  const cpu = process.cpuUsage();
  const before = threadsCpu();
  const worker = new Worker(LOADER, { eval: true, workerData: { requests, concurrency: CONCURRENCY } });
  const r = await new Promise<{ latencies: number[]; seconds: number; failures: number }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  const after = threadsCpu();
  await worker.terminate();
  // The load generator's thread is the one that was not there before; the main thread's id is the process's.
  const threads = { main: 0, loader: 0, others: 0 };
  for (const [tid, ms] of after) {
    const used = (ms - (before.get(tid) ?? 0)) / n;
    if (tid === process.pid) threads.main += used;
    else if (!before.has(tid)) threads.loader += used;
    else threads.others += used;
  }
  return {
    p50: pct(r.latencies, 50),
    p99: pct(r.latencies, 99),
    perSecond: n / r.seconds,
    failures: r.failures,
    cpuMs: cpuMsSince(cpu) / n,
    threads,
  };
}

/** A Bolt app that only acknowledges: the floor any Bolt-based receiver stands on. */
async function startBareBolt(standin: SlackStandin) {
  const receiver = new ExpressReceiver({
    signingSecret: SLACK_DEFAULTS.signingSecret,
    endpoints: '/slack/events',
    logLevel: LogLevel.ERROR,
  });
  const bolt = new BoltApp({
    receiver,
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl: standin.url },
    authorize: async () => ({
      botToken: standin.botToken,
      botId: SLACK_DEFAULTS.botId,
      botUserId: SLACK_DEFAULTS.botUserId,
    }),
  });
  bolt.event('app_mention', async () => {});
  const server = await receiver.start(0);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`,
    stop: () => receiver.stop(),
  };
}

interface Handling {
  endToEnd: number;
  cpuPerEvent: number;
  queriesPerEvent: number;
  ackQueriesPerEvent: number;
  loopP99: number;
  loopMax: number;
  serverAck: number;
  serverAll: number;
}
interface Figures extends Handling {
  kind: string;
  bare: Run;
  ours: Run;
  ratios: number[];
}

async function measure(
  standin: SlackStandin,
  database: Awaited<ReturnType<typeof benchDatabases>>[number],
): Promise<Figures> {
  const { db, kind, close } = await database.open();
  const config = loadConfig({
    PORT: '0',
    LOG_LEVEL: 'silent',
    SWITCHBOARD_SECRET: 'bench-switchboard-secret-0123456789abcdef',
    SLACK_SIGNING_SECRET: SLACK_DEFAULTS.signingSecret,
    SLACK_API_URL: standin.url,
    DATA_DIR: '/tmp/switchboard-slack-bench',
  });
  const server = await startServer(config, {
    database: db,
    logger: pino({ level: 'silent' }),
    host: '127.0.0.1',
    control: false,
    mounts: [mountSlack],
    surfaces: { slack: { paceMs: 0 } },
  });
  const { app } = server;
  const bare = await startBareBolt(standin);
  let counter: InboxCounter | null = null;
  try {
    const { reviewer } = await seedSlackBench(app, standin);
    const ours = `${server.url}/slack/events`;
    // Counts deliveries on the inbox's wake-ups (their statements are left out below).
    counter = await inboxCounter(app, db, reviewer.id);
    const { delivered, drained } = counter;
    const polls = () => counter!.polls();

    await load(bare.url, WARMUP, 'warm-up');
    await load(ours, WARMUP, 'warm-up');
    await drained(WARMUP);
    const rounds: Array<Handling & { bare: Run; ours: Run }> = [];
    for (let round = 0; round < ROUNDS; round++) {
      const base = await delivered();
      const bareRun = await load(bare.url, EVENTS, `bare ${round}`);
      const server0 = await serverCpu(db);
      const started = performance.now();
      const cpu = process.cpuUsage();
      const [queries, polled] = [db.queries(), polls()];
      const loop = monitorEventLoopDelay({ resolution: 5 });
      loop.enable();
      const oursRun = await load(ours, EVENTS, `switchboard ${round}`);
      const beforeReading = db.queries();
      const ackQueriesPerEvent = (beforeReading - queries) / EVENTS;
      const server1 = await serverCpu(db);
      const reading = db.queries() - beforeReading;
      await drained(base + EVENTS);
      loop.disable();
      const queriesPerEvent = (db.queries() - queries - (polls() - polled) - reading) / EVENTS;
      const [endToEnd, cpuPerEvent] = [EVENTS / ((performance.now() - started) / 1000), cpuMsSince(cpu) / EVENTS];
      const server2 = await serverCpu(db);
      rounds.push({
        bare: bareRun,
        ours: oursRun,
        endToEnd,
        cpuPerEvent,
        queriesPerEvent,
        ackQueriesPerEvent,
        loopP99: loop.percentile(99) / 1e6,
        loopMax: loop.max / 1e6,
        serverAck: serverCpuBetween(server0, server1) / EVENTS,
        serverAll: serverCpuBetween(server0, server2) / EVENTS,
      });
    }
    const pick = (f: (r: (typeof rounds)[number]) => Run): Run => ({
      p50: median(rounds.map((r) => f(r).p50)),
      p99: median(rounds.map((r) => f(r).p99)),
      perSecond: median(rounds.map((r) => f(r).perSecond)),
      failures: rounds.reduce((n, r) => n + f(r).failures, 0),
      cpuMs: median(rounds.map((r) => f(r).cpuMs)),
      threads: {
        main: median(rounds.map((r) => f(r).threads.main)),
        loader: median(rounds.map((r) => f(r).threads.loader)),
        others: median(rounds.map((r) => f(r).threads.others)),
      },
    });
    return {
      kind,
      bare: pick((r) => r.bare),
      ours: pick((r) => r.ours),
      ratios: rounds.map((r) => r.ours.perSecond / r.bare.perSecond),
      endToEnd: median(rounds.map((r) => r.endToEnd)),
      cpuPerEvent: median(rounds.map((r) => r.cpuPerEvent)),
      queriesPerEvent: median(rounds.map((r) => r.queriesPerEvent)),
      ackQueriesPerEvent: median(rounds.map((r) => r.ackQueriesPerEvent)),
      loopP99: median(rounds.map((r) => r.loopP99)),
      loopMax: median(rounds.map((r) => r.loopMax)),
      serverAck: median(rounds.map((r) => r.serverAck)),
      serverAll: median(rounds.map((r) => r.serverAll)),
    };
  } finally {
    await counter?.close();
    await bare.stop();
    await server.stop();
    await close();
  }
}

/** The Slack Web API stand-in, knowing the people who mention the agent. */
export async function startBenchStandin(): Promise<SlackStandin> {
  const standin = await startSlackStandin();
  for (let i = 0; i < PEOPLE; i++)
    standin.setUser(`U0BENCH${String(i).padStart(3, '0')}`, { real_name: `Bench Person ${i}` });
  return standin;
}

/** Org `bench` (admin alice, no message limit), its workspace, the agent alice/reviewer the mentions name, and the Slack team. */
export async function seedSlackBench(app: App, standin: SlackStandin) {
  await app.orgs.init({ org: 'Bench', admin: 'alice' });
  const ws = await app.orgs.addWorkspace(SYSTEM, { name: 'Bench', org: 'bench' });
  await app.orgs.setPlan(SYSTEM, 'bench', 'team', 10_000_000);
  const { agent: reviewer } = await app.agents.add(SYSTEM, {
    name: 'reviewer',
    owner: 'alice',
    displayName: 'Reviewer',
  });
  await app.agents.join(SYSTEM, { agent: 'alice/reviewer', workspace: 'bench' });
  await connectSlackTeam(slackRuntime(app), {
    workspace: 'bench',
    teamId: SLACK_DEFAULTS.teamId,
    botToken: standin.botToken,
  });
  return { ws, reviewer };
}

export default async function bench() {
  const standin = await startBenchStandin();
  console.log(
    `  ${EVENTS} signed app_mention events per receiver and round, ${CONCURRENCY} in flight, 8 channels, median of ${ROUNDS} rounds; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const all: Figures[] = [];
  try {
    for (const database of benchDatabases()) all.push(await measure(standin, database));
  } finally {
    await standin.close();
  }
  const ok = (pass: boolean) => (pass ? 'ok' : 'MISSED');
  const cell = (r: Run) =>
    `p50 ${r.p50.toFixed(1).padStart(6)} ms  p99 ${r.p99.toFixed(1).padStart(6)} ms  ${r.perSecond.toFixed(0).padStart(5)}/s`;
  for (const f of all) {
    // Each round's Switchboard load against the bare one just before it (the machine's load drifts between rounds).
    const ratio = median(f.ratios);
    console.log(`  ${f.kind}`);
    console.log(`    bare Bolt (ack only)  ${cell(f.bare)}  non-200: ${f.bare.failures}`);
    console.log(`    Switchboard           ${cell(f.ours)}  non-200: ${f.ours.failures}`);
    const range = `${Math.min(...f.ratios).toFixed(2)}–${Math.max(...f.ratios).toFixed(2)}`;
    console.log(
      `    ack throughput ratio ${ratio.toFixed(2)}x, median of the rounds' (${range}) (target ≥ ${TARGET.ratio}x: ${ok(ratio >= TARGET.ratio)}), ack p99 ${f.ours.p99.toFixed(1)} ms (target < ${TARGET.p99Ms} ms: ${ok(f.ours.p99 < TARGET.p99Ms)})`,
    );
    console.log(
      `    end to end (signed event → agent's inbox) ${f.endToEnd.toFixed(0)} events/s` +
        (f.kind.startsWith('PostgreSQL')
          ? ` (target ≥ ${TARGET.endToEnd}/s: ${ok(f.endToEnd >= TARGET.endToEnd)})`
          : ''),
    );
    console.log(
      `    CPU of this process per event: bare ack ${f.bare.cpuMs.toFixed(2)} ms, Switchboard ack ${f.ours.cpuMs.toFixed(2)} ms (during the load), ack and handling ${f.cpuPerEvent.toFixed(2)} ms`,
    );
    const threads = (t: ThreadCpu) =>
      `main ${t.main.toFixed(2)}, load generator ${t.loader.toFixed(2)}, other threads ${t.others.toFixed(2)}`;
    console.log(
      `    by thread during the load (ms per event, 10 ms ticks): bare ${threads(f.bare.threads)}; Switchboard ${threads(f.ours.threads)}`,
    );
    if (Number.isFinite(f.serverAck)) {
      const whose = f.kind.startsWith('PGlite')
        ? "PGlite's thread (counted in this process's above)"
        : "PostgreSQL's processes for this database";
      console.log(
        `    CPU of ${whose} per event: during the load ${f.serverAck.toFixed(2)} ms, ack and handling ${f.serverAll.toFixed(2)} ms`,
      );
    }
    console.log(
      `    database statements per event during the load ${f.ackQueriesPerEvent.toFixed(2)}, ack and handling ${f.queriesPerEvent.toFixed(1)}; main thread's event-loop delay meanwhile: p99 ${f.loopP99.toFixed(0)} ms, max ${f.loopMax.toFixed(0)} ms`,
    );
  }
}
