// @ts-check
// PGlite in a worker thread (pglite-thread.ts starts it): its queries run in
// WebAssembly synchronously, and here they stop this thread, not the one that
// answers HTTP requests. Plain JavaScript so that a worker started from any
// process (tsx, vitest, node) loads it without a TypeScript loader.
//
// Messages in: { id, op: 'query', sql, params, rowMode, parsers: OIDs, tx? },
// { id, op: 'begin' } (answers { tx } once inside the transaction),
// { id, op: 'end', tx, commit }, { id, op: 'listen' | 'unlisten', channel }, { id, op: 'ready' | 'close' }.
// Out: { id, result } or { id, error }, and { op: 'notify', channel, payload }.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';

if (!parentPort) throw new Error('pglite-worker.mjs runs as a worker thread');
const port = parentPort;

/** @type {{ dataDir: string, template?: ArrayBuffer, pgliteWasmModule: WebAssembly.Module, initdbWasmModule: WebAssembly.Module }} */
const { dataDir, template, pgliteWasmModule, initdbWasmModule } = workerData;

/** An error as plain data: its message and PostgreSQL's fields (code, constraint, detail…). */
function plain(/** @type {unknown} */ e) {
  if (!(e instanceof Error)) return { message: String(e) };
  /** @type {Record<string, unknown>} */
  const out = { name: e.name, message: e.message };
  for (const [k, v] of Object.entries(e)) {
    if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) out[k] = v;
  }
  return out;
}

/** Identity parsers for the type OIDs the caller keeps as text (drizzle's dates, intervals, numeric arrays). */
const parsersFor = (/** @type {number[] | undefined} */ oids) =>
  oids?.length ? Object.fromEntries(oids.map((oid) => [oid, (/** @type {string} */ v) => v])) : undefined;

const ROLLBACK = new Error('rolled back by the caller');
let nextTx = 1;
/** @type {Map<number, { tx: { query: PGlite['query'] }, end(commit: boolean): void }>} Open transactions. */
const open = new Map();
/** @type {Map<number, Promise<unknown>>} How each open transaction ends (its COMMIT or ROLLBACK). */
const ends = new Map();

const ready = PGlite.create({ dataDir, pgliteWasmModule, initdbWasmModule, ...(template ? { loadDataDir: new Blob([template]) } : {}) });
/** @type {Map<string, () => Promise<void>>} */
const listening = new Map();

/** @param {any} m */
async function handle(m) {
  const db = await ready;
  switch (m.op) {
    case 'query': {
      const on = m.tx ? open.get(m.tx)?.tx : db;
      if (!on) throw new Error('Transaction is closed');
      const options = { rowMode: m.rowMode ?? 'object', ...(m.parsers ? { parsers: parsersFor(m.parsers) } : {}) };
      const r = await on.query(m.sql, m.params ?? [], options);
      return { rows: r.rows, fields: r.fields, affectedRows: r.affectedRows };
    }
    case 'begin': {
      const tx = nextTx++;
      // Answers once inside the transaction, which holds PGlite's one connection until 'end'.
      return await new Promise((answer, refuse) => {
        let entered = false;
        const done = db.transaction((t) => new Promise((commit, rollback) => {
          entered = true;
          open.set(tx, { tx: t, end: (/** @type {boolean} */ ok) => (ok ? commit(undefined) : rollback(ROLLBACK)) });
          answer({ tx });
        }));
        ends.set(tx, done);
        done.catch((/** @type {unknown} */ e) => { if (!entered) refuse(e); });
      });
    }
    case 'end': {
      const entry = open.get(m.tx);
      const done = ends.get(m.tx);
      if (!entry || !done) throw new Error('Transaction is closed');
      open.delete(m.tx);
      ends.delete(m.tx);
      entry.end(m.commit);
      // A failed COMMIT (a deferred constraint) is the caller's error; a rollback asked for is not.
      await done.catch((/** @type {unknown} */ e) => { if (m.commit || e !== ROLLBACK) throw e; });
      return null;
    }
    case 'listen': {
      if (!listening.has(m.channel)) {
        listening.set(m.channel, await db.listen(m.channel, (payload) => port.postMessage({ op: 'notify', channel: m.channel, payload })));
      }
      return null;
    }
    case 'unlisten': {
      const stop = listening.get(m.channel);
      listening.delete(m.channel);
      if (stop) await stop();
      return null;
    }
    case 'ready':
      return null;
    case 'close': {
      await db.close();
      return null;
    }
    default:
      throw new Error(`unknown operation ${m.op}`);
  }
}
port.on('message', (m) => {
  handle(m).then(
    (result) => port.postMessage({ id: m.id, result }),
    (e) => port.postMessage({ id: m.id, error: plain(e) }),
  );
});

// Start-up errors (a bad data directory) reach the caller as the answer to 'ready' (and to anything else).
ready.catch(() => {});
