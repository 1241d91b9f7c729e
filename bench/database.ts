import { openDatabase, type Database } from '../src/adapters/db/client.ts';
import { freshPostgresDatabase } from '../test/support/db.ts';

/** A migrated database for one bench: a fresh one on BENCH_DATABASE_URL/TEST_DATABASE_URL, else PGlite in memory. */
export async function openBenchDatabase(): Promise<{ db: Database; kind: string; close(): Promise<void> }> {
  const url = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (url) {
    const fresh = await freshPostgresDatabase(url);
    const db = await openDatabase({ databaseUrl: fresh.url, max: 10 });
    await db.migrate();
    return { db, kind: 'PostgreSQL', close: async () => { await db.close(); await fresh.drop(); } };
  }
  const db = await openDatabase({ dataDir: 'memory://' });
  await db.migrate();
  return { db, kind: 'PGlite (in memory)', close: () => db.close() };
}
