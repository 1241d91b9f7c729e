// `serve` and its workers (or replicas) start together and each runs migrate() on the same PostgreSQL database:
// on a fresh database they all find every migration pending, and only one may apply them.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { MIGRATIONS_DIR, openDatabase, type Database } from '../../../src/infra/db/client.ts';
import { freshPostgresDatabase } from '../../support/db.ts';
import { serviceUrl } from '../../support/services.ts';

const url = serviceUrl('postgres');

const journal = JSON.parse(readFileSync(path.join(MIGRATIONS_DIR, 'meta', '_journal.json'), 'utf8')) as {
  entries: unknown[];
};

async function rows<T>(database: Database, query: ReturnType<typeof sql>): Promise<T[]> {
  return ((await database.db.execute(query)) as unknown as { rows: T[] }).rows;
}

describe.runIf(url)('migrate() from several processes at once', () => {
  it('applies each migration once when two handles migrate one fresh database together', async () => {
    // Two rounds, since a race need not be lost every time (without the lock, the first round failed in each run seen).
    for (let round = 0; round < 2; round++) {
      const fresh = await freshPostgresDatabase(url!);
      const handles = await Promise.all([
        openDatabase({ databaseUrl: fresh.url, max: 2 }),
        openDatabase({ databaseUrl: fresh.url, max: 2 }),
      ]);
      try {
        await Promise.all(handles.map((h) => h.migrate()));

        const applied = await rows<{ n: number; hashes: number }>(
          handles[0],
          sql`select count(*)::int as n, count(distinct hash)::int as hashes from drizzle.__drizzle_migrations`,
        );
        expect(applied[0]).toEqual({ n: journal.entries.length, hashes: journal.entries.length });
        const workspaces = await rows<{ n: number }>(handles[1], sql`select count(*)::int as n from workspaces`);
        expect(workspaces[0].n).toBe(0);
        // Neither handle kept the migration lock: a third start would otherwise wait for ever.
        const held = await rows<{ n: number }>(
          handles[0],
          sql`select count(*)::int as n from pg_locks where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())`,
        );
        expect(held[0].n).toBe(0);
      } finally {
        await Promise.all(handles.map((h) => h.close()));
        await fresh.drop();
      }
    }
  });
});
