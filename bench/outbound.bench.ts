// `npm run bench outbound`: figures for posting to Slack under faults (lost answers, a dead process's leases), not a timed test.
//  1. Lost answers: OUTBOUND_BENCH_POSTS (default 300) agent messages in 30 Slack threads, with Slack storing
//     the post and then dropping the connection before answering on the first 20% of calls (the same as a
//     process dying between chat.postMessage and recording its ts). Prints posts made, duplicates and losses.
//  2. A dead process: it claimed the head entries of 5 threads and died. Prints how long those threads were
//     held (the lease) and how long entries of 25 other threads took meanwhile.
// The database is a fresh one on BENCH_DATABASE_URL or TEST_DATABASE_URL, else an in-memory PGlite; the
// embedded worker delivers.
import { randomUUID } from 'node:crypto';
import { mountSlack } from '../src/http/surface-mount.ts';
import pino from 'pino';
import { slackRuntime } from '../src/app-surfaces.ts';
import { connectSlackTeam } from '../src/surfaces/slack/index.ts';
import { loadConfig } from '../src/config.ts';
import { SYSTEM } from '../src/core/actor.ts';
import type { Message } from '../src/core/messaging/message.ts';
import { startServer } from '../src/server.ts';
import { openBenchDatabase } from './database.ts';
import { SLACK_DEFAULTS } from '../test/support/slack/defaults.ts';
import { startSlackStandin, type SlackStandin } from '../test/support/slack/web-api-standin.ts';

const POSTS = Number(process.env.OUTBOUND_BENCH_POSTS ?? 300);
const THREADS = 30;
const LEASE_MS = 30_000;

async function until(check: () => Promise<boolean>, timeoutMs: number) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

/** Posts per Switchboard message id in the stand-in, across every thread. */
function postsById(standin: SlackStandin): Map<string, number> {
  const counts = new Map<string, number>();
  for (const m of standin.messages('C0BENCH')) {
    const id = (m.metadata as { event_payload?: { switchboard_message_id?: string } } | undefined)?.event_payload
      ?.switchboard_message_id;
    if (id) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

export default async function bench() {
  const standin = await startSlackStandin();
  const { db, kind, close } = await openBenchDatabase();
  const config = loadConfig({
    PORT: '0',
    LOG_LEVEL: 'silent',
    SWITCHBOARD_SECRET: 'bench-switchboard-secret-0123456789abcdef',
    SLACK_SIGNING_SECRET: SLACK_DEFAULTS.signingSecret,
    SLACK_API_URL: standin.url,
    DATA_DIR: '/tmp/switchboard-outbound-bench',
  });
  const server = await startServer(config, {
    database: db,
    logger: pino({ level: 'silent' }),
    host: '127.0.0.1',
    control: false,
    mounts: [mountSlack],
    surfaces: { slack: { paceMs: 0 } },
    queue: { pollMs: 50, backoff: () => 200 },
  });
  const { app } = server;
  await app.orgs.init({ org: 'Acme', admin: 'alice' });
  const ws = await app.orgs.addWorkspace(SYSTEM, { name: 'Eng', org: 'acme' });
  const { agent } = await app.agents.add(SYSTEM, { name: 'reviewer', owner: 'alice', displayName: 'Reviewer' });
  await connectSlackTeam(slackRuntime(app), {
    workspace: 'eng',
    teamId: SLACK_DEFAULTS.teamId,
    botToken: standin.botToken,
  });

  /** Writes `n` agent messages into thread `t`, each with its slack.post entry, as MessagingService does. */
  async function enqueue(t: number, n: number): Promise<Message[]> {
    return app.store.transaction(async (tx) => {
      const thread = {
        team: SLACK_DEFAULTS.teamId,
        channel: 'C0BENCH',
        thread_ts: `1710000000.${String(t).padStart(6, '0')}`,
      };
      const conv = await tx.messages.conversation({
        workspaceId: ws.id,
        kind: 'external',
        surface: 'slack',
        key: `slack:${thread.team}:${thread.channel}:${thread.thread_ts}`,
        title: `bench ${t}`,
        externalRef: thread,
      });
      const out: Message[] = [];
      for (let i = 0; i < n; i++) {
        const m = await tx.messages.insert({
          workspaceId: ws.id,
          conversationId: conv.id,
          senderId: agent.id,
          body: `answer ${t}.${i} ${randomUUID()}`,
          replyTo: null,
          chainId: randomUUID(),
          hop: 0,
          askerPersonId: null,
          askerIdentityId: null,
          surface: 'mcp',
        });
        await tx.outbox.add({
          topic: 'slack.post',
          payload: { messageId: m.id, workspaceId: ws.id, conversationId: conv.id },
          orderingKey: `slack:${conv.id}`,
        });
        out.push(m);
      }
      return out;
    });
  }

  // 1. Answers lost on the way back.
  const dropped = Math.round(POSTS * 0.2);
  standin.failNext('chat.postMessage', { dropAfterHandling: true }, dropped);
  const started = performance.now();
  const messages = (
    await Promise.all(Array.from({ length: THREADS }, (_, t) => enqueue(t, Math.ceil(POSTS / THREADS))))
  ).flat();
  app.queue.kick();
  await until(
    async () => (await app.store.outbox.list({ topic: 'slack.post', status: 'done' })).length >= messages.length,
    300_000,
  );
  const seconds = (performance.now() - started) / 1000;
  const counts = postsById(standin);
  const duplicates = [...counts.values()].filter((c) => c > 1).length;
  const lost = messages.filter((m) => !counts.has(m.id)).length;
  console.log(
    `database: ${kind}; ${messages.length} answers, ${dropped} Slack answers dropped after the post was stored`,
  );
  console.log(
    `  posted ${counts.size}, duplicated ${duplicates}, lost ${lost}, lookups ${standin.callsTo('conversations.replies').length}, in ${seconds.toFixed(1)} s`,
  );

  // 2. A dead process holding 5 threads' head entries under the default lease.
  const held = await Promise.all(Array.from({ length: 5 }, (_, t) => enqueue(100 + t, 3)));
  await app.queue.stop();
  const claimedAt = Date.now();
  const dead = await app.store.outbox.claimDue(5, new Date(), LEASE_MS);
  const others = await Promise.all(Array.from({ length: 25 }, (_, t) => enqueue(200 + t, 2)));
  const fresh = await startServer(config, {
    database: db,
    logger: pino({ level: 'silent' }),
    host: '127.0.0.1',
    control: false,
    mounts: [mountSlack],
    surfaces: { slack: { paceMs: 0 } },
    queue: { pollMs: 50, backoff: () => 200 },
  });
  const posted = (ms: Message[]) => {
    const c = postsById(standin);
    return ms.every((m) => c.has(m.id));
  };
  await until(async () => posted(others.flat()), 120_000);
  const othersMs = Date.now() - claimedAt;
  await until(async () => posted(held.flat()), 120_000);
  const heldMs = Date.now() - claimedAt;
  console.log(`a dead process claimed ${dead.length} threads' head entries (lease ${LEASE_MS / 1000} s):`);
  console.log(
    `  those 5 threads (15 answers) all posted after ${(heldMs / 1000).toFixed(1)} s; 25 other threads (50 answers) after ${(othersMs / 1000).toFixed(1)} s`,
  );
  const final = postsById(standin);
  console.log(
    `  duplicated ${[...final.values()].filter((c) => c > 1).length}, lost ${[...held.flat(), ...others.flat()].filter((m) => !final.has(m.id)).length}`,
  );

  await fresh.stop();
  await server.stop();
  await standin.close();
  await close();
}
