// `npm run chaos [-- --quick] [-- --queue embedded|bullmq]`: figures, not a test (issue 12).
// For each queue (the embedded loop, then BullMQ on a private Redis), a real `switchboard serve` child process takes
// CHAOS_EVENTS (1,000; 100 with --quick) signed Slack mentions of an agent while the agent answers each one in its
// thread through the domain, and meanwhile: the Slack Web API stand-in answers 20% of calls 429 (Retry-After: 1) or
// 500, the server is killed with SIGKILL and later stopped with SIGTERM (started again each time), the private
// Redis is killed and started empty (BullMQ), and every backend of the bench's own database is terminated every
// few seconds. Then the faults end, and the bench counts from the database and the stand-in's record: mentions
// acknowledged but never in the agent's inbox, answers never posted, what was stored or posted twice, and how long
// after the faults ended the last one arrived.
// Needs PostgreSQL (CHAOS_DATABASE_URL, else TEST_DATABASE_URL): it creates and drops a database chaos_<pid>_<queue>.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../src/adapters/db/org-repo.ts';
import { connectSlackTeam } from '../../src/adapters/slack/index.ts';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { SYSTEM } from '../../src/domain/actor.ts';
import { SLACK_DEFAULTS } from '../../test/support/slack/defaults.ts';
import { startSlackStandin, type SlackStandin } from '../../test/support/slack/web-api-standin.ts';
import { freePort, PrivateRedis, ServerProcess } from './processes.ts';
import { CHANNELS, inboundTag, replyTag, sendMentions, sendReplies, USERS } from './traffic.ts';

type QueueKind = 'embedded' | 'bullmq';
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const N = Number(process.env.CHAOS_EVENTS ?? (quick ? 100 : 1000));
const queues: QueueKind[] = args.includes('--queue') ? [args[args.indexOf('--queue') + 1] as QueueKind] : ['embedded', 'bullmq'];
const SECRET = 'chaos-bench-switchboard-secret-0123456789';
const TERMINATE_EVERY_MS = 4_000;
const SETTLE_MS = 180_000;

interface Row {
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

async function scenario(queue: QueueKind): Promise<{ rows: Row[]; faults: string }> {
  const base = process.env.CHAOS_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!base) throw new Error('The chaos bench needs PostgreSQL: set CHAOS_DATABASE_URL or TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test).');
  const run = `${queue.slice(0, 3)}${process.pid}`;
  const dbName = `chaos_${process.pid}_${queue}`;
  const admin = new pg.Client({ connectionString: base });
  admin.on('error', () => {});
  await admin.connect();
  await admin.query(`drop database if exists ${dbName} with (force)`);
  await admin.query(`create database ${dbName}`);
  const dbUrl = new URL(base);
  dbUrl.pathname = `/${dbName}`;
  const dir = mkdtempSync(path.join(tmpdir(), `chaos-${queue}-`));
  const standin: SlackStandin = await startSlackStandin();
  for (const u of USERS) standin.setUser(u, { real_name: `Chaos ${u.slice(-2)}` });
  const redis = queue === 'bullmq' ? new PrivateRedis(await freePort()) : null;
  await redis?.start();

  const env = {
    DATABASE_URL: dbUrl.toString(), SWITCHBOARD_SECRET: SECRET, SLACK_SIGNING_SECRET: SLACK_DEFAULTS.signingSecret,
    SLACK_API_URL: standin.url, DATA_DIR: dir,
  };
  // The bench's own process: it seeds, and speaks as the agent (its queue never starts; the server delivers).
  const app = await createApp(loadConfig({ ...env, PORT: '0', LOG_LEVEL: 'silent' }), { logger: pino({ level: 'silent' }) });
  await app.orgs.init({ org: 'Acme', admin: 'alice' });
  await app.orgs.setPlan(SYSTEM, 'acme', 'team', 10_000_000);
  const ws = await app.orgs.addWorkspace(SYSTEM, { name: 'Eng', org: 'acme' });
  const { agent } = await app.agents.add(SYSTEM, { name: 'reviewer', owner: 'alice', displayName: 'Reviewer' });
  await app.agents.join(SYSTEM, { agent: 'alice/reviewer', workspace: 'eng' });
  await connectSlackTeam(app, { workspace: 'eng', teamId: SLACK_DEFAULTS.teamId, botToken: standin.botToken });

  const server = new ServerProcess({
    port: await freePort(), logDir: dir,
    env: { ...env, LOG_LEVEL: 'warn', ...(redis ? { REDIS_URL: redis.url } : {}) },
  });
  await server.start();

