// A start that fails after the app was built stops what it started, so the process can end (and try again) instead
// of lingering with the embedded database locked, its queue and pools open.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockHolder } from '../src/infra/db/lock.ts';
import { loadConfig } from '../src/config.ts';
import { startServer } from '../src/server.ts';
import { seedDataDir } from './support/db.ts';

describe('a server whose start fails', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'sb-start-'));
    await seedDataDir(dataDir);
  });
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('closes what it opened (the embedded database and its lock) and says why, so the next start can take it', async () => {
    const config = loadConfig({ PORT: '0', DATA_DIR: dataDir });
    const broken = () => {
      throw new Error('a mount that cannot be built');
    };
    await expect(
      startServer(config, { logger: pino({ level: 'silent' }), host: '127.0.0.1', control: false, mounts: [broken] }),
    ).rejects.toThrow('a mount that cannot be built');
    expect(lockHolder(path.join(dataDir, 'pglite'))).toBeNull();
    // The next start on the same directory opens it.
    const server = await startServer(config, {
      logger: pino({ level: 'silent' }),
      host: '127.0.0.1',
      control: false,
      mounts: [],
    });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    await server.stop();
  });
});
