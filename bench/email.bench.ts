// `npm run bench email`: mail accepted into an agent's inbox, over the SMTP listener and over the webhook, on PGlite
// and (when BENCH_DATABASE_URL or TEST_DATABASE_URL is set) on a fresh PostgreSQL database. A worker thread plays the
// sending mail servers: EMAIL_BENCH_CONCURRENCY connections at a time (nodemailer's pool over SMTP, fetch for the
// webhook), each mail a new thread from one of 20 senders to reviewer@<domain>. Each mail is stored before it is
// acknowledged (250 / 200); the `inbound.email` job then reads it, checks its sender (a DNS stand-in that publishes
// nothing, so no real DNS is asked) and delivers it. Rounds alternate SMTP and the webhook; each round waits until
// every mail is in the agent's inbox. Figures (median round): ack p50/p99, acks per second, mails per second from the
// first sent to the last in the inbox, this process's CPU per mail (the load generator's thread included), and
// database statements per mail. EMAIL_BENCH_MAILS (default 400), EMAIL_BENCH_CONCURRENCY (8) and EMAIL_BENCH_ROUNDS
// (3) size the load; BENCH_DATABASES=pglite or =postgres runs one database only.
import { loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import pino from 'pino';
import { loadConfig } from '../src/config.ts';
import { SYSTEM } from '../src/core/actor.ts';
import { mountEmail } from '../src/http/surface-mount.ts';
import { startServer } from '../src/server.ts';
import { connectEmailWorkspace, type EmailSettings, type EmailSurface } from '../src/surfaces/email/index.ts';
import { dnsStub } from '../test/support/email/dkim.ts';
import { benchDatabases, type BenchDatabase } from './database.ts';
import { inboxCounter } from './inbox.ts';
import { pct } from './slack.bench.ts';

const MAILS = Number(process.env.EMAIL_BENCH_MAILS ?? 400);
const CONCURRENCY = Number(process.env.EMAIL_BENCH_CONCURRENCY ?? 8);
const ROUNDS = Number(process.env.EMAIL_BENCH_ROUNDS ?? 3);
const WARMUP = 30;
const SENDERS = 20;
const DOMAIN = 'agents.bench';
const SECRET = 'bench-inbound-secret-0123456789';
const WAYS = ['smtp', 'webhook'] as const;
type Way = (typeof WAYS)[number];

/** One mail as a sending server hands it over: its envelope and its raw bytes (RFC 822, CRLF). */
interface Mail {
  from: string;
  to: string;
  raw: string;
}

function mails(n: number, tag: string): Mail[] {
  return Array.from({ length: n }, (_, i) => {
    const from = `person${i % SENDERS}@example.com`;
    const to = `reviewer@${DOMAIN}`;
    const raw = [
      `From: "Bench Person ${i % SENDERS}" <${from}>`,
      `To: ${to}`,
      `Subject: ${tag} ${i}`,
      `Date: ${new Date().toUTCString()}`,
      `Message-ID: <${tag.replace(/\W/g, '-')}-${i}@example.com>`,
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=utf-8',
      '',
      `Hello, this is mail ${i} of the ${tag} load.`,
      'Could you look at the figures in the report and tell me whether the totals add up?',
      '',
      'Thanks,',
      `Person ${i % SENDERS}`,
      '',
    ].join('\r\n');
    return { from, to, raw };
  });
}

// The sending servers: each of `concurrency` senders hands over one mail at a time and times it until acknowledged.
const LOADER = `
const { parentPort, workerData: { way, target, mails, concurrency } } = require('node:worker_threads');
(async () => {
  let send, close = async () => {};
  if (way === 'smtp') {
    const nodemailer = require('nodemailer');
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: target.port, pool: true,
      maxConnections: concurrency, maxMessages: Infinity, ignoreTLS: true });
    send = (m) => transport.sendMail({ envelope: { from: m.from, to: [m.to] }, raw: m.raw });
    close = async () => transport.close();
  } else {
    send = async (m) => {
      const q = new URLSearchParams({ to: m.to, from: m.from, ip: '192.0.2.1', helo: 'mail.example.com' });
      const res = await fetch(target.url + '?' + q, { method: 'POST', body: m.raw,
        headers: { authorization: 'Bearer ' + target.secret, 'content-type': 'message/rfc822' } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error('HTTP ' + res.status);
    };
  }
  const latencies = [];
  let failures = 0, next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < mails.length) {
      const m = mails[next++];
      const t = performance.now();
      try { await send(m); } catch { failures += 1; }
      latencies.push(performance.now() - t);
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  await close();
  parentPort.postMessage({ latencies, seconds, failures });
})();`;

interface Load {
  latencies: number[];
  seconds: number;
  failures: number;
}

function load(way: Way, target: { port: number; url: string; secret: string }, batch: Mail[]): Promise<Load> {
  const worker = new Worker(LOADER, {
    eval: true,
    workerData: { way, target, mails: batch, concurrency: CONCURRENCY },
  });
  return new Promise<Load>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  }).finally(() => worker.terminate());
}