  // Faults on.
  const started = Date.now();
  standin.failRandomly(0.2, () => (Math.random() < 0.5 ? { status: 429, retryAfter: 1 } : { status: 500 }));
  let terminations = 0;
  let backends = 0;
  let terminating = true;
  const terminator = (async () => {
    while (terminating) {
      await pause(TERMINATE_EVERY_MS);
      const r = await admin.query('select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [dbName]);
      terminations += 1;
      backends += r.rows[0].n as number;
    }
  })();
  let acks = 0;
  const progress = () => acks / (2 * N);
  let mentionsDone = false;
  const inbound = sendMentions({ url: () => server.url, run, n: N, onAck: () => { acks += 1; } }).finally(() => { mentionsDone = true; });
  const replies = sendReplies({ app, ws, agent, run, n: N, onAck: () => { acks += 1; }, mentionsDone: () => mentionsDone });
  const at = async (p: number) => { while (progress() < p) await pause(100); };
  await at(0.15);
  await server.kill();
  await at(0.35);
  await server.restart();
  if (redis) {
    await at(0.55);
    await redis.restart();
  }
  const [acked, answered] = await Promise.all([inbound, replies]);
  terminating = false;
  await terminator;
  const faultsEnd = Date.now();
  standin.failRandomly(0);
  const calls = standin.calls.length;
  const failed = standin.calls.filter((c) => c.status === 429 || c.status === 500).length;

  // Settle: wait until everything acknowledged has arrived, or give up.
  const received = async () => {
    const rows = rowsOf<{ body: string; created_at: Date | string }>(await app.database.db.execute(
      sql`select body, created_at from messages where body like ${`%chaos-in-${run}-%`}`));
    const byIndex = new Map<number, number[]>();
    for (const r of rows) {
      const i = Number(new RegExp(`chaos-in-${run}-(\\d+)$`).exec(r.body.trim())?.[1]);
      if (Number.isInteger(i)) byIndex.set(i, [...(byIndex.get(i) ?? []), new Date(r.created_at).getTime()]);
    }
    return byIndex;
  };
  const posted = () => {
    const byMessage = new Map<string, number>();
    for (let c = 0; c < CHANNELS; c++) {
      for (const m of standin.messages(`C0CHAOS${String(c).padStart(2, '0')}`)) {
        const id = (m.metadata as { event_payload?: { switchboard_message_id?: string } } | undefined)?.event_payload?.switchboard_message_id;
        if (id) byMessage.set(id, (byMessage.get(id) ?? 0) + 1);
      }
    }
    const firstAt = new Map<string, number>();
    for (const c of standin.callsTo('chat.postMessage')) {
      const id = (c.args.metadata as { event_payload?: { switchboard_message_id?: string } } | undefined)?.event_payload?.switchboard_message_id;
      if (id && c.status === 200 && !firstAt.has(id)) firstAt.set(id, c.at.getTime());
    }
    return { byMessage, firstAt };
  };
  const settleEnd = faultsEnd + SETTLE_MS;
  while (Date.now() < settleEnd) {
    const [inb, out] = [await received().catch(() => new Map()), posted()];
    if ([...acked.keys()].every((i) => inb.has(i)) && [...answered.values()].every((r) => out.byMessage.has(r.messageId))) break;
    await pause(500);
  }

  const inb = await received();
  const out = posted();
  const sentTwice = rowsOf<{ n: number }>(await app.database.db.execute(
    sql`select count(*)::int as n from (select body from messages where body like ${`chaos-out-${run}-%`} group by body having count(*) > 1) d`))[0]!.n;
  const slowest = (spans: number[]) => (spans.length ? Math.max(0, ...spans) / 1000 : null);
  const delay = (times: number[]) => (times.length ? Math.max(0, ...times.map((t) => t - faultsEnd)) / 1000 : null);
  const rows: Row[] = [
    {
      queue, what: 'Slack mentions → agent inbox', acked: acked.size, delivered: [...acked.keys()].filter((i) => inb.has(i)).length,
      lost: [...acked.keys()].filter((i) => !inb.has(i)).length,
      duplicated: [...inb.values()].filter((t) => t.length > 1).length,
      maxDelayS: delay([...acked.keys()].map((i) => Math.min(...(inb.get(i) ?? [Infinity])))),
      slowestS: slowest([...acked].map(([i, at]) => Math.min(...(inb.get(i) ?? [Infinity])) - at)),
    },
    {
      queue, what: 'agent answers → Slack threads', acked: answered.size,
      delivered: [...answered.values()].filter((r) => out.byMessage.has(r.messageId)).length,
      lost: [...answered.values()].filter((r) => !out.byMessage.has(r.messageId)).length,
      duplicated: [...answered.values()].filter((r) => (out.byMessage.get(r.messageId) ?? 0) > 1).length + sentTwice,
      maxDelayS: delay([...answered.values()].map((r) => out.firstAt.get(r.messageId) ?? Infinity)),
      slowestS: slowest([...answered.values()].map((r) => (out.firstAt.get(r.messageId) ?? Infinity) - r.ackedAt)),
    },
  ];
  const faults = `${queue}: ${((faultsEnd - started) / 1000).toFixed(0)} s of faults: 1 kill -9, 1 SIGTERM (stopped in ${server.stopTimes.map((t) => (t / 1000).toFixed(1)).join(', ')} s)` +
    `${redis ? ', 1 Redis restart (emptied)' : ''}, ${terminations} rounds of pg_terminate_backend (${backends} backends), ` +
    `${failed} of ${calls} Slack calls answered 429/500, ${server.crashes} server crashes`;

  await server.stop();
  await app.close();
  await redis?.stop();
  await standin.close();
  await admin.query(`drop database if exists ${dbName} with (force)`);
  await admin.end();
  if (!rows.some((r) => r.lost || r.duplicated)) rmSync(dir, { recursive: true, force: true });
  else console.log(`server logs kept in ${dir}`);
  return { rows, faults };
}

process.once('SIGINT', () => process.exit(130));
const began = Date.now();
const results = [];
for (const q of queues) results.push(await scenario(q));
console.log(`\nchaos: ${N} Slack mentions and ${N} agent answers per queue, in ${((Date.now() - began) / 60_000).toFixed(1)} min\n`);
const seconds = (v: number | null) => (v === null ? '-' : v === Infinity ? 'never' : `${v.toFixed(1)} s`);
console.log('| queue | flow | acknowledged | delivered | lost | duplicated | last one after the faults ended | slowest, ack to delivery |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of results.flatMap((x) => x.rows)) {
  console.log(`| ${r.queue} | ${r.what} | ${r.acked} | ${r.delivered} | ${r.lost} | ${r.duplicated} | ${seconds(r.maxDelayS)} | ${seconds(r.slowestS)} |`);
}
console.log('');
for (const r of results) console.log(r.faults);
process.exit(0);
