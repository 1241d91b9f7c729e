import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { inject } from 'vitest';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/adapters/db/client.ts';
import { startPgliteThread } from '../../src/adapters/db/pglite-thread.ts';

export interface TestDatabase {
  kind: 'pglite' | 'postgres';
  open(): Promise<Database>;
}

let template: Blob | undefined;
const pgliteTemplate = () => (template ??= new Blob([readFileSync(inject('pgliteTemplate'))]));

/** A fresh, migrated PGlite in memory, started from the template the global setup made. */
export const pgliteDb: TestDatabase = {
  kind: 'pglite',
  async open() {
    const d = await openDatabase({ dataDir: 'memory://', template: pgliteTemplate() });
    await d.migrate();
    return d;
  },
};

/**
 * A fresh database on the real PostgreSQL (TEST_DATABASE_URL), created for this
 * test file and dropped when it is closed, so parallel files never share rows.
 */
export function postgresDb(url = process.env.TEST_DATABASE_URL): TestDatabase | null {
  if (!url) return null;
  return {
    kind: 'postgres',
    async open() {
      const fresh = await freshPostgresDatabase(url);
      const d = await openDatabase({ databaseUrl: fresh.url, max: 5 });
      await d.migrate();
      const close = d.close;
      d.close = async () => {
        await close();
        await fresh.drop();
      };
      return d;
    },
  };
}

/** An empty database on the server behind `url`, and a function that drops it. */
export async function freshPostgresDatabase(url: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `sb_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  // Tests terminate backends on purpose; an unheard 'error' event would be thrown.
  admin.on('error', () => {});
  await admin.connect();
  await admin.query(`create database ${name}`);
  const u = new URL(url);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/** Every database kind available here: PGlite always, PostgreSQL when TEST_DATABASE_URL is set (always in CI). */
export function databases(): TestDatabase[] {
  const pg = postgresDb();
  return pg ? [pgliteDb, pg] : [pgliteDb];
}

/**
 * Puts a migrated embedded database in `dataDir` (in DATA_DIR/pglite, where `switchboard serve` keeps it), from
 * the template, for a test whose server or CLI process opens DATA_DIR itself: as if a server had run there before.
 * An initdb there costs about 3 s of CPU more; test/web/health.test.ts keeps one, for the first start.
 */
export async function seedDataDir(dataDir: string): Promise<void> {
  const thread = await startPgliteThread(path.join(dataDir, 'pglite'), pgliteTemplate());
  await thread.close();
}
