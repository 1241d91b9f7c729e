// Which tables changed, for the read cache (read-cache.ts). Two sources:
//  - this process's own writes, seen as their statements go out (and again once
//    they committed), so a read made after a write here never sees the old row;
//  - every other writer's, from a trigger on each watched table that sends a
//    NOTIFY on TABLES_CHANNEL with the table's name when its transaction commits
//    (migration 0015), so another process's change is heard within a NOTIFY's
//    round trip.
// While the notifications cannot be heard (the LISTEN connection is down, or
// not open yet) the feed is not live and the cache serves nothing; when they
// can be again, everything counts as changed (some NOTIFYs may have been lost).

/** The channel the tables' triggers notify on; the payload is the table's name. */
const TABLES_CHANNEL = 'switchboard_tables';

/** The tables whose triggers notify (migration 0015): what the read cache may keep rows of. */
const WATCHED_TABLES = [
  'organizations',
  'org_members',
  'people',
  'workspaces',
  'workspace_members',
  'agents',
  'agent_memberships',
  'bridges',
  'channel_listeners',
  'external_identities',
] as const;
export type WatchedTable = (typeof WATCHED_TABLES)[number];

const WATCHED: ReadonlySet<string> = new Set(WATCHED_TABLES);

/** `all`: anything may have changed (notifications were lost). */
export type Changed = readonly string[] | 'all';

/** What a read cache needs from the database: whether it hears every change, and the changes. */
export interface TableChanges {
  /** True while every change, this process's and others', is heard; nothing may be served from a cache otherwise. */
  readonly live: boolean;
  /** Starts listening for other processes' changes (once; the feed is live when that works). */
  start(): void;
  onChange(fn: (tables: Changed) => void): () => void;
}

const WRITE = /\b(?:insert\s+into|update|delete\s+from|truncate(?:\s+table)?)\s+(?:only\s+)?"?([a-z_][a-z0-9_]*)"?/gi;

/** The watched tables a statement writes to (by its text: `insert into "agents"`, `update "workspaces"`…). */
export function writtenTables(text: string): string[] {
  if (!/insert|update|delete|truncate/i.test(text)) return [];
  const out = new Set<string>();
  for (const m of text.matchAll(WRITE)) {
    const table = m[1].toLowerCase();
    if (WATCHED.has(table)) out.add(table);
  }
  return [...out];
}

/**
 * The feed of one database handle. The driver reports each statement it sends
 * (`statement`), on a connection or transaction `key`; PostgreSQL's driver
 * says where transactions begin and end by their statements, PGlite's calls
 * `ended` itself.
 */
export class TableChangeFeed implements TableChanges {
  private readonly listeners = new Set<(tables: Changed) => void>();
  /** Watched tables written by each open transaction, announced again once it ends. */
  private readonly open = new Map<unknown, Set<string>>();
  private started = false;
  private listening = false;

  constructor(
    private readonly o: {
      /** Listens for the triggers' NOTIFYs; absent where no other process can write (PGlite). */
      listen?: (channel: string, onPayload: (payload: string) => void, onResume: () => void) => Promise<unknown>;
      /** Whether the LISTEN connection is up right now. */
      connected?: () => boolean;
    } = {},
  ) {}

  get live(): boolean {
    if (!this.o.listen) return true;
    return this.listening && (this.o.connected?.() ?? true);
  }

  start(): void {
    if (this.started || !this.o.listen) return;
    this.started = true;
    void this.o
      .listen(
        TABLES_CHANNEL,
        (table) => this.emit([table]),
        () => this.emit('all'),
      )
      .then(
        () => {
          this.listening = true;
        },
        () => {
          this.started = false;
        },
      );
  }

  onChange(fn: (tables: Changed) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /**
   * A statement going out on connection `key`, with its result to come. A write
   * to a watched table is announced now and again when it is committed: at once
   * outside a transaction, at COMMIT inside one (a read in between may have
   * cached the row as it was before).
   */
  statement(key: unknown, text: string | undefined, result: unknown): void {
    if (!text) return;
    const head = text.trimStart().slice(0, 8).toLowerCase();
    if (head.startsWith('begin')) {
      this.open.set(key, new Set());
      return;
    }
    if (head.startsWith('commit') || head.startsWith('rollback')) {
      const written = this.open.get(key);
      this.open.delete(key);
      if (written?.size) after(result, () => this.emit([...written]));
      return;
    }
    const tables = writtenTables(text);
    if (!tables.length) return;
    this.emit(tables);
    const inTransaction = this.open.get(key);
    if (inTransaction) for (const t of tables) inTransaction.add(t);
    else after(result, () => this.emit(tables));
  }

  /** Transaction `key` (opened by a `begin` statement) ended outside `statement`'s sight. */
  ended(key: unknown, committed: boolean): void {
    const written = this.open.get(key);
    this.open.delete(key);
    if (committed && written?.size) this.emit([...written]);
  }

  private emit(tables: Changed) {
    for (const fn of this.listeners) fn(tables);
  }
}

/** Runs `fn` once `result` (a promise, when it is one) settles. */
function after(result: unknown, fn: () => void) {
  if (result && typeof (result as Promise<unknown>).then === 'function') (result as Promise<unknown>).then(fn, fn);
  else fn();
}
