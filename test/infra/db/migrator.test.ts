// The migrator on both databases: a migration marked to run outside a transaction builds its index concurrently,
// fills a table batch by batch (each batch its own commit), is recorded as drizzle records one, and when cut off
// halfway runs again from its start, building again an index a failed concurrent build left invalid. On PostgreSQL
// the lock that earlier versions wait on stays free while such a migration runs.
import type { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import {
  applyMigrations,
  BATCHED,
  MIGRATION_LOCK_KEY,
  migratePostgres,
  NO_TRANSACTION,
  pgliteSession,
  readMigrations,
  RUN_LOCK_KEY,
} from '../../../src/infra/db/migrator.ts';
import { databases } from '../../support/db.ts';
import { migrationFolder, type MigrationFolder, type TestMigration } from '../../support/migrations.ts';

/** Applies the migrations of `dir` the way openDatabase's migrate() does on this kind of database. */
/** The driver's client under drizzle: the pool on PostgreSQL, PGlite's (threaded) client. */
const driverOf = (database: Database) => (database.db as unknown as { $client: PGlite | pg.Pool }).$client;

async function migrateFrom(database: Database, dir: string): Promise<void> {
  const client = driverOf(database);
  if (database.kind === 'pglite') return applyMigrations(pgliteSession(client as PGlite), { folder: dir });
  const connection = await (client as pg.Pool).connect();
  try {
    await migratePostgres(connection, dir);
  } finally {
    connection.release(true);
  }
}

async function rows<T>(database: Database, query: ReturnType<typeof sql>): Promise<T[]> {
  return ((await database.db.execute(query)) as unknown as { rows: T[] }).rows;
}

const valid = async (database: Database, index: string) =>
  (
    await rows<{ indisvalid: boolean }>(
      database,
      sql`select indisvalid from pg_index where indexrelid = to_regclass(${index})`,
    )
  )[0]?.indisvalid;

const EXPAND: TestMigration[] = [
  {
    tag: '9001_items',
    statements: [
      'CREATE TABLE "mig_items" ("id" integer PRIMARY KEY, "v" integer)',
      'INSERT INTO "mig_items" SELECT g, g FROM generate_series(1, 4500) g',
    ],
  },
  {
    tag: '9002_items_x',
    statements: [
      `${NO_TRANSACTION}\nALTER TABLE "mig_items" ADD COLUMN IF NOT EXISTS "x" integer`,
      'CREATE INDEX CONCURRENTLY IF NOT EXISTS "mig_items_x_idx" ON "mig_items" ("x")',
      `${BATCHED}\nUPDATE "mig_items" SET "x" = "v" * 2 WHERE "id" IN (SELECT "id" FROM "mig_items" WHERE "x" IS NULL LIMIT 1000)`,
    ],
  },
  {
    tag: '9003_items_x_check',
    statements: ['ALTER TABLE "mig_items" ADD CONSTRAINT "mig_items_x_set" CHECK ("x" IS NOT NULL) NOT VALID'],
  },
  { tag: '9004_items_x_valid', statements: ['ALTER TABLE "mig_items" VALIDATE CONSTRAINT "mig_items_x_set"'] },
];

const RESUME: TestMigration[] = [
  {
    tag: '9101_keys',
    statements: [
      'CREATE TABLE "mig_keys" ("id" integer, "k" integer)',
      'INSERT INTO "mig_keys" VALUES (1, 1), (2, 1), (3, 2)',
    ],
  },
  {
    tag: '9102_keys_unique',
    statements: [
      `${NO_TRANSACTION}\nCREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS "mig_keys_k_idx" ON "mig_keys" ("k")`,
      'CREATE INDEX CONCURRENTLY IF NOT EXISTS "mig_keys_id_idx" ON "mig_keys" ("id")',
    ],
  },
];

describe.each(databases())('migrations outside a transaction ($kind)', (source) => {
  let database: Database;
  const folders: MigrationFolder[] = [];

  beforeAll(async () => {
    database = await source.open();
  });

  afterAll(async () => {
    // A reused in-memory database goes back as it came (test/support/db.ts keeps it only with the schema unchanged).
    if (database) {
      await database.db.execute(sql`drop table if exists mig_items, mig_keys`);
      const whens = folders.flatMap((f) => Object.values(f.when));
      if (whens.length)
        await database.db.execute(
          sql`delete from drizzle.__drizzle_migrations where created_at in (${sql.join(whens, sql`, `)})`,
        );
      await database.close();
    }
    for (const f of folders) f.remove();
  });

  it('builds concurrently, fills in committed batches, validates a constraint later, and records each migration', async () => {
    const folder = migrationFolder(EXPAND);
    folders.push(folder);
    await migrateFrom(database, folder.dir);

    const filled = await rows<{ missing: number; wrong: number; commits: number }>(
      database,
      sql`select count(*) filter (where x is null)::int as missing, count(*) filter (where x <> v * 2)::int as wrong,
            count(distinct xmin::text)::int as commits from mig_items`,
    );
    // 4,500 rows in batches of 1,000: five transactions wrote them, where one UPDATE would have been one.
    expect(filled[0]).toEqual({ missing: 0, wrong: 0, commits: 5 });
    expect(await valid(database, 'mig_items_x_idx')).toBe(true);
    const check = await rows<{ convalidated: boolean }>(
      database,
      sql`select convalidated from pg_constraint where conname = 'mig_items_x_set'`,
    );
    expect(check).toEqual([{ convalidated: true }]);

    const recorded = () =>
      rows<{ hash: string; created_at: string }>(
        database,
        sql`select hash, created_at::text from drizzle.__drizzle_migrations where created_at >= ${folder.when['9001_items']} order by created_at`,
      );
    const expected = readMigrations(folder.dir).map((m) => ({ hash: m.hash, created_at: String(m.when) }));
    expect(await recorded()).toEqual(expected);
    // Nothing is pending any more: a second run records nothing again.
    await migrateFrom(database, folder.dir);
    expect(await recorded()).toEqual(expected);
  });

  it('runs a migration cut off halfway again from its start, building again the index a failed build left invalid', async () => {
    const folder = migrationFolder(RESUME);
    folders.push(folder);
    const recorded = async () =>
      (
        await rows<{ created_at: string }>(
          database,
          sql`select created_at::text from drizzle.__drizzle_migrations where created_at >= ${folder.when['9101_keys']} order by created_at`,
        )
      ).map((r) => Number(r.created_at));

    // Two rows share a key: the unique build fails and leaves its index behind, invalid.
    await expect(migrateFrom(database, folder.dir)).rejects.toThrow(/mig_keys_k_idx/);
    expect(await valid(database, 'mig_keys_k_idx')).toBe(false);
    expect(await recorded()).toEqual([folder.when['9101_keys']]);

    await database.db.execute(sql`delete from mig_keys where id = 2`);
    await migrateFrom(database, folder.dir);
    // IF NOT EXISTS alone would have kept the invalid index: never used to read, never enforcing uniqueness.
    expect(await valid(database, 'mig_keys_k_idx')).toBe(true);
    expect(await valid(database, 'mig_keys_id_idx')).toBe(true);
    expect(await recorded()).toEqual([folder.when['9101_keys'], folder.when['9102_keys_unique']]);
    await expect(database.db.execute(sql`insert into mig_keys values (4, 2)`)).rejects.toThrow();
  });

  // Advisory locks are PostgreSQL's: the embedded database has one process and no such lock.
  if (source.kind === 'postgres')
    it('leaves the lock earlier versions wait on free while a migration runs outside a transaction', async () => {
      const pool = driverOf(database) as pg.Pool;
      // The migration waits on a lock the test holds, so the test looks at the locks while it runs.
      const gate = await pool.connect();
      const other = await pool.connect();
      const folder = migrationFolder([
        {
          tag: '9201_wait',
          statements: [`${NO_TRANSACTION}\nSELECT pg_advisory_lock_shared(4242), pg_advisory_unlock_shared(4242)`],
        },
      ]);
      folders.push(folder);
      try {
        await gate.query('select pg_advisory_lock(4242)');
        const running = migrateFrom(database, folder.dir);
        await expect
          .poll(async () => {
            const { rows: r } = await other.query(
              "select count(*)::int as n from pg_locks where locktype = 'advisory' and objid = 4242 and not granted",
            );
            return r[0].n;
          })
          .toBe(1);
        const tryLock = async (key: string) =>
          (await other.query<{ ok: boolean }>('select pg_try_advisory_lock($1::bigint) as ok', [key])).rows[0].ok;
        // An earlier version starting now takes its lock, finds nothing it knows pending, and goes on serving.
        expect(await tryLock(MIGRATION_LOCK_KEY)).toBe(true);
        await other.query('select pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]);
        // Another process of this version waits for the run to end.
        expect(await tryLock(RUN_LOCK_KEY)).toBe(false);
        await gate.query('select pg_advisory_unlock(4242)');
        await running;
        expect(await tryLock(RUN_LOCK_KEY)).toBe(true);
        await other.query('select pg_advisory_unlock($1::bigint)', [RUN_LOCK_KEY]);
      } finally {
        gate.release(true);
        other.release(true);
      }
    });
});
