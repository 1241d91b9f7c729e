// @ts-check
// PGlite in a worker thread (pglite-thread.ts starts it): its queries run in
// WebAssembly synchronously, and here they stop this thread, not the one that
// answers HTTP requests. Plain JavaScript so that a worker started from any
// process (tsx, vitest, node) loads it without a TypeScript loader.
//
// Messages in: { id, op: 'query', sql, params, rowMode, parsers: OIDs, tx? },
// { id, op: 'begin' } (answers { tx } once inside the transaction),
// { id, op: 'end', tx, commit }, { id, op: 'listen' | 'unlisten', channel }, { id, op: 'ready' | 'close' | 'cpu' }.
// Out: { id, result } or { id, error }, and { op: 'notify', channel, payload }.
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, parse, protocol } from '@electric-sql/pglite';

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
const parsersFor = (/** @type {number[]} */ oids) =>
  Object.fromEntries(oids.map((oid) => [oid, (/** @type {string} */ v) => v]));

/**
 * Parsers by the caller's list of text-kept OIDs: `own` for query()'s options, and `all` (PGlite's with those over
 * them) for reading a named statement's results. Made once per list: PGlite copies all its parsers (hundreds) into a
 * new object on every query given options.parsers, which cost more than parsing the rows. Types created later
 * (a migration) add parsers, so a schema change empties this.
 * @type {Map<string, { own: Record<number, (v: string) => unknown> | undefined, all: Record<number, unknown> }>}
 */
const parserSets = new Map();
function parsersOf(/** @type {PGlite} */ db, /** @type {number[] | undefined} */ oids) {
  const key = oids?.join(',') ?? '';
  let set = parserSets.get(key);
  if (!set) {
    const own = oids?.length ? parsersFor(oids) : undefined;
    parserSets.set(key, (set = { own, all: own ? { ...db.parsers, ...own } : db.parsers }));
  }
  return set;
}

const ROLLBACK = new Error('rolled back by the caller');
let nextTx = 1;
/** @type {Map<number, { tx: { query: PGlite['query'] }, end(commit: boolean): void }>} Open transactions. */
const open = new Map();
/** @type {Map<number, Promise<unknown>>} How each open transaction ends (its COMMIT or ROLLBACK). */
const ends = new Map();

const ready = PGlite.create({
  dataDir,
  pgliteWasmModule,
  initdbWasmModule,
  ...(template ? { loadDataDir: new Blob([template]) } : {}),
});
/** @type {Map<string, () => Promise<void>>} */
const listening = new Map();

// Statements run again and again (the queue's claim, a message's post, a request's intake) become named
// statements, as a PostgreSQL server keeps them per connection: parsed and analysed once, and after a few runs
// planned once. In WebAssembly parsing and planning such a statement costs more than running it (a claim: 3.5 of
// 4.5 ms). PGlite's query() always uses the unnamed statement, so named ones are run here through its protocol
// calls, as query() runs its own (same lock, messages and result parsing). Bounded: a text is named on its third
// run, at most MAX_NAMED of them; schema changes drop them all.
const NAME_AFTER = 3;
const MAX_SEEN = 2000;
const MAX_NAMED = 200;
const NAMEABLE = /^\s*(with|select|insert|update|delete)\b/i;
const SCHEMA_CHANGE = /^\s*(create|alter|drop|truncate|comment)\b/im;
/** @type {Map<string, { runs: number, name: string | null, types: number[] }>} By statement text. */
const seen = new Map();
let named = 0;
const { serialize } = protocol;

/**
 * Runs one statement, outside a transaction (`tx` null) or in one, as PGlite's query() would; a statement seen
 * often enough runs as a named statement.
 * @param {PGlite} db @param {{ query: PGlite['query'] } | null} tx @param {string} sql @param {unknown[]} params
 * @param {'array' | 'object'} rowMode @param {number[] | undefined} textOids types the caller keeps as text
 */
