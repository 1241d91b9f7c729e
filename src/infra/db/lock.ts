import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Raised when another live process holds the embedded database. */
export class DatabaseLockedError extends Error {
  constructor(
    readonly pid: number,
    dataDir: string,
  ) {
    super(
      `The embedded database in ${dataDir} is open in another Switchboard process (pid ${pid}); PGlite allows one process at a time. ` +
        'Run CLI commands while `switchboard serve` is up (they are sent to it), stop that process, or set DATABASE_URL to use PostgreSQL.',
    );
  }
}

// Directories this process has locked: a lock file naming our own pid is ours only if listed here,
// since in Docker every life of the container is pid 1 and an unclean stop leaves the file behind.
const held = new Set<string>();

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * When the process started (field 22 of /proc/<pid>/stat, in clock ticks since boot), so a lock
 * written by a process that died is not credited to a later one given the same pid. Empty where
 * there is no /proc (not Linux), which leaves only the pid to go by.
 */
const startTime = (pid: number): string => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2, the command name, is in parentheses and may hold spaces and parentheses itself.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
  } catch {
    return '';
  }
};

/**
 * The lock file holds only the pid, as every earlier build wrote and reads it (one that read anything else would take
 * the lock for stale); the start time goes beside it, in `<lock>.start` as "pid start", which counts only for that pid.
 */
const startFile = (file: string) => `${file}.start`;

const readLock = (file: string) => {
  const [pid, inline = ''] = readFileSync(file, 'utf8').trim().split(/\s+/);
  let token = inline;
  if (!token) {
    try {
      const [forPid, start = ''] = readFileSync(startFile(file), 'utf8').trim().split(/\s+/);
      if (forPid === pid) token = start;
    } catch {
      /* none written (an earlier build, or not yet) */
    }
  }
  return { pid: Number(pid), token };
};

/** Whether a lock naming pid (with the start time it recorded) is still held by a live process. */
const holds = (dataDir: string, pid: number, token: string) => {
  if (!pid) return false;
  if (pid === process.pid) return held.has(path.resolve(dataDir));
  if (!alive(pid)) return false;
  const now = token ? startTime(pid) : '';
  return !now || now === token;
};

/** The live process holding the lock of a PGlite directory, or null when none does (a lock left by a dead one counts as none). */
export function lockHolder(dataDir: string): number | null {
  try {
    const { pid, token } = readLock(`${dataDir}.lock`);
    return holds(dataDir, pid, token) ? pid : null;
  } catch {
    return null;
  }
}

/** Takes the one-process lock of a PGlite directory; returns its release function. */
export function lockDataDir(dataDir: string): () => void {
  const file = `${dataDir}.lock`;
  const key = path.resolve(dataDir);
  if (held.has(key)) throw new DatabaseLockedError(process.pid, dataDir);
  const mine = String(process.pid);
  const started = `${process.pid} ${startTime(process.pid)}`.trim();
  for (let i = 0; i < 2; i++) {
    try {
      writeFileSync(file, mine, { flag: 'wx' });
      writeFileSync(startFile(file), started);
      held.add(key);
      return () => {
        held.delete(key);
        try {
          if (readFileSync(file, 'utf8') === mine) unlinkSync(file);
        } catch {
          /* already gone */
        }
        try {
          if (readFileSync(startFile(file), 'utf8') === started) unlinkSync(startFile(file));
        } catch {
          /* already gone */
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const { pid, token } = readLock(file);
      if (holds(dataDir, pid, token)) throw new DatabaseLockedError(pid, dataDir);
      // Left by a process that died, or by an earlier life of this pid.
      try {
        unlinkSync(file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
  }
  throw new Error(`Could not lock ${dataDir}.`);
}
