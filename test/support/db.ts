import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { inject } from 'vitest';
import pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';
import { openDatabase, type Database } from '../../src/infra/db/client.ts';
import { startPgliteThread, type PgliteThread, type StatementWatch } from '../../src/infra/db/pglite-thread.ts';
import { settlesWithin } from '../../src/infra/time.ts';
import { serviceUrl } from './services.ts';

export interface TestDatabase {
  kind: 'pglite' | 'postgres';
  open(): Promise<Database>;
}

const ROOT = path.resolve(import.meta.dirname, '../..');
let template: Blob | undefined;
const pgliteTemplate = () => {
  if (template) return template;
  const file = inject('pgliteTemplate');
  utimesSync(file, new Date(), new Date()); // in use: see removeStale in global-setup.ts
  return (template = new Blob([readFileSync(file)]));
};

/** A fresh, migrated PGlite in memory: emptied from an earlier file's, or started from the template the global setup made. */
export const pgliteDb: TestDatabase = {
  kind: 'pglite',
  async open() {
    const d = await openDatabase({ dataDir: 'memory://', pgliteThread: lendPglite });
    await d.migrate();
    return d;
  },
};

/**
 * In-memory PGlite threads this test process keeps between files. Starting one from the template costs about 2 s of
 * CPU (a worker thread, PGlite's file system, PostgreSQL's start-up), which the suite paid some 90 times; emptying
 * every table of one a file has closed costs milliseconds. A lent thread refuses calls once closed, as a closed one
 * does, so a late statement from one file never lands in the next file's database. One that cannot be emptied (a
 * transaction left open, the thread stopped, the schema changed) is ended instead of kept.
 */
const KEEP = 2;
const idle: Pooled[] = [];
interface Pooled {
  thread: PgliteThread;
  relay: Relay;
  schema: string;
}

/** Passes statements on to the watch of the database the thread is lent to now. */
class Relay implements StatementWatch {
  to: StatementWatch | undefined;
  statement(key: unknown, text: string, result: Promise<unknown>) {
    this.to?.statement(key, text, result);
  }
  ended(key: unknown, committed: boolean) {
    this.to?.ended(key, committed);
  }
}

const SCHEMA = `select count(*) || ':' || coalesce(sum(hashtext(c.relname || '.' || a.attname || ':' || a.atttypid)), 0) as schema
  from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
  where n.nspname in ('public', 'drizzle') and a.attnum > 0 and not a.attisdropped`;
const EMPTY = `do $$ declare t text; begin
  select string_agg(format('%I.%I', schemaname, tablename), ', ') into t from pg_tables where schemaname = 'public';
  execute 'truncate ' || t || ' restart identity cascade';
  perform pg_advisory_unlock_all();
end $$`;
const schemaOf = async (t: PgliteThread) =>
  String((await t.query(SCHEMA)).rows.map((r) => (r as { schema: string }).schema)[0]);
const closedError = () => Object.assign(new Error('PGlite is closed'), { code: '08003' });

async function lendPglite(watch: StatementWatch): Promise<PgliteThread> {
  const held =
    idle.pop() ??
    (await (async () => {
      const relay = new Relay();
      const thread = await startPgliteThread('memory://', pgliteTemplate(), relay);
      return { thread, relay, schema: await schemaOf(thread) };
    })());
  held.relay.to = watch;
  const unlistens = new Set<() => Promise<void>>();
  let returned: Promise<void> | null = null;
  const open = () => {
    if (returned) throw closedError();
  };
  const lent: PgliteThread = Object.assign(Object.create(held.thread) as PgliteThread, {
    query: (...args: Parameters<PgliteThread['query']>) => {
      try {
        open();
      } catch (e) {
        return Promise.reject(e);
      }
      return held.thread.query(...args);
    },
    transaction: <T>(fn: (tx: { query: PgliteThread['query'] }) => Promise<T>) => {
      try {
        open();
      } catch (e) {
        return Promise.reject(e);
      }
      return held.thread.transaction(fn);
    },
    async listen(channel: string, onPayload: (payload: string) => void) {
      open();
      const unlisten = await held.thread.listen(channel, onPayload);
      unlistens.add(unlisten);
      return async () => {
        if (unlistens.delete(unlisten)) await unlisten();
      };
    },
    close: () => (returned ??= giveBack(held, unlistens)),
    asPglite: () => lent as unknown as PGlite,
  });
  return lent;
}