async function run(db, tx, sql, params, rowMode, textOids) {
  const parsers = parsersOf(db, textOids);
  let entry = seen.get(sql);
  if (!entry && seen.size < MAX_SEEN && NAMEABLE.test(sql)) seen.set(sql, (entry = { runs: 0, name: null, types: [] }));
  if (!entry || (!entry.name && (++entry.runs < NAME_AFTER || named >= MAX_NAMED))) {
    const r = await (tx ?? db).query(sql, params, { rowMode, ...(parsers.own ? { parsers: parsers.own } : {}) });
    if (SCHEMA_CHANGE.test(sql)) {
      parserSets.clear();
      await forgetNamed(db, tx);
    }
    return r;
  }
  const statement = entry;
  // Each exchange goes in one call, ending with Sync: after an error PostgreSQL skips to the Sync, as on a socket,
  // and the call throws it once all is read.
  const exchange = (/** @type {Uint8Array[]} */ parts) =>
    db.execProtocolStream(joined([...parts, serialize.sync()]), { syncToFs: false });
  const messages = async () =>
    db.runExclusive(async () => {
      if (!statement.name) {
        const name = `sb_named_${++named}`;
        statement.types = parse.parseDescribeStatementResults(
          await exchange([serialize.parse({ name, text: sql }), serialize.describe({ type: 'S', name })]),
        );
        statement.name = name;
      }
      const values = params.map((v, i) =>
        v === null || v === undefined ? null : (db.serializers[statement.types[i]] ?? String)(v),
      );
      return exchange([
        serialize.bind({ statement: statement.name, values }),
        serialize.describe({ type: 'P' }),
        serialize.execute({}),
      ]);
    });
  // Outside a transaction, wait for any open one to end (what query() does), and write through afterwards.
  const result = tx ? await messages() : await db._runExclusiveTransaction(messages);
  if (!tx) await db.syncToFs();
  return parse.parseResults(result, parsers.all, { rowMode })[0];
}

/** The protocol messages as one buffer. */
function joined(/** @type {Uint8Array[]} */ parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** After a schema change: named statements are dropped (their result types may have changed) and named again later. */
async function forgetNamed(/** @type {PGlite} */ db, /** @type {{ query: PGlite['query'] } | null} */ tx) {
  if (!named) return;
  await (tx ?? db).query('deallocate all');
  for (const entry of seen.values()) Object.assign(entry, { runs: 0, name: null, types: [] });
  named = 0;
}

/** CPU time (ms) this thread has used, where Linux tells it (/proc/thread-self); null elsewhere. */
function threadCpuMs() {
  try {
    const fields = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, in ticks of 10 ms (USER_HZ 100)
  } catch {
    return null;
  }
}

/** @param {any} m */
async function handle(m) {
  const db = await ready;
  switch (m.op) {
    case 'query': {
      const on = m.tx ? open.get(m.tx)?.tx : db;
      if (!on) throw new Error('Transaction is closed');
      const r = await run(db, m.tx ? on : null, m.sql, m.params ?? [], m.rowMode ?? 'object', m.parsers);
      return { rows: r.rows, fields: r.fields, affectedRows: r.affectedRows };
    }
    case 'begin': {
      const tx = nextTx++;
      // Answers once inside the transaction, which holds PGlite's one connection until 'end'.
      return await new Promise((answer, refuse) => {
        let entered = false;
        const done = db.transaction(
          (t) =>
            new Promise((commit, rollback) => {
              entered = true;
              open.set(tx, {
                tx: t,
                end: (/** @type {boolean} */ ok) => (ok ? commit(undefined) : rollback(ROLLBACK)),
              });
              answer({ tx });
            }),
        );
        ends.set(tx, done);
        done.catch((/** @type {unknown} */ e) => {
          if (!entered) refuse(e);
        });
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
      await done.catch((/** @type {unknown} */ e) => {
        if (m.commit || e !== ROLLBACK) throw e;
      });
      return null;
    }
    case 'listen': {
      if (!listening.has(m.channel)) {
        listening.set(
          m.channel,
          await db.listen(m.channel, (payload) => port.postMessage({ op: 'notify', channel: m.channel, payload })),
        );
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
    case 'cpu':
      return threadCpuMs();
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
