import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import postgres from 'postgres';
import { sql } from 'drizzle-orm';
import { lockDataDir } from './lock.ts';
import * as schema from './schema.ts';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

export const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../migrations');

/** A live database handle plus what only this driver can do (LISTEN/NOTIFY, closing). */
export interface Database {
  db: Db;
  kind: 'postgres' | 'pglite';
  migrate(): Promise<void>;
  ping(): Promise<void>;
  /** Sends a NOTIFY on `channel`; every process listening on the same database hears it. */
  notify(channel: string, payload: string): Promise<void>;
  /** Listens on `channel`; resolves to an unlisten function. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface OpenOptions {
  databaseUrl?: string;
  /** PGlite data directory; `memory://` for an in-memory database. */
  dataDir?: string;
  /** Pool size for PostgreSQL. */
  max?: number;
}

export async function openDatabase(opts: OpenOptions): Promise<Database> {
  return opts.databaseUrl ? openPostgres(opts.databaseUrl, opts.max ?? 10) : openPglite(opts.dataDir ?? 'memory://');
}

function openPostgres(url: string, max: number): Database {
  const client = postgres(url, { max, onnotice: () => {} });
  const db = drizzlePostgres(client, { schema }) as unknown as Db;
  return {
    db,
    kind: 'postgres',
    migrate: () => migratePostgres(drizzlePostgres(client, { schema }), { migrationsFolder: MIGRATIONS_DIR }),
    ping: async () => { await client`select 1`; },
    notify: async (channel, payload) => { await client.notify(channel, payload); },
    listen: async (channel, onPayload) => {
      const sub = await client.listen(channel, onPayload);
      return () => sub.unlisten();
    },
    close: () => client.end({ timeout: 5 }),
  };
}

async function openPglite(dataDir: string): Promise<Database> {
  const memory = dataDir.startsWith('memory://');
  if (!memory) mkdirSync(dataDir, { recursive: true });
  const release = memory ? () => {} : lockDataDir(dataDir);
  const client = await PGlite.create(dataDir).catch((e) => { release(); throw e; });
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  let closed = false;
  return {
    db,
    kind: 'pglite',
    migrate: () => migratePglite(drizzlePglite(client, { schema }), { migrationsFolder: MIGRATIONS_DIR }),
    ping: async () => { await db.execute(sql`select 1`); },
    notify: async (channel, payload) => { await client.query(`select pg_notify($1, $2)`, [channel, payload]); },
    listen: async (channel, onPayload) => {
      const unlisten = await client.listen(channel, onPayload);
      return async () => { if (!closed) await unlisten(); };
    },
    close: async () => { if (!closed) { closed = true; await client.close(); release(); } },
  };
}
