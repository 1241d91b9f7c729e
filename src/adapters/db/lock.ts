import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';

/** Raised when another live process holds the embedded database. */
export class DatabaseLockedError extends Error {
  constructor(readonly pid: number, dataDir: string) {
    super(`The embedded database in ${dataDir} is open in another Switchboard process (pid ${pid}); PGlite allows one process at a time. ` +
      'Run CLI commands while `switchboard serve` is up (they are sent to it), stop that process, or set DATABASE_URL to use PostgreSQL.');
  }
}

const alive = (pid: number) => {
  try { process.kill(pid, 0); return true; } catch (e) { return (e as NodeJS.ErrnoException).code === 'EPERM'; }
};

/** The live process holding the lock of a PGlite directory, or null when none does (a lock left by a dead one counts as none). */
export function lockHolder(dataDir: string): number | null {
  try {
    const pid = Number(readFileSync(`${dataDir}.lock`, 'utf8'));
    return pid && alive(pid) ? pid : null;
  } catch {
    return null;
  }
}

/** Takes the one-process lock of a PGlite directory; returns its release function. */
export function lockDataDir(dataDir: string): () => void {
  const file = `${dataDir}.lock`;
  for (let i = 0; i < 2; i++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      return () => { try { if (readFileSync(file, 'utf8') === String(process.pid)) unlinkSync(file); } catch { /* already gone */ } };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const pid = Number(readFileSync(file, 'utf8'));
      if (pid && alive(pid)) throw new DatabaseLockedError(pid, dataDir);
      unlinkSync(file); // left by a process that died
    }
  }
  throw new Error(`Could not lock ${dataDir}.`);
}

