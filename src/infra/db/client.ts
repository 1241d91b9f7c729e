import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzleNodePg, NodePgSession } from 'drizzle-orm/node-postgres';
import { PgDialect, type PgDatabase, type PgQueryResultHKT } from 'drizzle-orm/pg-core';
import pg from 'pg';
import type { Logger } from 'pino';
import { createTableRelationsHelpers, extractTablesRelationalConfig, sql, type SQL } from 'drizzle-orm';
import { isConnectionLost } from './errors.ts';
import { lockDataDir } from './lock.ts';
import { applyMigrations, migratePostgres, pgliteSession } from './migrator.ts';
import { PgListener } from './pg-listener.ts';
import { startPgliteThread, type PgliteThread, type StatementWatch } from './pglite-thread.ts';
import { TableChangeFeed, type TableChanges } from './table-changes.ts';
import * as schema from './schema.ts';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

const namedDialect = new PgDialect();

/**
 * Runs a statement whose text is the same on every call as a named statement: PostgreSQL parses it once per
 * connection and, after a few runs, plans it once; PGlite has no named statements and runs it as any other.
 * Only for a fixed text (the name is bound to the first text a connection saw); returns the driver's result.
 */
export function runNamed(db: Db, name: string, statement: SQL): Promise<unknown> {
  return db._.session.prepareQuery(namedDialect.sqlToQuery(statement), undefined, name, false).execute();
}

const preparedByDb = new WeakMap<Db, Map<string, unknown>>();

/**
 * A query whose shape never changes, built once per database handle (with `sql.placeholder`s for what changes) and
 * prepared under `name`; each call only binds values. Building a drizzle query (walking its tree into text) cost more
 * CPU than running it on the hottest paths. A transaction's handle builds its own, which goes with the transaction.
 */
export function preparedOnce<P>(db: Db, name: string, build: () => { prepare(name: string): P }): P {
  let byName = preparedByDb.get(db);
  if (!byName) preparedByDb.set(db, (byName = new Map()));
  let query = byName.get(name) as P | undefined;
  if (!query) byName.set(name, (query = build().prepare(name)));
  return query;
}

export const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../migrations');

/** A live database handle plus what only this driver can do (LISTEN/NOTIFY, closing). */
export interface Database {
  db: Db;
  kind: 'postgres' | 'pglite';
  /** PGlite on disk: its directory (which this process has locked). Absent in memory and on PostgreSQL. */
  dataDir?: string;
  migrate(): Promise<void>;
  ping(): Promise<void>;
  /** Sends a NOTIFY on `channel`; every process listening on the same database hears it. */
  notify(channel: string, payload: string): Promise<void>;
  /**
   * Listens on `channel`; resolves to an unlisten function. `onResume` runs when listening works again after the
   * connection was lost (NOTIFYs sent meanwhile never arrive); PGlite, in-process, never loses it.
   */
  listen(channel: string, onPayload: (payload: string) => void, onResume?: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
  /** Statements sent to the database so far by this process (a bench divides them by the events it sent). */
  queries(): number;
  /** PGlite: CPU time (ms) its thread has used so far (Linux; null elsewhere). A bench reads what the database cost. */
  threadCpuMs?(): Promise<number | null>;
  /** Which watched tables changed, here or in any process (what the read cache drops). */
  changes: TableChanges;
}

export interface OpenOptions {
  databaseUrl?: string;
  /** PGlite data directory; `memory://` for an in-memory database. */
  dataDir?: string;
  /** Pool size for PostgreSQL. */
  max?: number;
  /** Where lost connections are reported (PostgreSQL); silent when absent. */
  logger?: Logger;
  /**
   * A PGlite data directory dump (`dumpDataDir()`) that an in-memory database
   * starts from: loading one takes about half a second where a fresh initdb
   * takes several (tests start from a migrated template).
   */
  template?: Blob;
  /**
   * Starts the thread an in-memory PGlite runs in (by default a new one from `template`). The tests hand out
   * threads they reuse: starting one costs about 2 s of CPU, and a test file opens one or more.
   */
  pgliteThread?: (watch: StatementWatch) => Promise<PgliteThread>;
}

export async function openDatabase(opts: OpenOptions): Promise<Database> {
  return opts.databaseUrl
    ? openPostgres(opts.databaseUrl, opts.max ?? 10, opts.logger)
    : openPglite(opts.dataDir ?? 'memory://', opts.template, opts.pgliteThread);
}

/**
 * PostgreSQL through node-postgres. A backend that goes away (failover,
 * restart, pg_terminate_backend) must cost the queries that were on it, never
 * the process: every pooled client keeps an error listener for its whole life,
 * because pg-pool only listens while a client sits idle and an unheard
 * 'error' event on a checked-out client (a transaction) is thrown.
 */
function openPostgres(url: string, max: number, logger?: Logger): Database {
  const pool = new pg.Pool({ connectionString: url, max, connectionTimeoutMillis: 5_000, idleTimeoutMillis: 30_000 });
  pool.on('error', (err) =>
    logger?.warn(
      { err: { message: err.message } },
      'an idle database connection was lost; the pool opens a new one when needed',
    ),
  );
  let queries = 0;
  const listener = new PgListener(
    () => new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 }),
    logger,
  );
  const changes = new TableChangeFeed({
    listen: (c, f, r) => listener.listen(c, f, r),
    connected: () => listener.connected,
  });
  pool.on('connect', (client) => {
    // The query that was running on it rejects with the same error, so the caller hears about it there.
    client.on('error', () => {});
    const query = client.query;
    client.query = ((...args: Parameters<typeof query>) => {
      queries += 1;
      const result = query.apply(client, args);
      const q = args[0] as unknown;
      changes.statement(client, typeof q === 'string' ? q : (q as { text?: string } | null)?.text, result);
      return result;
    }) as typeof query;
  });
  const db = drizzleNodePg(pool, { schema });
  // drizzle checks a client out of the pool and sends BEGIN outside its try/finally,
  // so a BEGIN on a terminated backend would keep that client forever (and, after
  // `max` of them, starve the pool). Checking the client out here guarantees its release.
  // The session on the checked-out client uses a dialect and relational config built once, here:
  // drizzle(client, { schema }) would extract the config from the schema again for every transaction.
  type Transaction = typeof db.transaction;
  const tables = extractTablesRelationalConfig(schema, createTableRelationsHelpers);
  const relational = { fullSchema: schema, schema: tables.tables, tableNamesMap: tables.tableNamesMap };
  const dialect = new PgDialect();
  db.transaction = (async (fn: Parameters<Transaction>[0], config?: Parameters<Transaction>[1]) => {
    const client = await pool.connect();
    try {
      return await new NodePgSession(client, dialect, relational, {}).transaction(fn as never, config);
    } finally {
      client.release();
    }
  }) as Transaction;
  let closed: Promise<void> | null = null;
  return {
    db: db as unknown as Db,
    kind: 'postgres',
    migrate: () => whileUnreachable(() => migrateLocked(pool, logger), logger),
    ping: async () => {
      await pool.query('select 1');
    },
    // Named, so each connection plans it once (one is sent for every message stored).
    notify: async (channel, payload) => {
      await pool.query({ name: 'notify', text: 'select pg_notify($1, $2)', values: [channel, payload] });
    },
    listen: (channel, onPayload, onResume) => listener.listen(channel, onPayload, onResume),
    close: () =>
      (closed ??= (async () => {
        await listener.close();
        await pool.end();
      })()),
    queries: () => queries,
    changes,
  };
}