interface Round {
  p50: number;
  p99: number;
  acksPerSecond: number;
  intoInbox: number;
  failures: number;
  cpuMs: number;
  ackStatements: number;
  statements: number;
}

async function measure(database: {
  open(): Promise<BenchDatabase>;
}): Promise<{ kind: string; rounds: Record<Way, Round[]> }> {
  const { db, kind, close } = await database.open();
  const config = loadConfig({
    PORT: '0',
    LOG_LEVEL: 'silent',
    SWITCHBOARD_SECRET: 'bench-switchboard-secret-0123456789abcdef',
    DATA_DIR: '/tmp/switchboard-email-bench',
    EMAIL_DOMAIN: DOMAIN,
    EMAIL_SMTP_PORT: '0',
    EMAIL_INBOUND_SECRET: SECRET,
    // Nothing is mailed out: the agent does not answer.
    EMAIL_SMTP_URL: 'smtp://127.0.0.1:2525',
  });
  const server = await startServer(config, {
    database: db,
    logger: pino({ level: 'silent' }),
    host: '127.0.0.1',
    control: false,
    mounts: [mountEmail],
    surfaces: { email: { smtpHost: '127.0.0.1', resolver: dnsStub([]) } satisfies Partial<EmailSettings> },
  });
  const { app } = server;
  const counter = await (async () => {
    await app.orgs.init({ org: 'Bench', admin: 'alice' });
    await app.orgs.addWorkspace(SYSTEM, { name: 'Bench', org: 'bench' });
    await app.orgs.setPlan(SYSTEM, 'bench', 'team', 10_000_000);
    const { agent } = await app.agents.add(SYSTEM, { name: 'reviewer', owner: 'alice', displayName: 'Reviewer' });
    await app.agents.join(SYSTEM, { agent: 'alice/reviewer', workspace: 'bench' });
    await connectEmailWorkspace(
      { orgs: app.orgs, tenants: app.store.tenants },
      { workspace: 'bench', asDefault: true },
    );
    return inboxCounter(app, db, agent.id);
  })();
  try {
    const listener = await (app.surfaceModules.get('email') as EmailSurface).listener();
    if (!listener) throw new Error('the SMTP listener did not start');
    const target = { port: listener.port(), url: `${server.url}/email/inbound`, secret: SECRET };
    for (const way of WAYS) await load(way, target, mails(WARMUP, `warm-up ${way}`));
    await counter.drained(WARMUP * WAYS.length);
    const rounds: Record<Way, Round[]> = { smtp: [], webhook: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const way of WAYS) {
        const base = await counter.delivered();
        const batch = mails(MAILS, `${way} round ${round}`);
        const [queries, polled, cpu] = [db.queries(), counter.polls(), process.cpuUsage()];
        const started = performance.now();
        const r = await load(way, target, batch);
        const ackStatements = (db.queries() - queries - (counter.polls() - polled)) / MAILS;
        await counter.drained(base + MAILS - r.failures);
        const seconds = (performance.now() - started) / 1000;
        const used = process.cpuUsage(cpu);
        rounds[way].push({
          p50: pct(r.latencies, 50),
          p99: pct(r.latencies, 99),
          acksPerSecond: MAILS / r.seconds,
          intoInbox: (MAILS - r.failures) / seconds,
          failures: r.failures,
          cpuMs: (used.user + used.system) / 1000 / MAILS,
          ackStatements,
          statements: (db.queries() - queries - (counter.polls() - polled)) / MAILS,
        });
      }
    }
    return { kind, rounds };
  } finally {
    await counter.close();
    await server.stop();
    await close();
  }
}

export default async function bench() {
  const loadAt = () =>
    loadavg()
      .map((l) => l.toFixed(1))
      .join(' ');
  console.log(
    `  ${MAILS} mails per way and round, ${CONCURRENCY} in flight, ${SENDERS} senders, median of ${ROUNDS} rounds; load average ${loadAt()}`,
  );
  for (const database of benchDatabases()) {
    const { kind, rounds } = await measure(database);
    console.log(`  ${kind}`);
    for (const way of WAYS) {
      const rs = rounds[way];
      const med = (f: (r: Round) => number) => pct(rs.map(f), 50);
      console.log(
        `    ${way.padEnd(8)} ack p50 ${med((r) => r.p50)
          .toFixed(1)
          .padStart(6)} ms  p99 ${med((r) => r.p99)
          .toFixed(1)
          .padStart(6)} ms  ${med((r) => r.acksPerSecond)
          .toFixed(0)
          .padStart(5)} acks/s  into the inbox ${med((r) => r.intoInbox)
          .toFixed(0)
          .padStart(5)} mails/s  refused: ${rs.reduce((n, r) => n + r.failures, 0)}`,
      );
      console.log(
        `             per mail: CPU of this process ${med((r) => r.cpuMs).toFixed(2)} ms, database statements ${med((r) => r.ackStatements).toFixed(1)} during the load and ${med((r) => r.statements).toFixed(1)} in all`,
      );
    }
  }
  console.log(`  load average at the end ${loadAt()}`);
}
