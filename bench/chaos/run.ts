// `npm run chaos [-- --quick] [-- --database embedded|postgres] [-- --queue embedded|bullmq] [-- --slack http|socket]`: figures (acknowledged work lost or doubled under faults), not a test.
// On PostgreSQL, for each queue (the embedded loop, then BullMQ on a private Redis), a real `switchboard serve` child process takes
// CHAOS_EVENTS (1,000; 100 with --quick) signed Slack mentions of an agent while the agent answers each one in its
// thread through the domain, and meanwhile: the Slack Web API stand-in answers 20% of calls 429 (Retry-After: 1) or
// 500, the server is killed with SIGKILL and later stopped with SIGTERM (started again each time), the private
// Redis is killed and started empty (BullMQ), and every backend of the bench's own database is terminated every
// few seconds. Then the faults end, and the bench counts from the database and the stand-in's record: mentions
// acknowledged but never in the agent's inbox, answers never posted, what was stored or posted twice, and how long
// after the faults ended the last one arrived.
// The PostgreSQL runs need CHAOS_DATABASE_URL (else TEST_DATABASE_URL): each creates and drops a database chaos_<pid>_<queue>.
// On the embedded database (PGlite in DATA_DIR, one process at a time), the bench seeds it and closes it before the
// server starts, so the agent's answers are left out; the mentions go through the inbound journal while the server is
// killed with SIGKILL mid-burst and right after it, and stopped once with SIGTERM; the bench reads the server's metrics
// until the journal and the inbound jobs are empty, stops it, and counts from the database.
// Each run is made twice: with the mentions as signed HTTP requests, and over Socket Mode (SLACK_APP_TOKEN), where the
// same mentions are envelopes on the server's WebSocket to the stand-in, which sends each again until it is
// acknowledged (a killed or stopping server's included) and gives it up after the third retry, as Slack does. Over
// Socket Mode the PostgreSQL runs use the embedded queue unless --queue names one: the queue comes after the
// acknowledgement, the same for both.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../src/infra/db/org-repo.ts';
import { slackRuntime } from '../../src/app-surfaces.ts';
import { connectSlackTeam } from '../../src/surfaces/slack/index.ts';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { SYSTEM } from '../../src/core/actor.ts';
import { SLACK_DEFAULTS } from '../../test/support/slack/defaults.ts';
import { startSlackStandin, type SlackStandin } from '../../test/support/slack/web-api-standin.ts';
import { freePort, PrivateRedis, ServerProcess } from './processes.ts';
import { CHANNELS, sendEnvelopes, sendMentions, sendReplies, USERS } from './traffic.ts';

type QueueKind = 'embedded' | 'bullmq';
type DatabaseKind = 'embedded' | 'postgres';
/** How Slack's requests reach the server: signed HTTP requests, or envelopes over Socket Mode. */
type SlackKind = 'http' | 'socket';
const SLACK_NAMES: Record<SlackKind, string> = { http: 'HTTP', socket: 'Socket Mode' };
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const N = Number(process.env.CHAOS_EVENTS ?? (quick ? 100 : 1000));
const option = <T extends string>(name: string, values: T[]): T | null => {
  if (!args.includes(name)) return null;
  const value = args[args.indexOf(name) + 1] as T;
  if (!values.includes(value)) throw new Error(`${name} takes ${values.join(' or ')}, not ${value ?? 'nothing'}.`);
  return value;
};
const queue = option<QueueKind>('--queue', ['embedded', 'bullmq']);
const database = option<DatabaseKind>('--database', ['embedded', 'postgres']);
const queues: QueueKind[] = queue ? [queue] : ['embedded', 'bullmq'];
const slack = option<SlackKind>('--slack', ['http', 'socket']);
const slacks: SlackKind[] = slack ? [slack] : ['http', 'socket'];
const baseUrl = process.env.CHAOS_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
// --queue alone keeps its old meaning: the PostgreSQL runs on that queue.
const databases: DatabaseKind[] = database
  ? [database]
  : queue
    ? ['postgres']
    : baseUrl
      ? ['embedded', 'postgres']
      : ['embedded'];
