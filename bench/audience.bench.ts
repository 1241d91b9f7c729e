// What audiences cost check_inbox: 20 unread messages from 20 DM conversations,
// read with audience annotation (the app's MessagingService) and without (a
// MessagingService built with no audience rules), alternating, 30 rounds each.
// `npm run bench audience` (PostgreSQL when BENCH_DATABASE_URL or TEST_DATABASE_URL is set, else PGlite).
import pino from 'pino';
import { openDatabase, type Database } from '../src/infra/db/client.ts';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { SYSTEM } from '../src/core/actor.ts';
import { MessagingService } from '../src/core/messaging/messaging-service.ts';
import { freshPostgresDatabase } from '../test/support/db.ts';

const SENDERS = 20;
const ROUNDS = 30;

async function open(): Promise<{ db: Database; kind: string; close(): Promise<void> }> {
  const url = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (url) {
    const fresh = await freshPostgresDatabase(url);
    const db = await openDatabase({ databaseUrl: fresh.url, max: 5 });
    await db.migrate();
    return {
      db,
      kind: 'PostgreSQL',
      close: async () => {
        await db.close();
        await fresh.drop();
      },
    };
  }
  const db = await openDatabase({ dataDir: 'memory://' });
  await db.migrate();
  return { db, kind: 'PGlite (in memory)', close: () => db.close() };
}

export default async function bench() {
  const { db, kind, close } = await open();
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: '',
    REDIS_URL: '',
    PORT: '0',
    LOG_LEVEL: 'silent',
    SWITCHBOARD_SECRET: 'bench-secret'.padEnd(40, 'x'),
  });
  const app = await createApp(config, {
    database: db,
    logger: pino({ level: 'silent' }),
    migrate: false,
    rateLimit: { max: 1_000_000, windowMs: 60_000 },
  });
  try {
    await app.orgs.init({ org: 'Audience bench', admin: 'reader-owner' });
    await app.orgs.setPlan(SYSTEM, 'audience-bench', 'team', 1_000_000);
    const ws = await app.orgs.addWorkspace(SYSTEM, { name: 'Audience bench', org: 'audience-bench' });
    const { agent: reader } = await app.agents.add(SYSTEM, { name: 'reader', owner: 'reader-owner' });
    await app.agents.join(SYSTEM, { agent: 'reader-owner/reader', workspace: ws.slug });
    const senders = [];
    for (let i = 0; i < SENDERS; i++) {
      await app.orgs.addPerson(SYSTEM, { handle: `aud-p${i}`, org: 'audience-bench' });
      const { agent } = await app.agents.add(SYSTEM, { name: 'bot', owner: `aud-p${i}` });
      await app.agents.join(SYSTEM, { agent: `aud-p${i}/bot`, workspace: ws.slug });
      senders.push(agent);
    }
    const plain = new MessagingService(app.store, app.agents, app.notifier, app.clock);
    const samples = { with: [] as number[], without: [] as number[] };
    for (let round = 0; round < ROUNDS * 2; round++) {
      for (const s of senders)
        await app.messaging.send({ workspace: ws, sender: s, to: ['reader-owner/reader'], body: `hello ${round}` });
      const annotated = round % 2 === 0;
      const t = performance.now();
      const got = await (annotated ? app.messaging : plain).checkInbox(reader, ws, SENDERS);
      (annotated ? samples.with : samples.without).push(performance.now() - t);
      if (got.items.length !== SENDERS || (annotated && !got.items[0].audience))
        throw new Error('check_inbox did not return what was sent');
    }
    const pct = (xs: number[], p: number) =>
      [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))].toFixed(1);
    console.log(
      `database: ${kind}; check_inbox of ${SENDERS} items from ${SENDERS} DM conversations, ${ROUNDS} rounds each`,
    );
    console.log(`  without audiences: p50 ${pct(samples.without, 50)} ms, p95 ${pct(samples.without, 95)} ms`);
    console.log(`  with audiences:    p50 ${pct(samples.with, 50)} ms, p95 ${pct(samples.with, 95)} ms`);
  } finally {
    await app.close();
    await close();
  }
}
