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
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { MIGRATIONS_DIR } from '../../src/infra/db/client.ts';
import { applyMigrations, migratePostgres, pgliteSession } from '../../src/infra/db/migrator.ts';
import { DEFAULT_CHROMIUM, missingSentence, SERVICES, type Service } from './services.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A migrated PGlite data directory dump that test databases start from. */
    pgliteTemplate: string;
    /** A migrated PostgreSQL database that test databases are created from (null without TEST_DATABASE_URL). */
    postgresTemplate: string | null;
  }
}

export default async function setup(project: TestProject) {
  // In CI the PostgreSQL, Redis and Chromium suites must run, never skip: fail early when they cannot.
  if (process.env.CI === 'true') {
    for (const s of [SERVICES.postgres, SERVICES.redis]) {
      if (!process.env[s.variable]) throw new Error(missingSentence(s, `${s.variable} is not set in CI`));
    }
    const chromium = process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM;
    if (!existsSync(chromium)) throw new Error(missingSentence(SERVICES.chromium, `there is no ${chromium}`));
  }
  const redisUrl = process.env.TEST_REDIS_URL;
  if (redisUrl) await answers(redisUrl, SERVICES.redis);
  const skipLog = path.join(os.tmpdir(), `switchboard-skips-${process.pid}-${Date.now()}.jsonl`);
  writeFileSync(skipLog, '');
  project.provide('skipLog', skipLog);
  const migrations = migrationsHash();
  project.provide('pgliteTemplate', await pgliteTemplate(migrations));
  const databaseUrl = process.env.TEST_DATABASE_URL;
  project.provide(
    'postgresTemplate',
    databaseUrl
      ? await postgresTemplate(databaseUrl, migrations).catch((e: Error) => {
          throw new Error(
            missingSentence(SERVICES.postgres, `the database at TEST_DATABASE_URL could not be used (${e.message})`),
          );
        })
      : null,
  );
  return () => reportSkipped(skipLog);
}

/** Says once, at the end of a local run, which files skipped suites for want of a service and how to turn them on. */
function reportSkipped(skipLog: string) {
  const lines = readFileSync(skipLog, 'utf8').split('\n').filter(Boolean);
  rmSync(skipLog, { force: true });
  const files = new Map<keyof typeof SERVICES, Set<string>>();
  for (const line of lines) {
    const { service, file } = JSON.parse(line) as { service: keyof typeof SERVICES; file: string };
    if (!files.has(service)) files.set(service, new Set());
    files.get(service)!.add(path.relative(process.cwd(), file));
  }
  if (!files.size) return;
  const said = [...files].map(([service, names]) => {
    const s = SERVICES[service];
    return [
      `${s.name}: ${s.variable} is not set, so these files ran without it (${s.without}):`,
      ...[...names].sort().map((n) => `  ${n}`),
      `  To run them: ${s.how}`,
    ].join('\n');
  });
  console.warn(`\nSkipped for want of a service (CI runs them all; .ci/run starts each):\n${said.join('\n')}\n`);
}

/** Throws the service's sentence when nothing accepts a connection at `url` within a few seconds. */
function answers(url: string, s: Service): Promise<void> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: u.hostname, port: Number(u.port) || 6379, timeout: 3_000 });
    const fail = (why: string) => {
      socket.destroy();
      reject(new Error(missingSentence(s, `nothing answers at ${s.variable} (${url}: ${why})`)));
    };
    socket.once('connect', () => {
      socket.end();
      resolve();
    });
    socket.once('timeout', () => fail('timed out'));
    socket.once('error', (e: NodeJS.ErrnoException) => fail(e.code ?? e.message));
  });
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
      await migratePostgres(client, MIGRATIONS_DIR);
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
    await applyMigrations(pgliteSession(client), { folder: MIGRATIONS_DIR });
    const dump = await client.dumpDataDir('none');
    const partial = `${file}.partial-${process.pid}`;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, file);
  } finally {
    await client.close();
  }
  return file;
}
