// Rows read on every inbound message and tool call (a workspace, its
// organization, its directory, a bridge, a channel's listeners, a chat user's
// identity) kept in memory until a table they came from changes. Changes are
// heard through table-changes.ts: this process's writes at once, other
// processes' through their tables' NOTIFY, so nothing stale is served for
// longer than a NOTIFY takes to arrive. While notifications cannot be heard
// nothing is served from here; when they can again everything is dropped.
// Entries are frozen: a caller that changed one would change it for everyone.
import type { Changed, TableChanges, WatchedTable } from './table-changes.ts';

interface Entry {
  value: Promise<unknown>;
  at: number;
  tables: readonly WatchedTable[];
}

export interface ReadCacheOptions {
  /**
   * How long an entry is served at most, changes or not: a bound for a LISTEN
   * connection that died without a word (no error, no end).
   */
  maxAgeMs?: number;
  /** Entries kept at most (the oldest go first). */
  maxEntries?: number;
  now?: () => number;
}

export class ReadCache {
  private readonly entries = new Map<string, Entry>();
  private readonly maxAgeMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  /** Reads served from memory and from the database, since start (a bench reports them). */
  readonly stats = { hits: 0, misses: 0 };

  constructor(
    private readonly changes: TableChanges,
    o: ReadCacheOptions = {},
  ) {
    this.maxAgeMs = o.maxAgeMs ?? 30_000;
    this.maxEntries = o.maxEntries ?? 10_000;
    this.now = o.now ?? Date.now;
    changes.onChange((tables) => this.drop(tables));
  }

  /** `load`'s answer for `key`, from memory while none of `tables` changed since it was read. */
  read<T>(key: string, tables: readonly WatchedTable[], load: () => Promise<T>): Promise<T> {
    if (!this.changes.live) {
      this.changes.start();
      if (this.entries.size) this.entries.clear();
      this.stats.misses += 1;
      return load();
    }
    const now = this.now();
    const hit = this.entries.get(key);
    if (hit && now - hit.at < this.maxAgeMs) {
      this.stats.hits += 1;
      return hit.value as Promise<T>;
    }
    this.stats.misses += 1;
    // Kept while still loading, so readers arriving meanwhile share the one read; a change heard
    // meanwhile drops it (those who asked before the change get what the read returns).
    const value = load().then(freeze);
    const entry: Entry = { value, at: now, tables };
    this.entries.delete(key);
    this.entries.set(key, entry);
    value.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    return value;
  }

  /** Wraps `fn` so its answers are kept per argument list (compared as JSON). */
  wrap<A extends unknown[], T>(
    name: string,
    tables: readonly WatchedTable[],
    fn: (...args: A) => Promise<T>,
  ): (...args: A) => Promise<T> {
    return (...args: A) => this.read(`${name}:${JSON.stringify(args)}`, tables, () => fn(...args));
  }

  get size(): number {
    return this.entries.size;
  }

  private drop(tables: Changed) {
    if (tables === 'all') {
      this.entries.clear();
      return;
    }
    for (const [key, entry] of this.entries) {
      if (entry.tables.some((t) => tables.includes(t))) this.entries.delete(key);
    }
  }
}

/** Which reads of a repository a cache keeps, each with the tables whose change drops what it read. */
export type CachedReads<R> = { [K in keyof R & string]?: readonly WatchedTable[] };

/**
 * A new repository answering the reads `reads` names from `cache` (keys `<name>.<method>:<arguments>`) and everything
 * else from `repo`, which it inherits from: its own methods calling one another go through the cache too.
 */
export function withCachedReads<R extends object>(repo: R, cache: ReadCache, name: string, reads: CachedReads<R>): R {
  const cached = Object.create(repo) as R;
  for (const [method, tables] of Object.entries(reads) as [keyof R & string, readonly WatchedTable[]][]) {
    const read = repo[method] as (...args: unknown[]) => Promise<unknown>;
    Object.assign(cached, { [method]: cache.wrap(`${name}.${method}`, tables, read.bind(cached)) });
  }
  return cached;
}

/** Freezes a plain value deeply (objects and arrays; Dates and other instances are left as they are). */
function freeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  const proto = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return value;
  for (const v of Object.values(value)) freeze(v);
  return Object.freeze(value);
}
