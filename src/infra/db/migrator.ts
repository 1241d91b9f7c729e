// Applies the migrations in migrations/ on PostgreSQL and PGlite, keeping drizzle's bookkeeping (the table
// drizzle.__drizzle_migrations, one row per applied migration with its hash and journal time, the newest time saying
// how far the database is), so versions that still apply them with drizzle's own migrator read the same state.
// drizzle applies every pending migration in one transaction; here each migration commits by itself, and a migration
// marked `-- switchboard:no-transaction` runs statement by statement outside any transaction, so that it may build
// indexes CONCURRENTLY and fill large tables in batches without holding a lock that stops reads or writes
// (docs/contributing/migrations.md says how to write one).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PGlite } from '@electric-sql/pglite';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import type pg from 'pg';
import type { Logger } from 'pino';

/** The line that makes a migration run outside a transaction, one statement at a time. */
export const NO_TRANSACTION = '-- switchboard:no-transaction';
/** The line that makes a statement of such a migration run again, each run committed, until it changes no row. */
export const BATCHED = '-- switchboard:batched';

const hasLine = (text: string, line: string) => text.split('\n').some((l) => l.trim() === line);

export interface Migration {
  /** The file's name without `.sql` (`0019_delivery_conversation`). */
  tag: string;
  /** Its statements, as drizzle splits them (at `--> statement-breakpoint`). */
  statements: string[];
  /** The journal's time for it: what the bookkeeping row records, and what orders migrations. */
  when: number;
  hash: string;
  /** Marked NO_TRANSACTION. */
  outside: boolean;
}

/** The migrations of `folder`, in journal order, read by drizzle's reader (so the hashes are drizzle's). */
export function readMigrations(folder: string): Migration[] {
  const journal = JSON.parse(readFileSync(path.join(folder, 'meta', '_journal.json'), 'utf8')) as {
    entries: Array<{ tag: string }>;
  };
  return readMigrationFiles({ migrationsFolder: folder }).map((m, i) => ({
    tag: journal.entries[i].tag,
    statements: m.sql,
    when: m.folderMillis,
    hash: m.hash,
    outside: hasLine(m.sql.join(''), NO_TRANSACTION),
  }));
}

/** What a statement gave back. */
interface Outcome {
  rows: Array<Record<string, unknown>>;
  /** Rows it inserted, updated or deleted. */
  changed: number;
}
type Run = (text: string, params?: unknown[]) => Promise<Outcome>;

/** One connection to the database being migrated. */
export interface MigrationSession {
  /** Runs one statement by itself: committed when it returns. */
  run: Run;
  /** Runs `fn`'s statements in one transaction, committed when `fn` returns and rolled back when it throws. */
  transaction(fn: (run: Run) => Promise<void>): Promise<void>;
}

/** A node-postgres connection (a pool's client: session locks and statements stay on it). */
export function postgresSession(client: pg.ClientBase): MigrationSession {
  const run: Run = async (text, params) => {
    // Without parameters the text goes as a simple query, which may hold several statements and answers each.
    const result = (await client.query(text, params)) as pg.QueryResult | pg.QueryResult[];
    const last = Array.isArray(result) ? result[result.length - 1] : result;
    return { rows: last?.rows ?? [], changed: last?.rowCount ?? 0 };
  };
  return {
    run,
    async transaction(fn) {
      await client.query('begin');
      try {
        await fn(run);
        await client.query('commit');
      } catch (e) {
        await client.query('rollback').catch(() => {});
        throw e;
      }
    },
  };
}

/** PGlite, or the thread it runs in (src/infra/db/pglite-thread.ts offers the same calls). */
export function pgliteSession(client: Pick<PGlite, 'query' | 'transaction'>): MigrationSession {
  const runOn =
    (on: Pick<PGlite, 'query'>): Run =>
    async (text, params) => {
      const r = await on.query<Record<string, unknown>>(text, params);
      return { rows: r.rows, changed: r.affectedRows ?? 0 };
    };
  return {
    run: runOn(client),
    transaction: (fn) => client.transaction((tx) => fn(runOn(tx))),
  };
}

export interface MigrateOptions {
  folder: string;
  /**
   * Runs `fn` while holding what keeps other processes from applying migrations in a transaction meanwhile (the lock
   * versions before no-transaction migrations hold for their whole run). Absent for PGlite, which one process owns.
   */
  exclusive?: <T>(fn: () => Promise<T>) => Promise<T>;
  logger?: Logger;
}

/**
 * Applies the migrations of `folder` not yet recorded, oldest first. Each in-transaction migration commits with its
 * bookkeeping row, so one that fails leaves those before it applied. A no-transaction migration is recorded once
 * every statement of it has run; cut off before that, it runs again from its first statement the next time, which
 * its statements are written to allow (an index build left INVALID by the cut is dropped and built again here).
 * Each process must be the only one applying migrations on this database while this runs (client.ts's lock).
 */
