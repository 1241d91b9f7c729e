// A rolling upgrade on PostgreSQL, as docs/operating/upgrades.md describes it: a server of the previous version (the
// code of PREVIOUS, from git history) serves agents over MCP; while they go on sending and reading, migrations in
// expand form are applied (this checkout's, plus one of the test's that builds an index concurrently, fills a column
// in batches and adds a constraint to validate later, on the tables every message writes), a server of this
// checkout starts beside it, and the old one is stopped. Every message sent is stored and read exactly once, both
// versions answer while they overlap, and no request is refused for more than a moment.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BATCHED, migratePostgres, NO_TRANSACTION } from '../../src/infra/db/migrator.ts';
import { freshPostgresDatabase } from '../support/db.ts';
import { freePort } from '../support/free-port.ts';
import { migrationFolder, type MigrationFolder } from '../support/migrations.ts';
import { TEST_SECRET } from '../support/server.ts';
import { serviceUrl } from '../support/services.ts';

/**
 * The previous release: the commit it was made from, whose dependencies this checkout also has (its copy runs on this
 * checkout's node_modules). When making a release, move it to the release before, so that each release is tested
 * beside the one it replaces: the pair a rolling upgrade runs together.
 */
const PREVIOUS = 'a116dd404da4af96e23100b79027929ee6408498';

/** Agents sending to one receiver, each in its own conversation with it, every SEND_EVERY_MS: 24 a minute each. */
const SENDERS = 10;
const SEND_EVERY_MS = 2_500;

const ROOT = path.resolve(import.meta.dirname, '../..');
const url = serviceUrl('postgres');

const git = (...args: string[]) => execFileSync('git', ['-C', ROOT, ...args], { encoding: 'utf8', stdio: 'pipe' });

/** Why the previous version cannot be had from this checkout, or null when it can. */
function historyMissing(): string | null {
  try {
    git('cat-file', '-e', `${PREVIOUS}^{commit}`);
  } catch {
    let shallow = false;
    try {
      shallow = git('rev-parse', '--is-shallow-repository').trim() === 'true';
    } catch {
      return `${ROOT} is not a git checkout, and the test runs the previous version's code from git history (commit ${PREVIOUS})`;
    }
    return shallow
      ? `this clone is shallow and lacks commit ${PREVIOUS}, the previous version's code: clone without --depth or run \`git fetch --unshallow\``
      : `commit ${PREVIOUS} (the previous version) is not in this clone's history: fetch main, or move PREVIOUS in this file to a commit it has`;
  }
  // Its copy runs on this checkout's node_modules: each package it needs must be there, in the range it asked for.
  type Manifest = { dependencies: Record<string, string>; devDependencies?: Record<string, string> };
  const deps = (json: string) => (JSON.parse(json) as Manifest).dependencies;
  // Whatever this checkout installs, for running or for its tests, is in its node_modules.
  const { dependencies, devDependencies } = JSON.parse(
    readFileSync(path.join(ROOT, 'package.json'), 'utf8'),
  ) as Manifest;
  const ours = { ...devDependencies, ...dependencies };
  const changed = Object.entries(deps(git('show', `${PREVIOUS}:package.json`))).filter(([n, v]) => ours[n] !== v);
  if (changed.length)
    return `commit ${PREVIOUS} (the previous version) needs ${changed.map(([n, v]) => `${n}@${v}`).join(', ')}, which this checkout's node_modules, where its copy runs, does not hold in that range: move PREVIOUS to a later commit`;
  return null;
}

const missing = url ? historyMissing() : null;
if (missing && process.env.CI === 'true') throw new Error(`The rolling upgrade test cannot run: ${missing}.`);
if (missing) console.warn(`Skipping the rolling upgrade test: ${missing}.`);

/** A Switchboard `serve` process of the code in `dir`, on PostgreSQL. */
interface Process {
  name: string;
  url: string;
  dataDir: string;
  child: ChildProcess;
  output: string[];
  exited: Promise<number | null>;
}

