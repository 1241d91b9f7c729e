import { createHash } from 'node:crypto';
import {
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { MIGRATIONS_DIR } from '../../src/infra/db/client.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A migrated PGlite data directory dump that test databases start from. */
    pgliteTemplate: string;
    /** A migrated PostgreSQL database that test databases are created from (null without TEST_DATABASE_URL). */
    postgresTemplate: string | null;
  }
}

export default async function setup(project: TestProject) {
  // In CI the PostgreSQL and Redis suites must run, never skip: fail early when they cannot.
  if (process.env.CI === 'true') {
    for (const v of ['TEST_DATABASE_URL', 'TEST_REDIS_URL']) {
      if (!process.env[v])
        throw new Error(`${v} must be set in CI so the PostgreSQL and Redis suites run; .ci/run exports it.`);
    }
  } else {
    const skipped = [
      ['TEST_DATABASE_URL', 'PostgreSQL'],
      ['TEST_REDIS_URL', 'Redis'],
    ].filter(([v]) => !process.env[v]);
    if (skipped.length) {
      console.warn(
        `Skipping the ${skipped.map(([, what]) => what).join(' and ')} cases: set ${skipped.map(([v]) => v).join(' and ')} to run them (the README's first lines show how).`,
      );
    }
  }
  const migrations = migrationsHash();
  project.provide('pgliteTemplate', await pgliteTemplate(migrations));
  project.provide(
    'postgresTemplate',
    process.env.TEST_DATABASE_URL ? await postgresTemplate(process.env.TEST_DATABASE_URL, migrations) : null,
  );
}

/** Names the set of migrations: a template is made again whenever one changes. */
function migrationsHash(): string {
  const hash = createHash('sha256');
  for (const f of readdirSync(MIGRATIONS_DIR, { recursive: true }).map(String).sort()) {
    const full = path.join(MIGRATIONS_DIR, f);
    if (f.endsWith('.sql') || f.endsWith('.json')) hash.update(f).update(readFileSync(full));
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * A migrated database on the test server that each test file's database is copied from (CREATE DATABASE … TEMPLATE):
 * migrating a new database costs about a second of both sides' CPU, copying one no more than creating an empty one.
 * Kept on the server between runs, per set of migrations; nothing connects to it but this, once.
 */
async function postgresTemplate(url: string, migrations: string): Promise<string> {
  const name = `sb_template_${migrations}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    if ((await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount) return name;
    const partial = `${name}_${process.pid}`;
    await admin.query(`create database ${partial}`);
    const u = new URL(url);
    u.pathname = `/${partial}`;
    const client = new pg.Client({ connectionString: u.toString() });
    await client.connect();
    try {
      await migrateNodePg(drizzleNodePg(client), { migrationsFolder: MIGRATIONS_DIR });
    } finally {
      await client.end();
    }
    // Another run may have made it meanwhile: then this copy goes.
    await admin
      .query(`alter database ${partial} rename to ${name}`)
      .catch(() => admin.query(`drop database ${partial}`));
    return name;
  } finally {
    await admin.end();
  }
}

/**
 * Templates of other sets of migrations, and the data directories seeded from them (test/support/db.ts
 * `seedDataDir`), go once unused for an hour (another checkout on this machine may still be using its own; a run
 * touches what it uses); so does a half-made one that a killed process left. Each is some 40 MB.
 */
function removeStale(current: string) {
  const hourAgo = Date.now() - 60 * 60_000;
  for (const name of readdirSync(os.tmpdir())) {
    if (!name.startsWith('switchboard-pglite-') || (name.startsWith(current) && !name.includes('.partial-'))) continue;
    const entry = path.join(os.tmpdir(), name);
    try {
      if (statSync(entry).mtimeMs < hourAgo) rmSync(entry, { recursive: true, force: true });
    } catch {
      // Another run removed it first.
    }
  }
}

/**
 * Every test file used to initialise its own PGlite (several seconds of initdb each);
 * one migrated dump per set of migrations, kept in the temp folder, loads in well under one.
 */
async function pgliteTemplate(migrations: string): Promise<string> {
  const file = path.join(os.tmpdir(), `switchboard-pglite-${migrations}.tar`);
  removeStale(`switchboard-pglite-${migrations}`);
  if (existsSync(file)) {
    utimesSync(file, new Date(), new Date()); // in use: see removeStale
    return file;
  }
  const client = await PGlite.create('memory://');
  try {
    await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_DIR });
    const dump = await client.dumpDataDir('none');
    const partial = `${file}.partial-${process.pid}`;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, file);
  } finally {
    await client.close();
  }
  return file;
}
