// The CLI acts only on the database its own environment names. A server on the same DATA_DIR answers the CLI's commands
// over its control socket; when that server uses another database, every command (migrate too) is refused, and neither
// database is written to.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startServer, type Server } from '../../src/server.ts';
import { freshPostgresDatabase, seedDataDir } from '../support/db.ts';
import { cliIn } from '../support/cli.ts';
import { serviceUrl } from '../support/services.ts';

const pgUrl = serviceUrl('postgres');
const silent = pino({ level: 'silent' });
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'sb-mismatch-'));
  dirs.push(d);
  return d;
};

/** Runs the CLI in-process with exactly these database settings (others left as they are). */
const cli = (env: { DATA_DIR: string; DATABASE_URL?: string }, ...argv: string[]) =>
  cliIn({ LOG_LEVEL: 'silent', DATABASE_URL: undefined, ...env }, ...argv);

/** The tables a database holds: none in one that nothing was ever written to (not even migrations). */
async function tableCount(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const r = await client.query(
      `select count(*)::int as n from information_schema.tables where table_schema = 'public'`,
    );
    return r.rows[0].n;
  } finally {
    await client.end();
  }
}

const dbName = (url: string) => new URL(url).pathname.slice(1);

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe.runIf(pgUrl)('the CLI next to a server on PostgreSQL, on the same DATA_DIR', () => {
  let serverDb: Awaited<ReturnType<typeof freshPostgresDatabase>>;
  let otherDb: Awaited<ReturnType<typeof freshPostgresDatabase>>;
  let dataDir: string;
  let server: Server;

  beforeAll(async () => {
    serverDb = await freshPostgresDatabase(pgUrl!);
    otherDb = await freshPostgresDatabase(pgUrl!);
    dataDir = tempDir();
    server = await startServer(loadConfig({ PORT: '0', DATA_DIR: dataDir, DATABASE_URL: serverDb.url }), {
      logger: silent,
      host: '127.0.0.1',
    });
  });
  afterAll(async () => {
    await server?.stop();
    await serverDb?.drop();
    await otherDb?.drop();
  });

  it("refuses a command when DATABASE_URL names another database, naming the server's, and writes to neither", async () => {
    const r = await cli({ DATA_DIR: dataDir, DATABASE_URL: otherDb.url }, 'person', 'add', 'zed');
    expect(r.code).toBe(2);
    expect(r.err).toContain(
      `Error (INVALID_INPUT): Nothing was done: the Switchboard server running with DATA_DIR ${dataDir} uses postgres://postgres@localhost:5432/${dbName(serverDb.url)}, not postgres://postgres@localhost:5432/${dbName(otherDb.url)} (your DATABASE_URL)`,
    );
    expect(r.err).toContain(
      `to work on the server's database, set DATABASE_URL to postgres://postgres@localhost:5432/${dbName(serverDb.url)} (with its password), or to work on the other one, set DATA_DIR to another directory or stop that server.`,
    );
    expect(await server.app.store.people.get('zed')).toBeNull();
    expect(await tableCount(otherDb.url)).toBe(0);
    const json = await cli({ DATA_DIR: dataDir, DATABASE_URL: otherDb.url }, '--json', 'person', 'list');
    expect(json.code).toBe(2);
    expect(JSON.parse(json.err).error).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('Nothing was done'),
    });
  });

  it('refuses a command without DATABASE_URL (the embedded database), and creates no embedded database', async () => {
    const r = await cli({ DATA_DIR: dataDir }, 'init', '--org', 'Prod', '--admin', 'ops');
    expect(r.code).toBe(2);
    expect(r.err).toContain('not the embedded database in DATA_DIR (DATABASE_URL is not set)');
    expect(await server.app.store.orgs.get('prod')).toBeNull();
    expect(existsSync(path.join(dataDir, 'pglite'))).toBe(false);
  });

  it("refuses migrate for another database the same way, and migrates the server's", async () => {
    const r = await cli({ DATA_DIR: dataDir, DATABASE_URL: otherDb.url }, 'migrate');
    expect(r.code).toBe(2);
    expect(r.err).toContain(
      `Nothing was done: the Switchboard server running with DATA_DIR ${dataDir} uses postgres://postgres@localhost:5432/${dbName(serverDb.url)}`,
    );
    expect(await tableCount(otherDb.url)).toBe(0);
    expect((await cli({ DATA_DIR: dataDir }, 'migrate')).code).toBe(2);
    const same = await cli({ DATA_DIR: dataDir, DATABASE_URL: serverDb.url }, 'migrate');
    expect(same).toMatchObject({ code: 0, out: 'Migrations applied.' });
  });

  it("runs the command when DATABASE_URL names the server's database, however it is spelled", async () => {
    const spelled = new URL(serverDb.url);
    spelled.hostname = spelled.hostname === 'localhost' ? '127.0.0.1' : 'localhost';
    spelled.port = '';
    spelled.password = 'not-compared';
    const r = await cli({ DATA_DIR: dataDir, DATABASE_URL: spelled.toString() }, 'person', 'add', 'yan');
    expect(r).toMatchObject({ code: 0 });
    expect(await server.app.store.people.get('yan')).not.toBeNull();
  });
});

describe.runIf(pgUrl)('the CLI next to a server on the embedded database, on the same DATA_DIR', () => {
  let otherDb: Awaited<ReturnType<typeof freshPostgresDatabase>>;
  let dataDir: string;
  let server: Server;

  beforeAll(async () => {
    otherDb = await freshPostgresDatabase(pgUrl!);
    dataDir = tempDir();
    await seedDataDir(dataDir);
    server = await startServer(loadConfig({ PORT: '0', DATA_DIR: dataDir }), { logger: silent, host: '127.0.0.1' });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await otherDb?.drop();
  });

  it('refuses init and migrate for the PostgreSQL DATABASE_URL names, saying to unset it, and writes to neither', async () => {
    const r = await cli({ DATA_DIR: dataDir, DATABASE_URL: otherDb.url }, 'init', '--org', 'Prod', '--admin', 'ops');
    expect(r.code).toBe(2);
    expect(r.err).toContain(
      `Nothing was done: the Switchboard server running with DATA_DIR ${dataDir} uses its embedded database, not postgres://postgres@localhost:5432/${dbName(otherDb.url)} (your DATABASE_URL); to work on the server's database, unset DATABASE_URL, or to work on the other one, set DATA_DIR to another directory or stop that server.`,
    );
    expect(r.out).not.toContain('Created organization');
    const migrate = await cli({ DATA_DIR: dataDir, DATABASE_URL: otherDb.url }, 'migrate');
    expect(migrate.code).toBe(2);
    expect(migrate.err).toContain('uses its embedded database, not postgres://');
    expect(await server.app.store.orgs.get('prod')).toBeNull();
    expect(await server.app.store.people.get('ops')).toBeNull();
    expect(await tableCount(otherDb.url)).toBe(0);
    // Without DATABASE_URL the same command goes to the server, as before.
    expect((await cli({ DATA_DIR: dataDir }, 'init', '--org', 'Prod', '--admin', 'ops')).code).toBe(0);
    expect(await server.app.store.orgs.get('prod')).not.toBeNull();
  });
});