/** The environment of a process of the code in `dir` (nothing of this test process's own but PATH and HOME). */
const envFor = (databaseUrl: string, dataDir: string, port?: number) => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  DATABASE_URL: databaseUrl,
  DATA_DIR: dataDir,
  SWITCHBOARD_SECRET: TEST_SECRET,
  LOG_LEVEL: 'warn',
  ...(port ? { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` } : {}),
});

/** Every process started, stopped after the file. */
const started: Process[] = [];

async function serve(name: string, dir: string, databaseUrl: string): Promise<Process> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), `sb-rolling-${name}-`));
  const child = spawn(process.execPath, ['bin/switchboard.mjs', 'serve'], {
    cwd: dir,
    env: envFor(databaseUrl, dataDir, port),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout!.on('data', (d: Buffer) => output.push(d.toString()));
  child.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const p: Process = { name, url: `http://127.0.0.1:${port}`, dataDir, child, output, exited };
  started.push(p);
  await vi.waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`the ${name} server exited at start-up:\n${output.join('')}`);
      const r = await fetch(`${p.url}/readyz`);
      if (r.status !== 200) throw new Error(`the ${name} server is not ready yet`);
    },
    { timeout: 30_000, interval: 100 },
  );
  return p;
}

/**
 * Runs commands of the previous version's CLI, one after another in one process (a process per command cost a
 * second or more each on a loaded machine), against its running server through DATA_DIR's control socket; resolves
 * to what each printed with `--json`.
 */
function oldCli(
  dir: string,
  p: Process,
  databaseUrl: string,
  commands: string[][],
): Promise<Array<Record<string, any>>> {
  const script = `
    import { register } from 'tsx/esm/api';
    register();
    const { main } = await import(new URL('src/cli/index.ts', 'file://' + process.cwd() + '/').href);
    const answers = [];
    for (const argv of JSON.parse(process.env.COMMANDS)) {
      const out = [];
      const err = [];
      const code = await main([...argv, '--json'], { out: (s) => out.push(s), err: (s) => err.push(s) });
      if (code !== 0) {
        process.stderr.write(argv.join(' ') + ': ' + err.join('\\n'));
        process.exit(1);
      }
      answers.push(JSON.parse(out.join('\\n')));
    }
    process.stdout.write(JSON.stringify(answers));
    process.exit(0);`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: dir,
      env: { ...envFor(databaseUrl, p.dataDir), COMMANDS: JSON.stringify(commands) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.once('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out) as Array<Record<string, any>>) : reject(new Error(err)),
    );
  });
}

/** One server behind the test's balancer, with an MCP session for each agent. */
interface Backend {
  process: Process;
  receiver: Client;
  senders: Client[];
  /** Taken out of the balancer: it sends this server no new calls. */
  down: boolean;
  /** Calls sent to it and not answered yet. */
  inFlight: number;
}