/**
 * Applies pending migrations on one connection of the pool (migrator.ts holds the locks that keep other processes
 * from applying them at the same time). The connection is closed afterwards rather than put back in the pool: its
 * session's advisory locks go with it, whatever an error left held.
 */
async function migrateLocked(pool: pg.Pool, logger?: Logger): Promise<void> {
  const client = await pool.connect();
  try {
    await migratePostgres(client, MIGRATIONS_DIR, logger);
  } finally {
    client.release(true);
  }
}

/** How long start-up waits for an unreachable PostgreSQL (a failover, a server still starting) before it gives up. */
export const STARTUP_PATIENCE_MS = 120_000;

/**
 * Runs `fn` again while it fails only because the database cannot be reached,
 * backing off from half a second to five, for `patienceMs` at most. A migration
 * cut off halfway is applied again from its start (migrator.ts says why that is safe).
 */
export async function whileUnreachable<T>(
  fn: () => Promise<T>,
  logger?: Logger,
  patienceMs = STARTUP_PATIENCE_MS,
): Promise<T> {
  const giveUpAt = Date.now() + patienceMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (!isConnectionLost(e) || Date.now() >= giveUpAt) throw e;
      const waitMs = Math.min(5_000, 500 * 2 ** (attempt - 1));
      logger?.warn(
        { attempt, waitMs, err: { message: e instanceof Error ? e.message : String(e) } },
        'the database cannot be reached yet; trying again',
      );
      await new Promise((r) => setTimeout(r, waitMs));
    }
  }
}

/**
 * PGlite in a worker thread (pglite-thread.ts): its queries run in WebAssembly
 * and would otherwise hold the main thread, which answers HTTP, while they run.
 */
async function openPglite(dataDir: string, template?: Blob, start?: OpenOptions['pgliteThread']): Promise<Database> {
  const memory = dataDir.startsWith('memory://');
  if (!memory) mkdirSync(dataDir, { recursive: true });
  const release = memory ? () => {} : lockDataDir(dataDir);
  // One process owns a PGlite database, so its own statements are every change there is.
  const changes = new TableChangeFeed();
  const started = memory && start ? start(changes) : startPgliteThread(dataDir, memory ? template : undefined, changes);
  const client = await started.catch((e) => {
    release();
    throw e;
  });
  const db = drizzlePglite({ client: client.asPglite(), schema }) as unknown as Db;
  let closed = false;
  return {
    db,
    kind: 'pglite',
    ...(memory ? {} : { dataDir }),
    migrate: () => applyMigrations(pgliteSession(client.asPglite()), { folder: MIGRATIONS_DIR }),
    ping: async () => {
      await db.execute(sql`select 1`);
    },
    notify: async (channel, payload) => {
      await client.query(`select pg_notify($1, $2)`, [channel, payload]);
    },
    listen: async (channel, onPayload) => {
      const unlisten = await client.listen(channel, onPayload);
      return async () => {
        if (!closed) await unlisten();
      };
    },
    close: async () => {
      if (!closed) {
        closed = true;
        await client.close();
        release();
      }
    },
    queries: () => client.queries,
    threadCpuMs: () => client.cpuMs(),
    changes,
  };
}
