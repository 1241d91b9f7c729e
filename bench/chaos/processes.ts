// The processes the chaos bench kills: a real `switchboard serve` child (so
// kill -9 is a real one) and a private redis-server (never the shared one
// other people's tests use), each restartable on the same port.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../test/support/free-port.ts';

export { freePort };

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/switchboard.mjs');

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
}

/** Children still running when the bench exits (an error, Ctrl-C) are killed with it. */
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});
const track = (child: ChildProcess) => {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
};

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });

/** A `switchboard serve` child process that the bench stops, kills and starts again on one port. */
export class ServerProcess {
  readonly url: string;
  private child: ChildProcess | null = null;
  private starts = 0;
  /** Exits nobody asked for (a crash): each is restarted and counted. */
  crashes = 0;
  /** How long each SIGTERM took until the process exited, in ms. */
  readonly stopTimes: number[] = [];

  constructor(private readonly o: { port: number; env: Record<string, string>; logDir: string }) {
    this.url = `http://127.0.0.1:${o.port}`;
  }

  /** The running process's id; undefined while it is not running. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts the process and waits for /readyz. */
  async start(): Promise<void> {
    this.starts += 1;
    const log = createWriteStream(path.join(this.o.logDir, `server-${this.starts}.log`));
    const child = track(
      spawn(process.execPath, [BIN, 'serve'], {
        env: { ...process.env, ...this.o.env, PORT: String(this.o.port), PUBLIC_URL: this.url },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    child.stdout!.pipe(log);
    child.stderr!.pipe(log);
    this.child = child;
    child.once('exit', () => {
      if (this.child !== child) return;
      // Not stopped by the bench: a crash. Start it again, as a supervisor would.
      this.crashes += 1;
      this.child = null;
      void this.start().catch(() => {});
    });
    await until('the server to be ready', async () => (await fetch(`${this.url}/readyz`)).status === 200, 120_000);
  }

  /** kill -9 and start again. */
  async kill(): Promise<void> {
    const child = this.detach();
    child?.kill('SIGKILL');
    if (child) await exited(child);
    await this.start();
  }

  /** SIGTERM, wait for the exit (a graceful stop), start again. */
  async restart(): Promise<void> {
    const child = this.detach();
    if (child) {
      const began = Date.now();
      child.kill('SIGTERM');
      await exited(child);
      this.stopTimes.push(Date.now() - began);
    }
    await this.start();
  }

  async stop(): Promise<void> {
    const child = this.detach();
    if (!child) return;
    child.kill('SIGTERM');
    await Promise.race([exited(child), new Promise((r) => setTimeout(r, 60_000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }

  private detach(): ChildProcess | null {
    const child = this.child;
    this.child = null;
    return child;
  }
}

/** A redis-server of the bench's own, without persistence: a restart empties it, as a lost Redis would be. */
export class PrivateRedis {
  private child: ChildProcess | null = null;
  readonly url: string;

  constructor(private readonly port: number) {
    this.url = `redis://127.0.0.1:${port}`;
  }

  async start(): Promise<void> {
    const child = track(
      spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
        stdio: 'ignore',
      }),
    );
    this.child = child;
    await until(
      'the private Redis to accept connections',
      () =>
        new Promise<boolean>((resolve) => {
          const socket = net.connect(this.port, '127.0.0.1', () => {
            socket.end();
            resolve(true);
          });
          socket.on('error', () => resolve(false));
        }),
      30_000,
    );
  }

  /** Kills the server (everything in it is gone) and starts an empty one on the same port. */
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child) return;
    child.kill('SIGKILL');
    await exited(child);
  }
}