async function mcp(p: Process, token: string): Promise<Client> {
  const client = new Client({ name: 'rolling-upgrade-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${p.url}/mcp/team`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

/** What happened to the traffic while the servers changed. */
interface Traffic {
  /** Every message body the sender was told was sent, with the server that said so. */
  sent: Map<string, string>;
  /** Every body the receiver read (a body read twice is here twice), with the server it read it from. */
  read: Array<{ body: string; via: string }>;
  /** The longest time a call went without an answer because servers refused it or went away (ms). */
  longestRefusalMs: number;
  refusals: string[];
}

describe.runIf(url && !missing)('a rolling upgrade from the previous version on PostgreSQL', () => {
  let oldDir: string;
  let database: { url: string; drop(): Promise<void> };
  let admin: pg.Client;
  let folder: MigrationFolder;
  const clients: Client[] = [];

  beforeAll(() => {
    oldDir = mkdtempSync(path.join(tmpdir(), 'sb-previous-'));
    execFileSync('sh', ['-c', `git -C "${ROOT}" archive ${PREVIOUS} | tar -x -C "${oldDir}"`]);
    symlinkSync(realpathSync(path.join(ROOT, 'node_modules')), path.join(oldDir, 'node_modules'));
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    for (const p of started) {
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
      const stopped = await Promise.race([p.exited.then(() => true), new Promise((r) => setTimeout(r, 15_000, false))]);
      if (!stopped) p.child.kill('SIGKILL');
      rmSync(p.dataDir, { recursive: true, force: true });
    }
    await admin?.end();
    await database?.drop();
    folder?.remove();
    if (oldDir) rmSync(oldDir, { recursive: true, force: true });
  });

  it('stores and delivers every message exactly once while both versions serve, and refuses nothing for long', async () => {
    // An empty database, migrated by the previous version's own start-up, as an install of it would be.
    database = await freshPostgresDatabase(url!);
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    const old = await serve('previous', oldDir, database.url);
    // Three owners: each person's own Free organization counts their agents, five at most.
    const owners = ['alice', 'bob', 'carol'];
    const agents = ['receiver', ...Array.from({ length: SENDERS }, (_, i) => `sender-${i}`)].map((name, i) => ({
      owner: owners[i % owners.length],
      name,
    }));
    const answers = await oldCli(oldDir, old, database.url, [
      ['init', '--org', 'Acme', '--admin', 'alice'],
      ['plan', 'set', 'acme', 'team', '--messages', '100000'],
      ['workspace', 'add', 'Team', '--org', 'acme'],
      ...owners.slice(1).map((o) => ['person', 'add', o, '--org', 'acme']),
      ...agents.map((a) => ['agent', 'add', a.name, '--owner', a.owner]),
      ...agents.map((a) => ['agent', 'join', `${a.owner}/${a.name}`, 'team']),
    ]);
    // The agents' tokens, from the `agent add` answers (followed by one answer per `agent join`).
    const added = answers.length - 2 * agents.length;
    const tokens = answers.slice(added, added + agents.length).map((r) => r.token as string);

    const backends: Backend[] = [];
    const attach = async (p: Process) => {
      const sessions = await Promise.all(tokens.map((t) => mcp(p, t)));
      clients.push(...sessions);
      backends.push({ process: p, receiver: sessions[0], senders: sessions.slice(1), down: false, inFlight: 0 });
    };
    await attach(old);

    const traffic: Traffic = { sent: new Map(), read: [], longestRefusalMs: 0, refusals: [] };
    let turn = 0;
    /**
     * Calls a tool through the balancer: the servers in it in turn; a call a server refused or could not answer goes
     * to the next one at once. A tool's own refusal (an answer saying why it did nothing) fails the test.
     */
    const call = async (who: (b: Backend) => Client, name: string, args: Record<string, unknown>) => {
      let refusedSince: number | null = null;
      for (;;) {
        const live = backends.filter((b) => !b.down);
        const b = live[turn++ % live.length];
        let r: CallToolResult;
        b.inFlight++;
        try {
          r = (await who(b).callTool({ name, arguments: args })) as CallToolResult;
        } catch (e) {
          refusedSince ??= performance.now();
          traffic.refusals.push(`${b.process.name} ${name}: ${e instanceof Error ? e.message : String(e)}`);
          if (live.length === 1) await new Promise((resolve) => setTimeout(resolve, 50));
          continue;
        } finally {
          b.inFlight--;
        }
        expect(r.isError, `${name}: ${JSON.stringify(r.content)}`).toBeFalsy();
        if (refusedSince !== null)
          traffic.longestRefusalMs = Math.max(traffic.longestRefusalMs, performance.now() - refusedSince);
        return { result: r.structuredContent as Record<string, any>, via: b.process.name };
      }
    };

    // Each sender writes to the receiver at a pace the per-conversation rate limit allows for as long as it goes on.
    let running = true;
    const sending = Promise.all(
      Array.from({ length: SENDERS }, async (_, i) => {
        await new Promise((resolve) => setTimeout(resolve, (i * SEND_EVERY_MS) / SENDERS));
        for (let n = 0; running; n++) {
          const since = performance.now();
          const body = `message ${n} from sender-${i}`;
          const { result, via } = await call((b) => b.senders[i], 'send_message', { to: 'receiver', body });
          expect(result.message_id, `${body} was sent`).toBeTruthy();
          traffic.sent.set(body, via);
          await new Promise((resolve) => setTimeout(resolve, SEND_EVERY_MS - (performance.now() - since)));
        }
      }),
    );
    let reading = true;
    const receiving = (async () => {
      while (reading) {
        const { result, via } = await call((b) => b.receiver, 'check_inbox', { limit: 100 });
        for (const m of result.messages as Array<{ body: string }>) traffic.read.push({ body: m.body, via });
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const sentThrough = (name: string) => [...traffic.sent.values()].filter((v) => v === name).length;
    const moreSent = async (name: string, more: number) => {
      const from = sentThrough(name);
      await vi.waitFor(() => expect(sentThrough(name)).toBeGreaterThanOrEqual(from + more), { timeout: 20_000 });
    };

    try {
      await moreSent('previous', 5);

      // The migrations, in expand form, while the previous version serves.
      folder = migrationFolder(
        [
          {
            tag: '9901_delivery_seen',
            statements: [
              `${NO_TRANSACTION}\nALTER TABLE "deliveries" ADD COLUMN IF NOT EXISTS "seen" boolean`,
              'CREATE INDEX CONCURRENTLY IF NOT EXISTS "messages_body_length_idx" ON "messages" (length("body"))',
              `${BATCHED}\nUPDATE "deliveries" SET "seen" = "read_at" IS NOT NULL WHERE ("message_id", "agent_id") IN (SELECT "message_id", "agent_id" FROM "deliveries" WHERE "seen" IS NULL LIMIT 50)`,
            ],
          },
          {
            tag: '9902_message_body_check',
            statements: [
              'ALTER TABLE "messages" ADD CONSTRAINT "messages_body_short" CHECK (length("body") <= 16000) NOT VALID',
            ],
          },
          {
            tag: '9903_message_body_valid',
            statements: ['ALTER TABLE "messages" VALIDATE CONSTRAINT "messages_body_short"'],
          },
        ],
        { withProject: true },
      );
      const connection = new pg.Client({ connectionString: database.url });
      await connection.connect();
      try {
        await migratePostgres(connection, folder.dir);
      } finally {
        await connection.end();
      }
      // The previous version goes on storing messages after them.
      await moreSent('previous', 5);

      // This checkout's server beside it; the balancer sends to both.
      const current = await serve('current', ROOT, database.url);
      await attach(current);
      // Both versions store messages while they overlap (each wait fails the test if its server stops doing so).
      await Promise.all([moreSent('previous', 3), moreSent('current', 3)]);

      // The previous version leaves as a rollout takes a pod out: the balancer sends it no new calls (the pod leaves
      // the Service's endpoints while its preStop pause runs), the calls already there are answered, then SIGTERM.
      const leaving = backends[0];
      leaving.down = true;
      await vi.waitFor(() => expect(leaving.inFlight).toBe(0));
      old.child.kill('SIGTERM');
      expect(await old.exited).toBe(0);
      await moreSent('current', 5);
      running = false;
      await sending;
      // Everything sent is read before the reader stops.
      await vi.waitFor(() => expect(traffic.read.length).toBeGreaterThanOrEqual(traffic.sent.size), {
        timeout: 20_000,
      });
      reading = false;
      await receiving;
    } finally {
      running = false;
      reading = false;
      await Promise.allSettled([sending, receiving]);
    }

    // The waits above saw messages stored through each version in each phase: before, during and after the migrations,
    // during the overlap, and after the previous version stopped.
    const sent = [...traffic.sent.keys()];
    // Stored once each: no message lost, none doubled by a retry.
    const stored = await admin.query<{ body: string; n: number }>(
      'select body, count(*)::int as n from messages where body like $1 group by body',
      ['message %'],
    );
    expect(stored.rows.filter((r) => r.n !== 1)).toEqual([]);
    expect(stored.rows.map((r) => r.body).sort()).toEqual([...sent].sort());
    // Read once each, across both versions.
    expect(traffic.read.map((r) => r.body).sort()).toEqual([...sent].sort());
    const sentThroughOld = traffic.read.filter((r) => traffic.sent.get(r.body) === 'previous' && r.via === 'current');
    expect(sentThroughOld.length, 'messages stored by the previous version read through this one').toBeGreaterThan(0);
    // A call a server refused or could not answer was answered by the next one at once.
    expect(traffic.longestRefusalMs, traffic.refusals.join('\n')).toBeLessThan(2_000);

    // The expand migrations ran beside the traffic: the index built concurrently is valid, the constraint validated.
    const index = await admin.query(
      "select indisvalid from pg_index where indexrelid = 'messages_body_length_idx'::regclass",
    );
    expect(index.rows).toEqual([{ indisvalid: true }]);
    const check = await admin.query("select convalidated from pg_constraint where conname = 'messages_body_short'");
    expect(check.rows).toEqual([{ convalidated: true }]);
  }, 90_000);
});