export async function applyMigrations(session: MigrationSession, o: MigrateOptions): Promise<void> {
  const migrations = readMigrations(o.folder);
  const exclusive = o.exclusive ?? ((fn) => fn());
  await exclusive(async () => {
    await session.run('create schema if not exists drizzle');
    await session.run(
      'create table if not exists drizzle.__drizzle_migrations (id serial primary key, hash text not null, created_at bigint)',
    );
  });
  for (;;) {
    // Read again each time, under the lock: a process of an earlier version may have applied some meanwhile.
    const next = await exclusive(async () => {
      const last = await lastApplied(session);
      const pending = migrations.find((m) => m.when > last);
      if (!pending || pending.outside) return pending;
      await session.transaction(async (run) => {
        for (const statement of pending.statements) await run(statement);
        await record(run, pending);
      });
      o.logger?.info({ migration: pending.tag }, 'migration applied');
      return 'applied' as const;
    });
    if (!next) return;
    if (next !== 'applied') await applyOutside(session, next, o.logger);
  }
}

async function lastApplied(session: MigrationSession): Promise<number> {
  const { rows } = await session.run(
    'select created_at from drizzle.__drizzle_migrations order by created_at desc limit 1',
  );
  return rows.length ? Number(rows[0].created_at) : Number.NEGATIVE_INFINITY;
}

const record = (run: Run, m: Migration) =>
  run('insert into drizzle.__drizzle_migrations (hash, created_at) values ($1, $2)', [m.hash, m.when]);

/** `CREATE [UNIQUE] INDEX CONCURRENTLY [IF NOT EXISTS] name`: the index's name, as written (quoted or not). */
const CONCURRENT_BUILD =
  /\bcreate\s+(?:unique\s+)?index\s+concurrently\s+(?:if\s+not\s+exists\s+)?("(?:[^"]|"")+"|[\w$]+)/i;

async function applyOutside(session: MigrationSession, m: Migration, logger?: Logger): Promise<void> {
  logger?.info({ migration: m.tag }, 'applying a migration outside a transaction');
  for (const statement of m.statements) {
    const index = CONCURRENT_BUILD.exec(statement)?.[1];
    if (index && (await invalid(session, index))) {
      // A concurrent build that was cut off (or failed) leaves its index behind, marked invalid: never used for
      // reads, yet updated on every write, and skipped by IF NOT EXISTS. It goes, and is built again.
      logger?.warn({ migration: m.tag, index }, 'an index build was left unfinished; building it again');
      await session.run(`drop index concurrently if exists ${index}`);
    }
    if (hasLine(statement, BATCHED)) {
      let batches = 0;
      while ((await session.run(statement)).changed > 0) batches++;
      logger?.info({ migration: m.tag, batches }, 'batched statement done');
    } else {
      await session.run(statement);
    }
  }
  await record(session.run, m);
  logger?.info({ migration: m.tag }, 'migration applied');
}

async function invalid(session: MigrationSession, index: string): Promise<boolean> {
  const { rows } = await session.run('select indisvalid from pg_index where indexrelid = to_regclass($1)', [index]);
  return rows.length > 0 && rows[0].indisvalid === false;
}

/**
 * The session-level advisory lock that versions of Switchboard before no-transaction migrations hold while they
 * apply migrations (the bytes of "SWBDMIGR" read as a signed 64-bit integer). This one holds it only around each
 * in-transaction migration. Fixed for good: processes of different versions starting together must agree on it.
 */
export const MIGRATION_LOCK_KEY = '6005341489243703122';
/**
 * The advisory lock held for a whole run of applyMigrations ("SWBDMRUN"): one process at a time applies
 * migrations. Pick other keys for any other advisory lock.
 */
export const RUN_LOCK_KEY = '6005341489244296526';

/** How often a process waiting for another's migrations asks for the run lock again. */
const RUN_LOCK_POLL_MS = 250;

/**
 * Applies the migrations on PostgreSQL through `client`, holding RUN_LOCK_KEY for the run and MIGRATION_LOCK_KEY
 * around each in-transaction migration. The run lock is asked for again and again, never waited on: a process
 * blocked in pg_advisory_lock keeps a snapshot open, and CREATE INDEX CONCURRENTLY waits for every snapshot older
 * than its own to end, so a waiting process and the build would wait for each other until PostgreSQL cancelled
 * one. That is also why MIGRATION_LOCK_KEY, which earlier versions wait on, is free while no-transaction
 * migrations run: their statements would otherwise wait for any such process starting meanwhile.
 * The locks last as long as the session: close the client afterwards rather than returning it to a pool.
 */
export async function migratePostgres(client: pg.ClientBase, folder: string, logger?: Logger): Promise<void> {
  const lock = async (key: string) => {
    const { rows } = await client.query<{ ok: boolean }>('select pg_try_advisory_lock($1::bigint) as ok', [key]);
    return rows[0].ok;
  };
  for (let told = false; !(await lock(RUN_LOCK_KEY)); told = true) {
    if (!told) logger?.info('another process is applying migrations; waiting for it to finish');
    await sleep(RUN_LOCK_POLL_MS);
  }
  await applyMigrations(postgresSession(client), {
    folder,
    logger,
    exclusive: async (fn) => {
      const unlock = () => client.query('select pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]);
      await client.query('select pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
      const result = await fn().catch(async (e: unknown) => {
        await unlock().catch(() => {}); // the error that counts is fn's
        throw e;
      });
      await unlock();
      return result;
    },
  });
  await client.query('select pg_advisory_unlock($1::bigint)', [RUN_LOCK_KEY]);
}
