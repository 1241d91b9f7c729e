// `npm run bench slack`: signed Slack event ingest, side by side in one run:
//  - a bare Bolt app (ExpressReceiver, same signing check) whose listener only acknowledges;
//  - Switchboard's Slack mount, which stores each event (inbound_events and its outbox entry)
//    before the ack; the inbound.slack job then records the person, links the thread
//    (chat.getPermalink) and delivers to the agent's inbox.
// Both receive the same signed `app_mention` load over HTTP on 127.0.0.1 and call the same
// Slack Web API stand-in. Figures: ack latency p50/p99 and acks per second for both, the
// ratio, and for Switchboard the time until every event is in the agent's inbox.
// SLACK_BENCH_EVENTS (default 400) and SLACK_BENCH_CONCURRENCY (default 16) size the load;
// the database is a fresh one on BENCH_DATABASE_URL or TEST_DATABASE_URL, else an in-memory PGlite.
import type { AddressInfo } from 'node:net';
import { App as BoltApp, ExpressReceiver, LogLevel } from '@slack/bolt';
import { count } from 'drizzle-orm';
import pino from 'pino';
import { deliveries } from '../src/adapters/db/schema.ts';
import { connectSlackTeam, mountSlack } from '../src/adapters/slack/index.ts';
import { loadConfig } from '../src/config.ts';
import { SYSTEM } from '../src/domain/actor.ts';
import { startServer } from '../src/server.ts';
import { openBenchDatabase } from './database.ts';
import { SLACK_DEFAULTS } from '../test/support/slack/defaults.ts';
import { appMention, eventCallback, signRequest } from '../test/support/slack/signed-request.ts';
import { startSlackStandin, type SlackStandin } from '../test/support/slack/web-api-standin.ts';

const EVENTS = Number(process.env.SLACK_BENCH_EVENTS ?? 400);
const CONCURRENCY = Number(process.env.SLACK_BENCH_CONCURRENCY ?? 16);
const WARMUP = 30;
const PEOPLE = 20;

const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]; };

interface Run { latencies: number[]; seconds: number; failures: number }

/** Posts `n` distinct signed mentions to `url`, `CONCURRENCY` at a time; times each until its HTTP answer. */
async function load(url: string, n: number, tag: string): Promise<Run> {
  const bodies = Array.from({ length: n }, (_, i) => eventCallback(appMention({
    user: `U0BENCH${String(i % PEOPLE).padStart(3, '0')}`, channel: `C0BENCH${i % 8}`,
    text: `<@${SLACK_DEFAULTS.botUserId}> @reviewer ${tag} request ${i}`,
  })));
  const latencies: number[] = [];
  let failures = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < n) {
      const body = bodies[next++];
      const { headers } = signRequest(body);
      const t = performance.now();
      const res = await fetch(url, { method: 'POST', headers, body: body.body });
      await res.arrayBuffer();
      latencies.push(performance.now() - t);
      if (res.status !== 200) failures += 1;
    }
  }));
  return { latencies, seconds: (performance.now() - started) / 1000, failures };
}


/** A Bolt app that only acknowledges: the floor any Bolt-based receiver stands on. */
async function startBareBolt(standin: SlackStandin) {
  const receiver = new ExpressReceiver({ signingSecret: SLACK_DEFAULTS.signingSecret, endpoints: '/slack/events', logLevel: LogLevel.ERROR });
  const bolt = new BoltApp({
    receiver, logLevel: LogLevel.ERROR, clientOptions: { slackApiUrl: standin.url },
    authorize: async () => ({ botToken: standin.botToken, botId: SLACK_DEFAULTS.botId, botUserId: SLACK_DEFAULTS.botUserId }),
  });
  bolt.event('app_mention', async () => {});
  const server = await receiver.start(0);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`, stop: () => receiver.stop() };
}

export default async function bench() {
  const standin = await startSlackStandin();
  for (let i = 0; i < PEOPLE; i++) standin.setUser(`U0BENCH${String(i).padStart(3, '0')}`, { real_name: `Bench Person ${i}` });
  const { db, kind, close } = await openBenchDatabase();
  const config = loadConfig({
    PORT: '0', LOG_LEVEL: 'silent', SWITCHBOARD_SECRET: 'bench-switchboard-secret-0123456789abcdef',
    SLACK_SIGNING_SECRET: SLACK_DEFAULTS.signingSecret, SLACK_API_URL: standin.url, DATA_DIR: '/tmp/switchboard-slack-bench',
  });
  const server = await startServer(config, { database: db, logger: pino({ level: 'silent' }), host: '127.0.0.1', control: false, mounts: [mountSlack], surfaces: { slack: { paceMs: 0 } } });
  const { app } = server;
  await app.orgs.init({ org: 'Bench', admin: 'alice' });
  await app.orgs.addWorkspace(SYSTEM, { name: 'Bench', org: 'bench' });
  await app.orgs.setPlan(SYSTEM, 'bench', 'team', 10_000_000);
  await app.agents.add(SYSTEM, { name: 'reviewer', owner: 'alice', displayName: 'Reviewer' });
  await app.agents.join(SYSTEM, { agent: 'alice/reviewer', workspace: 'bench' });
  await connectSlackTeam(app, { workspace: 'bench', teamId: SLACK_DEFAULTS.teamId, botToken: standin.botToken });
  const bare = await startBareBolt(standin);
  const ours = `${server.url}/slack/events`;
  const delivered = async () => Number((await db.db.select({ n: count() }).from(deliveries))[0].n);

  console.log(`  ${EVENTS} signed app_mention events per receiver, ${CONCURRENCY} in flight, database: ${kind}`);
  await load(bare.url, WARMUP, 'warm-up');
  await load(ours, WARMUP, 'warm-up');
  while ((await delivered()) < WARMUP) await new Promise((r) => setTimeout(r, 20));

  const base = await delivered();
  const bareRun = await load(bare.url, EVENTS, 'bare');
  const started = performance.now();
  const oursRun = await load(ours, EVENTS, 'switchboard');
  while ((await delivered()) - base < EVENTS) await new Promise((r) => setTimeout(r, 20));
  const processedSeconds = (performance.now() - started) / 1000;

  const row = (name: string, r: Run) => console.log(
    `  ${name.padEnd(22)} ack p50 ${pct(r.latencies, 50).toFixed(2).padStart(7)} ms   p99 ${pct(r.latencies, 99).toFixed(2).padStart(7)} ms   ${(EVENTS / r.seconds).toFixed(0).padStart(6)} acks/s   non-200: ${r.failures}`,
  );
  row('bare Bolt (ack only)', bareRun);
  row('Switchboard', oursRun);
  console.log(`  ratio Switchboard / bare: p50 ${(pct(oursRun.latencies, 50) / pct(bareRun.latencies, 50)).toFixed(2)}x, p99 ${(pct(oursRun.latencies, 99) / pct(bareRun.latencies, 99)).toFixed(2)}x, throughput ${((EVENTS / oursRun.seconds) / (EVENTS / bareRun.seconds)).toFixed(2)}x`);
  console.log(`  Switchboard processed all ${EVENTS} into the agent's inbox in ${processedSeconds.toFixed(2)} s (${(EVENTS / processedSeconds).toFixed(0)} events/s end to end)`);

  await bare.stop();
  await server.stop();
  await close();
  await standin.close();
}