async function giveBack(held: Pooled, unlistens: Set<() => Promise<void>>): Promise<void> {
  held.relay.to = undefined;
  await Promise.all([...unlistens].map((u) => u().catch(() => {})));
  let clean = false;
  const emptying = (async () => {
    await held.thread.query(EMPTY);
    clean = (await schemaOf(held.thread)) === held.schema;
  })();
  const emptied = (await settlesWithin(emptying, 10_000).catch(() => false)) && clean;
  if (emptied && idle.length < KEEP) idle.push(held);
  else await held.thread.close();
}

/**
 * A fresh database on the real PostgreSQL (TEST_DATABASE_URL), created for this
 * test file (a copy of the migrated template the global setup made there) and
 * dropped when it is closed, so parallel files never share rows.
 */
export function postgresDb(url = serviceUrl('postgres')): TestDatabase | null {
  if (!url) return null;
  return {
    kind: 'postgres',
    async open() {
      const fresh = await freshPostgresDatabase(
        url,
        url === process.env.TEST_DATABASE_URL ? inject('postgresTemplate') : null,
      );
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

/** A new database on the server behind `url` (empty, or a copy of `template`), and a function that drops it. */
export async function freshPostgresDatabase(
  url: string,
  template?: string | null,
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `sb_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  // Tests terminate backends on purpose; an unheard 'error' event would be thrown.
  admin.on('error', () => {});
  await admin.connect();
  await admin.query(`create database ${name}${template ? ` template ${template}` : ''}`);
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

/**
 * One fresh database on the PostgreSQL behind `url`, opened twice with pools of its own, as two server processes
 * would (a wake-up between them can only cross through LISTEN/NOTIFY); closing drops it.
 */
export async function twoPoolsOnOneDatabase(
  url: string,
): Promise<{ databases: [Database, Database]; close(): Promise<void> }> {
  const fresh = await freshPostgresDatabase(url);
  const one = await openDatabase({ databaseUrl: fresh.url, max: 4 });
  await one.migrate();
  const two = await openDatabase({ databaseUrl: fresh.url, max: 4 });
  return {
    databases: [one, two],
    close: async () => {
      await one.close();
      await two.close();
      await fresh.drop();
    },
  };
}

/** Every database kind available here: PGlite always, PostgreSQL when TEST_DATABASE_URL is set (always in CI). */
export function databases(): TestDatabase[] {
  const pg = postgresDb();
  return pg ? [pgliteDb, pg] : [pgliteDb];
}

/**
 * Puts a migrated embedded database in `dataDir` (in DATA_DIR/pglite, where `switchboard serve` keeps it), for a
 * test whose server or CLI process opens DATA_DIR itself: as if a server had run there before. It is a copy of one
 * directory seeded from the template and kept beside it in the temp folder (named after the template, so after the
 * migrations, and after the PGlite version that wrote it): seeding starts PGlite and writes the whole directory,
 * about 2 s of CPU, copying it about 0.2 s. An initdb costs about 3 s more; test/http/health.test.ts keeps one, for
 * the first start.
 */
export async function seedDataDir(dataDir: string): Promise<void> {
  const templateFile = inject('pgliteTemplate');
  const pglite = (
    JSON.parse(readFileSync(path.join(ROOT, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
  const kept = path.join(path.dirname(templateFile), `${path.basename(templateFile, '.tar')}-datadir-${pglite}`);
  const seeded = () => existsSync(path.join(kept, 'pglite', 'PG_VERSION'));
  if (!seeded()) {
    // Made aside and renamed, so a file copying it never sees half a directory; another file may make it meanwhile.
    const partial = mkdtempSync(`${kept}.partial-`);
    try {
      const thread = await startPgliteThread(path.join(partial, 'pglite'), pgliteTemplate());
      await thread.close();
      renameSync(partial, kept);
    } catch (e) {
      if (!seeded()) throw e;
    } finally {
      rmSync(partial, { recursive: true, force: true });
    }
  }
  utimesSync(kept, new Date(), new Date()); // in use: see removeStale in global-setup.ts
  cpSync(path.join(kept, 'pglite'), path.join(dataDir, 'pglite'), { recursive: true });
}
