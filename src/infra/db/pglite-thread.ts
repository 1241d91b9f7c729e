// PGlite off the main thread. PGlite runs PostgreSQL in WebAssembly and every
// query holds the thread it runs on; on the main thread that stalled HTTP
// answers (Slack's acknowledgements) behind the jobs' queries. Here PGlite runs
// in a worker thread (pglite-worker.mjs) and this side gives drizzle the part
// of PGlite's client it uses: query, transaction (holding the worker's one
// connection from BEGIN to COMMIT or ROLLBACK), listen and close. Errors come
// back with PostgreSQL's fields (code, constraint, detail…), as PGlite throws them.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { PGlite, Results } from '@electric-sql/pglite';

interface QueryOptions {
  rowMode?: 'array' | 'object';
  parsers?: Record<number, unknown>;
}
type Query = (sql: string, params?: unknown[], options?: QueryOptions) => Promise<Results>;

/** What drizzle-orm/pglite and openDatabase call on a PGlite client. */
export interface PgliteThread {
  query: Query;
  transaction<T>(fn: (tx: { query: Query }) => Promise<T>): Promise<T>;
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
  /** Queries sent so far (transaction statements included): what a bench counts per event. */
  readonly queries: number;
  /** CPU time (ms) the thread has used so far, where the system tells it (Linux); null elsewhere. For benches. */
  cpuMs(): Promise<number | null>;
  /** The client as drizzle's PGlite driver types it (it uses only the members above). */
  asPglite(): PGlite;
}

type Reply =
  | { id: number; result?: unknown; error?: Record<string, unknown> }
  | { op: 'notify'; channel: string; payload: string };

/**
 * What every call gets once the thread is gone: SQLSTATE 08003 (connection_does_not_exist), as from a server
 * connection that is gone, so callers tell it by its code (an outage: UNAVAILABLE), not by its text.
 */
const closedError = (message: string) => Object.assign(new Error(message), { code: '08003' });

/** An Error carrying the fields PostgreSQL's error had (code first: callers match on it). */
function revive(fields: Record<string, unknown>): Error {
  const e = new Error(String(fields.message ?? 'PGlite failed'));
  Object.assign(e, fields);
  return e;
}

/**
 * PGlite's WebAssembly, compiled once per process and handed to every thread
 * that opens a database (compiling it costs about a second of CPU; tests open
 * one database per file). Immutable, so sharing it changes nothing else.
 */
let compiled: Promise<{ pgliteWasmModule: WebAssembly.Module; initdbWasmModule: WebAssembly.Module }> | null = null;
function compileOnce() {
  return (compiled ??= (async () => {
    const dist = path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
    const [pglite, initdb] = await Promise.all(
      ['pglite.wasm', 'initdb.wasm'].map(async (f) => WebAssembly.compile(await readFile(path.join(dist, f)))),
    );
    return { pgliteWasmModule: pglite, initdbWasmModule: initdb };
  })().catch((e: unknown) => {
    compiled = null;
    throw e;
  }));
}

/** Told of every statement sent (`key`: the transaction, or null) and of how each transaction ended. */
export interface StatementWatch {
  statement(key: unknown, text: string, result: Promise<unknown>): void;
  ended(key: unknown, committed: boolean): void;
}

/** Starts PGlite on `dataDir` (or from `template`, a data directory dump) in a worker thread. */
export async function startPgliteThread(
  dataDir: string,
  template?: Blob,
  watch?: StatementWatch,
): Promise<PgliteThread> {
  const buffer = template ? await template.arrayBuffer() : undefined;
  const worker = new Worker(new URL('./pglite-worker.mjs', import.meta.url), {
    workerData: { dataDir, template: buffer, ...(await compileOnce()) },
    transferList: buffer ? [buffer] : [],
    execArgv: [],
  });
  // Idle, the thread keeps no process alive; while a call waits for it, it does.
  worker.unref();
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  const listeners = new Map<string, Set<(payload: string) => void>>();
  let nextId = 1;
  let stopped: Error | null = null;
  let queries = 0;

  const stop = (why: Error) => {
    stopped ??= why;
    for (const p of pending.values()) p.reject(stopped);
    pending.clear();
    worker.unref();
  };
  worker.on('message', (m: Reply) => {
    if ('op' in m) {
      for (const fn of listeners.get(m.channel) ?? []) fn(m.payload);
      return;
    }
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (!pending.size) worker.unref();
    if (m.error) p.reject(revive(m.error));
    else p.resolve(m.result);
  });
  worker.on('error', (e) => stop(closedError(`PGlite is closed: its thread failed (${e.message})`)));
  worker.on('exit', () => stop(closedError('PGlite is closed')));

  const call = <T>(message: Record<string, unknown>): Promise<T> => {
    if (stopped) return Promise.reject(stopped);
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      if (pending.size === 1) worker.ref();
      worker.postMessage({ ...message, id });
    });
  };
  const query =
    (tx?: number): Query =>
    (sql, params, options) => {
      queries += 1;
      // drizzle's parsers keep dates, intervals and numeric arrays as text: the worker does the same for those types.
      const parsers = options?.parsers ? Object.keys(options.parsers).map(Number) : undefined;
      const result = call<Results>({ op: 'query', sql, params: params ?? [], rowMode: options?.rowMode, parsers, tx });
      watch?.statement(tx ?? null, sql, result);
      return result;
    };

  try {
    await call({ op: 'ready' });
  } catch (e) {
    await worker.terminate();
    throw e;
  }

  let closed: Promise<void> | null = null;
  const thread: PgliteThread = {
    query: query(),
    async transaction(fn) {
      queries += 1;
      const { tx } = await call<{ tx: number }>({ op: 'begin' });
      watch?.statement(tx, 'begin', Promise.resolve());
      let result;
      try {
        result = await fn({ query: query(tx) });
      } catch (e) {
        await call({ op: 'end', tx, commit: false }).catch(() => {});
        watch?.ended(tx, false);
        throw e;
      }
      try {
        await call({ op: 'end', tx, commit: true });
      } finally {
        watch?.ended(tx, true);
      }
      return result;
    },
    async listen(channel, onPayload) {
      const set = listeners.get(channel) ?? new Set();
      listeners.set(channel, set);
      set.add(onPayload);
      if (set.size === 1) await call({ op: 'listen', channel });
      return async () => {
        set.delete(onPayload);
        if (set.size || stopped) return;
        listeners.delete(channel);
        await call({ op: 'unlisten', channel });
      };
    },
    close: () =>
      (closed ??= (async () => {
        await call({ op: 'close' }).catch(() => {});
        stop(closedError('PGlite is closed'));
        await worker.terminate();
      })()),
    get queries() {
      return queries;
    },
    cpuMs: () => call<number | null>({ op: 'cpu' }),
    asPglite: () => thread as unknown as PGlite,
  };
  return thread;
}
