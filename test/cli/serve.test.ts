import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/index.ts';
import { freshPostgresDatabase } from '../support/db.ts';

const BIN = path.resolve(import.meta.dirname, '../../bin/switchboard.mjs');
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'sb-serve-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('switchboard serve', () => {
  it('names PORT and exits 2 when the port is taken', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '0.0.0.0', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    const saved = { ...process.env };
    Object.assign(process.env, { PORT: String(port), DATA_DIR: tempDir(), LOG_LEVEL: 'silent' });
    delete process.env.DATABASE_URL;
    delete process.env.REDIS_URL;
    const err: string[] = [];
    try {
      const code = await main(['serve'], { out: () => {}, err: (s) => err.push(s) });
      expect(code).toBe(2);
      expect(err.join('\n')).toMatch(new RegExp(`cannot listen on port ${port}: .*set PORT to a free port`));
    } finally {
      process.env = saved;
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('shows the sign-in link first with `serve --demo`, and the start-up warnings after it', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', DATA_DIR: tempDir() };
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'LOG_LEVEL', 'SWITCHBOARD_SECRET']) delete env[name];
    // On PostgreSQL when there is one: the order of the lines does not depend on the database, and a child process
    // making an embedded one (initdb, migrations) costs seconds of CPU that a loaded machine does not have.
    const pgDatabase = process.env.TEST_DATABASE_URL
      ? await freshPostgresDatabase(process.env.TEST_DATABASE_URL)
      : null;
    if (pgDatabase) env.DATABASE_URL = pgDatabase.url;
    // One stream for both, as a terminal shows them.
    const child = spawn('sh', ['-c', `exec node "${BIN}" serve --demo 2>&1`], { env });
    let screen = '';
    child.stdout.on('data', (chunk: Buffer) => {
      screen += chunk.toString('utf8');
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const deadline = Date.now() + 90_000;
      // The generated-secret warning is logged while starting; wait until it is out too.
      while (!/SWITCHBOARD_SECRET is not set/.test(screen) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 200));
      const lines = screen.split('\n').filter(Boolean);
      expect(lines[0]).toMatch(
        /^Switchboard demo is running\. Open this link to sign in: http:\/\/localhost:0\/signin\?token=/,
      );
      expect(lines.slice(1).join('\n')).toContain('SWITCHBOARD_SECRET is not set');
    } finally {
      child.kill('SIGTERM');
      await exited;
      await pgDatabase?.drop();
    }
  }, 120_000);
});
