import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DatabaseLockedError, lockDataDir, lockHolder } from '../../../src/infra/db/lock.ts';

// Field 22 of /proc/<pid>/stat: when that process started; empty where there is no /proc.
const startTime = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return '';
  }
};

const spawnSleep = () =>
  new Promise<ChildProcess>((resolve, reject) => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    child.once('spawn', () => resolve(child)).once('error', reject);
  });

describe('the embedded database lock', () => {
  let root: string;
  let dataDir: string;
  const children: ChildProcess[] = [];

  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'sb-lock-'));
    dataDir = path.join(root, 'pglite');
  });
  afterEach(() => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true });
  });

  // In Docker node is pid 1 in every life of the container, so after an unclean stop the lock names this very process.
  it.each([
    ['only the pid, as builds before the start time was recorded wrote it', String(process.pid)],
    ["the pid and a start time that is not this life's", `${process.pid} 1`],
  ])('takes over a lock left by an earlier life of this pid (%s)', (_, content) => {
    writeFileSync(`${dataDir}.lock`, content);
    expect(lockHolder(dataDir)).toBeNull();
    const release = lockDataDir(dataDir);
    expect(lockHolder(dataDir)).toBe(process.pid);
    // The lock file keeps holding only the pid, which earlier builds read; the start time goes beside it.
    expect(readFileSync(`${dataDir}.lock`, 'utf8')).toBe(String(process.pid));
    expect(readFileSync(`${dataDir}.lock.start`, 'utf8')).toBe(`${process.pid} ${startTime(process.pid)}`.trim());
    release();
    expect(existsSync(`${dataDir}.lock`)).toBe(false);
    expect(existsSync(`${dataDir}.lock.start`)).toBe(false);
  });

  it.runIf(process.platform === 'linux')(
    'refuses a lock of another live process whose start time is beside its pid',
    async () => {
      const child = await spawnSleep();
      children.push(child);
      writeFileSync(`${dataDir}.lock`, String(child.pid));
      writeFileSync(`${dataDir}.lock.start`, `${child.pid} ${startTime(child.pid!)}`);
      expect(() => lockDataDir(dataDir)).toThrow(DatabaseLockedError);
      // The same pid with another start time is a process that took the pid over: stale.
      writeFileSync(`${dataDir}.lock.start`, `${child.pid} ${Number(startTime(child.pid!)) - 1}`);
      expect(lockHolder(dataDir)).toBeNull();
    },
  );

  it('refuses a second lock of the same directory in this process, and allows one after release', () => {
    const release = lockDataDir(dataDir);
    const err = (() => {
      try {
        lockDataDir(dataDir);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(DatabaseLockedError);
    expect((err as DatabaseLockedError).pid).toBe(process.pid);
    expect((err as Error).message).toContain('PGlite allows one process at a time');
    release();
    expect(lockHolder(dataDir)).toBeNull();
    lockDataDir(dataDir)();
  });

  it('refuses a lock held by another live process', async () => {
    const child = await spawnSleep();
    children.push(child);
    writeFileSync(`${dataDir}.lock`, `${child.pid} ${startTime(child.pid!)}`);
    expect(() => lockDataDir(dataDir)).toThrow(DatabaseLockedError);
    expect(lockHolder(dataDir)).toBe(child.pid);
  });

  it.runIf(process.platform === 'linux')(
    'takes over a lock whose pid now belongs to a process started later',
    async () => {
      const child = await spawnSleep();
      children.push(child);
      writeFileSync(`${dataDir}.lock`, `${child.pid} ${Number(startTime(child.pid!)) - 1}`);
      expect(lockHolder(dataDir)).toBeNull();
      lockDataDir(dataDir)();
    },
  );

  it('takes over a lock left by a process that died', async () => {
    const child = await spawnSleep();
    const pid = child.pid!;
    const token = startTime(pid);
    await new Promise((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGKILL');
    });
    writeFileSync(`${dataDir}.lock`, `${pid} ${token}`);
    expect(lockHolder(dataDir)).toBeNull();
    const release = lockDataDir(dataDir);
    expect(readFileSync(`${dataDir}.lock`, 'utf8')).toMatch(new RegExp(`^${process.pid}\\b`));
    release();
  });
});
