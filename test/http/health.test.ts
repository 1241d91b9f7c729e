import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startServer, type Server } from '../../src/server.ts';
import { main } from '../../src/cli/index.ts';
import { sendToServer } from '../../src/cli/control.ts';
import { DatabaseLockedError } from '../../src/infra/db/lock.ts';
import { openDatabase } from '../../src/infra/db/client.ts';

// One server for the file, from a first start in an empty DATA_DIR (a real initdb and every migration): the tests
// below need a server on embedded defaults, and a second one on a seeded data directory cost seconds of CPU more.
describe('a server on embedded defaults', () => {
  let dataDir: string;
  let server: Server;
  /** What the server answered while it was still starting, before its database was ready. */
  let whileStarting: { health: number; ready: number; readyBody: { problems: string[] } };

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'sb-health-'));
    let listening!: (url: string) => void;
    let proceed!: () => void;
    const url = new Promise<string>((resolve) => {
      listening = resolve;
    });
    const held = new Promise<void>((resolve) => {
      proceed = resolve;
    });
    // The server waits in onListening until both requests were answered, so they see it starting however fast the database opens.
    const starting = startServer(loadConfig({ PORT: '0', DATA_DIR: dataDir }), {
      logger: pino({ level: 'silent' }),
      host: '127.0.0.1',
      onListening: (u) => {
        listening(u);
        return held;
      },
    });
    const base = await url;
    try {
      const health = await fetch(`${base}/healthz`);
      const ready = await fetch(`${base}/readyz`);
      whileStarting = { health: health.status, ready: ready.status, readyBody: await ready.json() };
    } finally {
      proceed();
      server = await starting;
    }
  }, 120_000); // a real initdb and every migration: 30 s was not enough at load 25
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers /healthz at once and 503 elsewhere until the database is ready, on a first start in an empty DATA_DIR', async () => {
    expect(whileStarting.health).toBe(200);
    expect(whileStarting.ready).toBe(503);
    expect(whileStarting.readyBody.problems[0]).toMatch(/^starting/);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });

  it('answers /healthz and /readyz', async () => {
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ ok: true });
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
  });

  it('holds the embedded database alone: a second process is refused with what to do', async () => {
    const err = await openDatabase({ dataDir: path.join(dataDir, 'pglite') }).catch((e) => e);
    expect(err).toBeInstanceOf(DatabaseLockedError);
    expect(err.message).toContain('PGlite allows one process at a time');
  });

  it('runs CLI commands sent over its control socket', async () => {
    const reply = await sendToServer({ dataDir }, 'init', { org: 'Acme', admin: 'alice' });
    expect(reply).toMatchObject({ ok: true, output: { data: { org: { slug: 'acme' } } } });
    const out: string[] = [];
    const saved = { ...process.env };
    Object.assign(process.env, { DATA_DIR: dataDir });
    delete process.env.DATABASE_URL;
    try {
      const code = await main(['--json', 'person', 'add', 'bob', '--org', 'acme'], {
        out: (s) => out.push(s),
        err: (s) => out.push(s),
      });
      expect(code).toBe(0);
    } finally {
      process.env = saved;
    }
    expect(JSON.parse(out[0]).person.handle).toBe('bob');
    expect(await server.app.store.people.get('bob')).not.toBeNull();
  });

  it('reports 503 with the reason when the database is unreachable, then stops gracefully', async () => {
    const slow = fetch(`${server.url}/healthz`);
    await server.app.database.close();
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(503);
    expect((await ready.json()).problems[0]).toMatch(/^database unreachable/);
    expect((await slow).status).toBe(200);
    await server.stop();
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  });
});