const SECRET = 'chaos-bench-switchboard-secret-0123456789';
const METRICS_TOKEN = 'chaos-bench-metrics-token-0123456789';
const TERMINATE_EVERY_MS = 4_000;
const SETTLE_MS = 180_000;

interface Row {
  slack: SlackKind;
  database: DatabaseKind;
  queue: QueueKind;
  what: string;
  acked: number;
  delivered: number;
  lost: number;
  duplicated: number;
  maxDelayS: number | null;
  /** The slowest one from its acknowledgement to its arrival. */
  slowestS: number | null;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Waits until `progress()` reaches `p`. */
const at = async (progress: () => number, p: number) => {
  while (progress() < p) await pause(20);
};
const slowest = (spans: number[]) => (spans.length ? Math.max(0, ...spans) / 1000 : null);
const delayAfter = (faultsEnd: number, times: number[]) =>
  times.length ? Math.max(0, ...times.map((t) => t - faultsEnd)) / 1000 : null;

/**
 * The run's working folder (DATA_DIR, server logs) and the Slack stand-in, with the server's environment, and how
 * the mentions are sent to the server.
 */
async function setUp(label: string, databaseUrl: string, slack: SlackKind) {
  const dir = mkdtempSync(path.join(tmpdir(), `chaos-${label}-${slack}-`));
  const standin: SlackStandin = await startSlackStandin();
  for (const u of USERS) standin.setUser(u, { real_name: `Chaos ${u.slice(-2)}` });
  // Empty settings count as unset: the embedded database ignores a DATABASE_URL or REDIS_URL of the shell.
  const env = {
    DATABASE_URL: databaseUrl,
    REDIS_URL: '',
    SWITCHBOARD_SECRET: SECRET,
    ...(slack === 'socket'
      ? { SLACK_APP_TOKEN: standin.appToken }
      : { SLACK_SIGNING_SECRET: SLACK_DEFAULTS.signingSecret }),
    SLACK_API_URL: standin.url,
    DATA_DIR: dir,
  };
  const mentions = (o: { server: ServerProcess; run: string; onAck: () => void }) =>
    slack === 'socket'
      ? sendEnvelopes({ socket: standin.socketMode, run: o.run, n: N, onAck: o.onAck })
      : sendMentions({ url: () => o.server.url, run: o.run, n: N, onAck: o.onAck });
  const open = () =>
    createApp(loadConfig({ ...env, PORT: '0', LOG_LEVEL: 'silent' }), { logger: pino({ level: 'silent' }) });
  /** Starts the server child, then the faults begin: the stand-in answers 20% of calls 429 or 500. */
  const serve = async (extra: Record<string, string> = {}) => {
    const server = new ServerProcess({
      port: await freePort(),
      logDir: dir,
      env: { ...env, LOG_LEVEL: 'warn', ...extra },
    });
    await server.start();
    standin.failRandomly(0.2, () => (Math.random() < 0.5 ? { status: 429, retryAfter: 1 } : { status: 500 }));
    return server;
  };
  return { dir, standin, open, serve, mentions };
}

/** The org, workspace, agent and Slack install every run starts from. */
async function seed(app: App, standin: SlackStandin) {
  await app.orgs.init({ org: 'Acme', admin: 'alice' });
  await app.orgs.setPlan(SYSTEM, 'acme', 'team', 10_000_000);
  const ws = await app.orgs.addWorkspace(SYSTEM, { name: 'Eng', org: 'acme' });
  const { agent } = await app.agents.add(SYSTEM, { name: 'reviewer', owner: 'alice', displayName: 'Reviewer' });
  await app.agents.join(SYSTEM, { agent: 'alice/reviewer', workspace: 'eng' });
  await connectSlackTeam(slackRuntime(app), {
    workspace: 'eng',
    teamId: SLACK_DEFAULTS.teamId,
    botToken: standin.botToken,
  });
  return { ws, agent };
}

/** When each mention of the run was stored as a message, by its index. */
async function received(app: App, run: string): Promise<Map<number, number[]>> {
  const rows = rowsOf<{ body: string; created_at: Date | string }>(
    await app.database.db.execute(sql`select body, created_at from messages where body like ${`%chaos-in-${run}-%`}`),
  );
  const byIndex = new Map<number, number[]>();
  for (const r of rows) {
    const i = Number(new RegExp(`chaos-in-${run}-(\\d+)$`).exec(r.body.trim())?.[1]);
    if (Number.isInteger(i)) byIndex.set(i, [...(byIndex.get(i) ?? []), new Date(r.created_at).getTime()]);
  }
  return byIndex;
}

function mentionsRow(
  slack: SlackKind,
  database: DatabaseKind,
  queue: QueueKind,
  acked: Map<number, number>,
  inb: Map<number, number[]>,
  faultsEnd: number,
): Row {
  return {
    slack,
    database,
    queue,
    what: 'Slack mentions → agent inbox',
    acked: acked.size,
    delivered: [...acked.keys()].filter((i) => inb.has(i)).length,
    lost: [...acked.keys()].filter((i) => !inb.has(i)).length,
    duplicated: [...inb.values()].filter((t) => t.length > 1).length,
    maxDelayS: delayAfter(
      faultsEnd,
      [...acked.keys()].map((i) => Math.min(...(inb.get(i) ?? [Infinity]))),
    ),
    slowestS: slowest([...acked].map(([i, ackedAt]) => Math.min(...(inb.get(i) ?? [Infinity])) - ackedAt)),
  };
}

/** Logs are kept when something was lost or doubled, for a look. */
function cleanUp(dir: string, rows: Row[]) {
  if (!rows.some((r) => r.lost || r.duplicated)) rmSync(dir, { recursive: true, force: true });
  else console.log(`server logs kept in ${dir}`);
}

async function postgresScenario(queue: QueueKind, slack: SlackKind): Promise<{ rows: Row[]; faults: string }> {
  if (!baseUrl)
    throw new Error(
      'The chaos bench needs PostgreSQL for --database postgres: set CHAOS_DATABASE_URL or TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test).',
    );
  const run = `${queue.slice(0, 3)}${slack === 'socket' ? 'sm' : ''}${process.pid}`;
  const dbName = `chaos_${process.pid}_${queue}${slack === 'socket' ? '_socket' : ''}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  admin.on('error', () => {});
  await admin.connect();
  await admin.query(`drop database if exists ${dbName} with (force)`);
  await admin.query(`create database ${dbName}`);
  const dbUrl = new URL(baseUrl);
  dbUrl.pathname = `/${dbName}`;
  const { dir, standin, open, serve, mentions } = await setUp(queue, dbUrl.toString(), slack);
  const redis = queue === 'bullmq' ? new PrivateRedis(await freePort()) : null;
  await redis?.start();

  // The bench's own process: it seeds, and speaks as the agent (its queue never starts; the server delivers).
  const app = await open();
  const { ws, agent } = await seed(app, standin);

  const server = await serve(redis ? { REDIS_URL: redis.url } : {});
  const started = Date.now();
  let terminations = 0;
  let backends = 0;
  let terminating = true;
  const terminator = (async () => {
    while (terminating) {
      await pause(TERMINATE_EVERY_MS);
      const r = await admin.query(
        'select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
        [dbName],
      );
      terminations += 1;
      backends += r.rows[0].n as number;
    }
  })();
  let acks = 0;
  const progress = () => acks / (2 * N);
  let mentionsDone = false;
  const inbound = mentions({
    server,
    run,
    onAck: () => {
      acks += 1;
    },
  }).finally(() => {
    mentionsDone = true;
  });
  const replies = sendReplies({
    app,
    ws,
    agent,
    run,
    n: N,
    onAck: () => {
      acks += 1;
    },
    mentionsDone: () => mentionsDone,
  });
  await at(progress, 0.15);
  await server.kill();
  await at(progress, 0.35);
  await server.restart();
  if (redis) {
    await at(progress, 0.55);
    await redis.restart();
  }
  const [acked, answered] = await Promise.all([inbound, replies]);
  terminating = false;
  await terminator;
  const faultsEnd = Date.now();
  const slackCalls = slackFaults(standin);

  // Settle: wait until everything acknowledged has arrived, or give up.
  const posted = () => {
    const byMessage = new Map<string, number>();
    for (let c = 0; c < CHANNELS; c++) {
      for (const m of standin.messages(`C0CHAOS${String(c).padStart(2, '0')}`)) {
        const id = (m.metadata as { event_payload?: { switchboard_message_id?: string } } | undefined)?.event_payload
          ?.switchboard_message_id;
        if (id) byMessage.set(id, (byMessage.get(id) ?? 0) + 1);
      }
    }
    const firstAt = new Map<string, number>();
    for (const c of standin.callsTo('chat.postMessage')) {
      const id = (c.args.metadata as { event_payload?: { switchboard_message_id?: string } } | undefined)?.event_payload
        ?.switchboard_message_id;
      if (id && c.status === 200 && !firstAt.has(id)) firstAt.set(id, c.at.getTime());
    }
    return { byMessage, firstAt };
  };
  const settleEnd = faultsEnd + SETTLE_MS;
  while (Date.now() < settleEnd) {
    const [inb, out] = [await received(app, run).catch(() => new Map()), posted()];
    if (
      [...acked.keys()].every((i) => inb.has(i)) &&
      [...answered.values()].every((r) => out.byMessage.has(r.messageId))
    )
      break;
    await pause(500);
  }

  const inb = await received(app, run);
  const out = posted();
  const sentTwice = rowsOf<{ n: number }>(
    await app.database.db.execute(
      sql`select count(*)::int as n from (select body from messages where body like ${`chaos-out-${run}-%`} group by body having count(*) > 1) d`,
    ),
  )[0]!.n;
  const rows: Row[] = [
    mentionsRow(slack, 'postgres', queue, acked, inb, faultsEnd),
    {
      slack,
      database: 'postgres',
      queue,
      what: 'agent answers → Slack threads',
      acked: answered.size,
      delivered: [...answered.values()].filter((r) => out.byMessage.has(r.messageId)).length,
      lost: [...answered.values()].filter((r) => !out.byMessage.has(r.messageId)).length,
      duplicated: [...answered.values()].filter((r) => (out.byMessage.get(r.messageId) ?? 0) > 1).length + sentTwice,
      maxDelayS: delayAfter(
        faultsEnd,
        [...answered.values()].map((r) => out.firstAt.get(r.messageId) ?? Infinity),
      ),
      slowestS: slowest([...answered.values()].map((r) => (out.firstAt.get(r.messageId) ?? Infinity) - r.ackedAt)),
    },
  ];
  const faults =
    `${SLACK_NAMES[slack]}, postgres, ${queue} queue: ${((faultsEnd - started) / 1000).toFixed(0)} s of faults: 1 kill -9, 1 SIGTERM (stopped in ${stopTimes(server)})` +
    `${redis ? ', 1 Redis restart (emptied)' : ''}, ${terminations} rounds of pg_terminate_backend (${backends} backends), ` +
    `${slackCalls}, ${socketFigures(slack, standin)}${server.crashes} server crashes`;

  await server.stop();
  await app.close();
  await redis?.stop();
  await standin.close();
  await admin.query(`drop database if exists ${dbName} with (force)`);
  await admin.end();
  cleanUp(dir, rows);
  return { rows, faults };
}

/** The 429/500 fault of the Slack stand-in ends; what it did is counted. */
function slackFaults(standin: SlackStandin): string {
  standin.failRandomly(0);
  return `${standin.calls.filter((c) => c.status === 429 || c.status === 500).length} of ${standin.calls.length} Slack calls answered 429/500`;
}
/** Over Socket Mode: envelopes sent again, and those Slack gave up after the last retry (never acknowledged). */
const socketFigures = (slack: SlackKind, standin: SlackStandin) =>
  slack === 'socket'
    ? `${standin.socketMode.deliveries.length - N} envelopes sent again over ${standin.socketMode.opened.length} connections, ` +
      `${standin.socketMode.abandoned.length} given up unacknowledged after the last retry, `
    : '';
const stopTimes = (server: ServerProcess) => `${server.stopTimes.map((t) => (t / 1000).toFixed(1)).join(', ')} s`;

/** What the server has yet to do with acknowledged requests: lines in its inbound journal, inbound jobs not done. */
async function backlog(server: ServerProcess): Promise<{ journal: number; jobs: number }> {
  const text = await fetch(`${server.url}/metrics`, {
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    signal: AbortSignal.timeout(10_000),
  }).then((res) => (res.ok ? res.text() : Promise.reject(new Error(`metrics: ${res.status}`))));
  const sum = (line: RegExp) =>
    text
      .split('\n')
      .filter((l) => line.test(l))
      .reduce((n, l) => n + Number(l.split(' ').pop()), 0);
  return {
    journal: sum(/^switchboard_inbound_journal_waiting /),
    jobs: sum(/^switchboard_queue_depth\{(?=.*topic="inbound\.)(?=.*status="(pending|queued)")/),
  };
}

/**
 * The embedded database: one process at a time, so the bench seeds it, closes it, lets the server run on it, and
 * opens it again only once the server has stopped. The agent's answers are left out (the agent would need the
 * database the server holds).
 */
async function embeddedScenario(slack: SlackKind): Promise<{ rows: Row[]; faults: string }> {
  const run = `pgl${slack === 'socket' ? 'sm' : ''}${process.pid}`;
  const { dir, standin, open, serve, mentions } = await setUp('pglite', '', slack);
  const seeding = await open();
  await seed(seeding, standin);
  await seeding.close();

  const server = await serve({ METRICS_TOKEN });
  const started = Date.now();
  let acks = 0;
  const progress = () => acks / N;
  const atKills: string[] = [];
  const kill = async () => {
    const b = await backlog(server).catch(() => null);
    atKills.push(b ? `${b.journal}/${b.jobs}` : 'unanswered');
    await server.kill();
  };
  const inbound = mentions({
    server,
    run,
    onAck: () => {
      acks += 1;
    },
  });
  await at(progress, 0.25);
  await kill();
  await at(progress, 0.6);
  await server.restart();
  const acked = await inbound;
  await kill();
  const faultsEnd = Date.now();
  const slackCalls = slackFaults(standin);

  // Settle: until the journal and the inbound jobs are empty, or give up; then the database is the bench's again.
  const settleEnd = faultsEnd + SETTLE_MS;
  while (Date.now() < settleEnd) {
    const b = await backlog(server).catch(() => null);
    if (b && b.journal === 0 && b.jobs === 0) break;
    await pause(500);
  }
  await server.stop();
  const app = await open();
  const rows = [mentionsRow(slack, 'embedded', 'embedded', acked, await received(app, run), faultsEnd)];
  await app.close();
  await standin.close();
  const faults =
    `${SLACK_NAMES[slack]}, embedded database: ${((faultsEnd - started) / 1000).toFixed(0)} s of faults: 2 kill -9 (mid-burst, then right after it; ` +
    `requests in the journal/inbound jobs waiting at each: ${atKills.join(', ')}), 1 SIGTERM mid-burst (stopped in ${stopTimes(server)}), ${slackCalls}, ` +
    `${socketFigures(slack, standin)}${server.crashes} server crashes; no agent answers (the bench cannot share PGlite with the server)`;
  cleanUp(dir, rows);
  return { rows, faults };
}

process.once('SIGINT', () => process.exit(130));
const began = Date.now();
const results = [];
for (const s of slacks) {
  for (const d of databases) {
    if (d === 'embedded') results.push(await embeddedScenario(s));
    // Over Socket Mode only the intake differs: one queue unless --queue names one.
    else
      for (const q of s === 'socket' && !queue ? queues.slice(0, 1) : queues)
        results.push(await postgresScenario(q, s));
  }
}
console.log(
  `\nchaos: ${N} Slack mentions per run${databases.includes('postgres') ? ` and ${N} agent answers per PostgreSQL run` : ''}, in ${((Date.now() - began) / 60_000).toFixed(1)} min\n`,
);
const seconds = (v: number | null) => (v === null ? '-' : v === Infinity ? 'never' : `${v.toFixed(1)} s`);
console.log(
  '| Slack | database | queue | flow | acknowledged | delivered | lost | duplicated | last one after the faults ended | slowest, ack to delivery |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of results.flatMap((x) => x.rows)) {
  console.log(
    `| ${SLACK_NAMES[r.slack]} | ${r.database} | ${r.queue} | ${r.what} | ${r.acked} | ${r.delivered} | ${r.lost} | ${r.duplicated} | ${seconds(r.maxDelayS)} | ${seconds(r.slowestS)} |`,
  );
}
console.log('');
for (const r of results) console.log(r.faults);
process.exit(0);
