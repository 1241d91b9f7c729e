import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { MIGRATIONS_DIR } from '../../src/adapters/db/client.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A migrated PGlite data directory dump that test databases start from. */
    pgliteTemplate: string;
  }
}

export default async function setup(project: TestProject) {
  // In CI the PostgreSQL and Redis suites must run, never skip: fail early when they cannot.
  if (process.env.CI === 'true') {
    for (const v of ['TEST_DATABASE_URL', 'TEST_REDIS_URL']) {
      if (!process.env[v]) throw new Error(`${v} must be set in CI so the PostgreSQL and Redis suites run; .ci/run exports it.`);
    }
  } else {
    const skipped = [['TEST_DATABASE_URL', 'PostgreSQL'], ['TEST_REDIS_URL', 'Redis']].filter(([v]) => !process.env[v]);
    if (skipped.length) {
      console.warn(`Skipping the ${skipped.map(([, what]) => what).join(' and ')} cases: set ${skipped.map(([v]) => v).join(' and ')} to run them (the README's first lines show how).`);
    }
  }
  project.provide('pgliteTemplate', await pgliteTemplate());
}

/**
 * Every test file used to initialise its own PGlite (several seconds of initdb each);
 * one migrated dump per set of migrations, kept in the temp folder, loads in well under one.
 */
async function pgliteTemplate(): Promise<string> {
  const hash = createHash('sha256');
  for (const f of readdirSync(MIGRATIONS_DIR, { recursive: true }).map(String).sort()) {
    const full = path.join(MIGRATIONS_DIR, f);
    if (f.endsWith('.sql') || f.endsWith('.json')) hash.update(f).update(readFileSync(full));
  }
  const file = path.join(os.tmpdir(), `switchboard-pglite-${hash.digest('hex').slice(0, 16)}.tar`);
  if (existsSync(file)) return file;
  const client = await PGlite.create('memory://');
  try {
    await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_DIR });
    const dump = await client.dumpDataDir('none');
    const partial = `${file}.${process.pid}`;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, file);
  } finally {
    await client.close();
  }
  return file;
}
