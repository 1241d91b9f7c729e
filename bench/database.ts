import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase, type Database } from '../src/infra/db/client.ts';
import { freshPostgresDatabase } from '../test/support/db.ts';

export interface BenchDatabase {
  db: Database;
  kind: string;
  close(): Promise<void>;
}

const postgresUrl = () => process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;

/** A fresh, migrated database on the PostgreSQL server at `url` (dropped on close). */
async function openPostgres(url: string, max = 10): Promise<BenchDatabase> {
  const fresh = await freshPostgresDatabase(url);
  const db = await openDatabase({ databaseUrl: fresh.url, max });
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

/** PGlite on disk in a fresh directory (removed on close), as `switchboard serve` runs it: with its inbound journal. */
async function openPglite(): Promise<BenchDatabase> {
  const dir = mkdtempSync(path.join(tmpdir(), 'sb-bench-pglite-'));
  const db = await openDatabase({ dataDir: path.join(dir, 'pglite') });
  await db.migrate();
  return {
    db,
    kind: 'PGlite (on disk)',
    close: async () => {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A migrated database for one bench: a fresh one on BENCH_DATABASE_URL/TEST_DATABASE_URL, else PGlite on disk. */
export async function openBenchDatabase(): Promise<BenchDatabase> {
  const url = postgresUrl();
  return url ? openPostgres(url) : openPglite();
}

/**
 * Every database a side-by-side bench runs on: PGlite on disk, and PostgreSQL when
 * BENCH_DATABASE_URL or TEST_DATABASE_URL is set; BENCH_DATABASES=pglite or =postgres keeps one.
 */
export function benchDatabases(): Array<{ name: 'pglite' | 'postgres'; open(): Promise<BenchDatabase> }> {
  const url = postgresUrl();
  const only = process.env.BENCH_DATABASES;
  const all = [
    { name: 'pglite' as const, open: openPglite },
    ...(url ? [{ name: 'postgres' as const, open: () => openPostgres(url) }] : []),
  ];
  return all.filter((d) => !only || only.split(',').includes(d.name));
}
