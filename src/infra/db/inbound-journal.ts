// The inbound journal, for the embedded database on disk. Slack and Teams wait
// for their acknowledgement; writing a request into PGlite costs its thread
// (WebAssembly) about as much CPU as the whole acknowledgement, on the cores the
// HTTP work needs. So a request is appended to a file next to the database (a
// write of a few microseconds, into the operating system's cache, as PGlite's own
// writes go) before the 200, and moved into the database in large batches when
// requests pause, or after a bounded wait under steady load. A killed process
// loses nothing (the system writes its cache out whatever becomes of the
// process) and the journal is moved in at the next start; a power cut or a crash
// of the system itself can lose what was not written out yet, of the journal as
// of the database, since PGlite does not flush its files on commit either. The
// database's unique key still makes a redelivery (in the journal twice) one row
// and one job.
import { closeSync, constants, openSync, unlinkSync, writeSync } from 'node:fs';
import { mkdir, readdir, readFile, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { z } from 'zod';
import {
  systemClock,
  type Clock,
  type InboundEvent,
  type InboundEventRepo,
  type InboundJob,
  type NewInboundEvent,
} from '../../core/ports.ts';
import { SwitchboardError } from '../../core/errors.ts';
import { isConnectionLost, pgCode } from './errors.ts';
import { surfaceName, type DrizzleInboundEventRepo, type PreparedInbound } from './inbound-repo.ts';

/** Where the journal of the embedded database in `dataDir` lives (beside it, as its lock file does). */
export const journalDirOf = (dataDir: string) => `${dataDir}.journal`;

export interface JournalTiming {
  /** Requests are moved into the database once none has arrived for this long (ms). */
  quietMs: number;
  /** …or once the oldest has waited this long under steady load (ms). */
  maxWaitMs: number;
  /** …or at once when this many wait. */
  maxPending: number;
  /** After a failed move, the next is tried this much later (ms), doubling up to 30 s. */
  retryMs: number;
  /**
   * While the database takes none of them (it failed), at most this many are held (in memory too, until moved); the
   * next requests are refused, so Slack and Teams send them again later. Default 50,000 (some 100 MB of requests).
   */
  maxHeld?: number;
}

const DEFAULT_JOURNAL_TIMING: JournalTiming = {
  quietMs: 50,
  maxWaitMs: 1_000,
  maxPending: 5_000,
  retryMs: 1_000,
  maxHeld: 50_000,
};

/** A journal line: the row as the database statement reads it (see inbound-repo's rowOf). */
const line = z.object({
  id: z.string().uuid(),
  outbox_id: z.string().uuid(),
  surface: surfaceName,
  key: z.string().min(1),
  kind: z.string().min(1),
  payload: z.record(z.string(), z.unknown()),
  topic: z.string().min(1),
  ordering_key: z.string().nullable(),
});

/** One journal file: the requests appended to it, in order. */
interface Segment {
  file: string;
  /** Its descriptor while appends go to it. */
  fd: number | null;
  rows: PreparedInbound[];
  /** Set when an append failed part-way: nothing more is appended after a possibly torn line. */
  broken: boolean;
}

const SEGMENT = /^(\d{12})\.jsonl$/;
const fileOf = (dir: string, seq: number) => path.join(dir, `${String(seq).padStart(12, '0')}.jsonl`);

/** What the journal keeps of a request until it is moved: its row, which holds the payload as text, not the parsed copy too. */
const held = (p: PreparedInbound): PreparedInbound => ({
  row: p.row,
  id: p.id,
  outboxId: p.outboxId,
  event: { surface: p.event.surface, key: p.event.key, kind: p.event.kind, payload: {} },
});

/** The refusal once the journal holds `maxHeld` requests the database has not taken: the sender should try again later. */
const databaseBehind = () =>
  new SwitchboardError(
    'UNAVAILABLE',
    'The embedded database has not taken the requests received so far, so no more are accepted for now; send this one again shortly.',
  );

/** SQLSTATE classes 22 (data exception) and 23 (integrity): the database refuses this row, whenever it is tried. */
const refusesRow = (e: unknown) => /^2[23]/.test(pgCode(e) ?? '');

export class InboundJournal implements InboundEventRepo {
  private active: Segment | null = null;
  /** Segments closed to appends, waiting to be moved into the database, oldest first. */
  private sealed: Segment[] = [];
  private nextSeq: number;
  private lastArrival = 0;
  private oldestWaiting: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private moving: Promise<void> | null = null;
  private retryAt = 0;
  private retryMs: number;
  private closed = false;
  private stored: () => void = () => {};

  private constructor(
    private readonly dir: string,
    private readonly db: DrizzleInboundEventRepo,
    private readonly logger: Logger,
    private readonly timing: JournalTiming,
    private readonly clock: Clock,
    nextSeq: number,
  ) {
    this.nextSeq = nextSeq;
    this.retryMs = timing.retryMs;
  }

  /**
   * Opens the journal in `dir`, first moving whatever an earlier process left in it into the database (a crash or
   * kill after acknowledging); throws when the database refuses to take it, so a start never leaves it behind unseen.
   */
  static async open(
    dir: string,
    db: DrizzleInboundEventRepo,
    logger: Logger,
    timing: JournalTiming = DEFAULT_JOURNAL_TIMING,
    clock: Clock = systemClock,
  ): Promise<InboundJournal> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const seqs = (await readdir(dir))
      .map((f) => SEGMENT.exec(f))
      .filter((m) => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
    const journal = new InboundJournal(dir, db, logger, timing, clock, (seqs.at(-1) ?? 0) + 1);
    for (const seq of seqs) {
      const segment: Segment = {
        file: fileOf(dir, seq),
        fd: null,
        rows: await readSegment(fileOf(dir, seq), logger),
        broken: false,
      };
      if (!(await journal.move(segment))) {
        throw new Error(
          `The inbound journal ${segment.file} could not be moved into the embedded database; Switchboard keeps it and moves it at the next start.`,
        );
      }
      if (segment.rows.length)
        logger.info(
          { requests: segment.rows.length, file: segment.file },
          'moved requests acknowledged before the last stop into the database',
        );
    }
    return journal;
  }

  /** Runs `fn` after each move of requests into the database (the queue then looks for their jobs). */
  onStored(fn: () => void): void {
    this.stored = fn;
  }

  async accept(e: NewInboundEvent, job: InboundJob): Promise<InboundEvent | null> {
    if (this.closed) throw new Error('The inbound journal is closed; the request was not stored.');
    if (this.waiting >= (this.timing.maxHeld ?? DEFAULT_JOURNAL_TIMING.maxHeld!)) throw databaseBehind();
    const prepared = this.db.prepare(e, job);
    this.lastArrival = performance.now();
    this.append(held(prepared));
    return { id: prepared.id, ...prepared.event, outboxId: prepared.outboxId, receivedAt: this.clock.now() };
  }

  remember(e: Omit<NewInboundEvent, 'payload'>): Promise<boolean> {
    return this.db.remember(e);
  }

  get(id: string): Promise<InboundEvent | null> {
    return this.db.get(id);
  }

  purgeBefore(cutoff: Date): Promise<number> {
    return this.db.purgeBefore(cutoff);
  }

  /** Requests acknowledged and not yet in the database. */
  get waiting(): number {
    return this.sealed.reduce((n, s) => n + s.rows.length, this.active?.rows.length ?? 0);
  }

  /** Moves everything into the database and closes the file; later requests are refused. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.moving; // never rejects (moveAll catches)
    await this.moveAll();
    this.seal();
    if (this.waiting)
      this.logger.warn(
        { requests: this.waiting, dir: this.dir },
        'some acknowledged requests stay in the inbound journal; they are moved into the database at the next start',
      );
  }

  /**
   * Appends one request, synchronously (a few microseconds: the data goes to the system's cache, which outlives this
   * process), so nothing comes between the write and the row's place in its segment. Throws when it cannot be written.
   */
  private append(prepared: PreparedInbound): void {
    const segment = this.segment();
    const bytes = Buffer.from(`${prepared.row}\n`);
    try {
      for (let done = 0; done < bytes.length; ) done += writeSync(segment.fd!, bytes, done);
    } catch (e) {
      segment.broken = true;
      this.logger.error(
        { err: e, file: segment.file },
        'could not append to the inbound journal; the request was not acknowledged',
      );
      throw e;
    }
    segment.rows.push(prepared);
    this.oldestWaiting ??= performance.now();
    this.schedule();
  }

  /** The segment appends go to: a new file when there is none, or when an append to the last one failed. */
  private segment(): Segment {
    if (this.active && !this.active.broken) return this.active;
    this.seal();
    const seq = this.nextSeq++;
    const file = fileOf(this.dir, seq);
    this.active = {
      file,
      fd: openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, 0o600),
      rows: [],
      broken: false,
    };
    return this.active;
  }

  /** Closes the active segment to appends; it waits to be moved (a close that fails costs it nothing). */
  private seal(): void {
    const segment = this.active;
    if (!segment) return;
    this.active = null;
    // One that holds nothing acknowledged (every append to it failed) is deleted rather than kept for a move.
    if (segment.rows.length) this.sealed.push(segment);
    const fd = segment.fd;
    segment.fd = null;
    try {
      if (fd !== null) closeSync(fd);
      if (!segment.rows.length) unlinkSync(segment.file);
    } catch (e) {
      this.logger.warn({ err: e, file: segment.file }, 'could not close a segment of the inbound journal');
    }
  }

  /** How long until a move is due (ms; 0: now), by JournalTiming and the backoff after a failed move. */
  private dueIn(now = performance.now()): number {
    const quiet = this.lastArrival + this.timing.quietMs - now;
    const bound = (this.oldestWaiting ?? now) + this.timing.maxWaitMs - now;
    // After a failed move the next waits for retryAt, however many wait: at maxPending too (else a 1 ms timer loop).
    return Math.max(this.waiting >= this.timing.maxPending ? 0 : Math.min(quiet, bound), this.retryAt - now, 0);
  }

  /** Sets the timer that moves requests into the database when they are due. */
  private schedule(): void {
    if (this.moving || this.closed) return;
    const due = this.dueIn();
    // A timer set earlier is never later than quiet or bound say now (arrivals only push them on); maxPending reached
    // since is what may make the move due sooner.
    if (this.timer) {
      if (due > 0) return;
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.dueIn() > 0) return this.schedule();
      this.moving = this.moveAll().finally(() => {
        this.moving = null;
        if (this.waiting) this.schedule();
      });
    }, due);
  }

  /** Seals the active segment and moves every sealed one, oldest first; appends meanwhile go to a new segment. */
  private async moveAll(): Promise<void> {
    this.oldestWaiting = null;
    try {
      if (this.active?.rows.length) this.seal();
      while (this.sealed.length) {
        if (!(await this.move(this.sealed[0]))) return this.backOff();
        this.sealed.shift();
        this.retryMs = this.timing.retryMs;
        this.retryAt = 0;
        this.stored();
      }
    } catch (e) {
      // Nothing awaits a move started by the timer: what it throws (say, a file that cannot be deleted) is a failed
      // move, tried again later (a segment whose rows went in is then only deleted, its keys being taken), never a rejection.
      this.logger.warn(
        { err: e, dir: this.dir },
        'could not finish moving the inbound journal into the database; will try again',
      );
      this.backOff();
    }
  }

  /** After a failed move: the next is tried retryMs later, doubling up to 30 s. */
  private backOff(): void {
    this.retryAt = performance.now() + this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, 30_000);
    this.oldestWaiting ??= performance.now();
  }

  /**
   * Writes a segment's requests into the database and deletes its file; false (the file kept) when the database
   * could not take them. A request the database refuses for its content is logged and left out: it would be refused
   * at every try, and must not hold back the ones after it.
   */
  private async move(segment: Segment): Promise<boolean> {
    if (segment.rows.length) {
      const results = await this.db.write(segment.rows);
      const failures = results.flatMap((r, i) =>
        r.status === 'rejected' ? [{ reason: r.reason as unknown, row: segment.rows[i] }] : [],
      );
      // Retried: the database away, or refusing every row (it is not ready for them, say). Left out: a row refused for
      // its content, or for anything other than a lost connection while the rows beside it went in.
      const lost = failures.find(
        (f) => isConnectionLost(f.reason) || (failures.length === segment.rows.length && !refusesRow(f.reason)),
      );
      if (lost) {
        this.logger.warn(
          { err: lost.reason, requests: segment.rows.length },
          'could not move acknowledged requests from the inbound journal into the database; will try again',
        );
        return false;
      }
      for (const f of failures) {
        this.logger.error(
          { err: f.reason, surface: f.row.event.surface, kind: f.row.event.kind, key: f.row.event.key },
          'the database refused an acknowledged request from the inbound journal; it is left out',
        );
      }
    }
    await unlink(segment.file).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') throw e;
    });
    return true;
  }
}

/**
 * A journal file's requests. Its last line may be torn (an append cut short by a crash or a full disk, never
 * acknowledged) and is skipped; a line before it that does not parse is not something this version wrote, and the
 * start stops rather than drop acknowledged requests.
 */
async function readSegment(file: string, logger: Logger): Promise<PreparedInbound[]> {
  const texts = (await readFile(file, 'utf8')).split('\n').filter(Boolean);
  const rows: PreparedInbound[] = [];
  for (const [i, text] of texts.entries()) {
    let parsed: z.infer<typeof line> | null = null;
    try {
      const result = line.safeParse(JSON.parse(text));
      if (result.success) parsed = result.data;
    } catch {
      /* reported below */
    }
    if (!parsed && i < texts.length - 1) {
      throw new Error(
        `Line ${i + 1} of the inbound journal ${file} is not a request this version of Switchboard wrote, so it stops rather than lose acknowledged requests; move the file out of the directory to start without it, and keep it for support.`,
      );
    }
    if (!parsed) {
      logger.warn(
        { file, bytes: text.length },
        'skipped the last line of an inbound journal file, cut short (an append cut short is never acknowledged)',
      );
      continue;
    }
    rows.push(
      held({
        row: text,
        id: parsed.id,
        outboxId: parsed.outbox_id,
        event: { surface: parsed.surface, key: parsed.key, kind: parsed.kind, payload: parsed.payload },
      }),
    );
  }
  return rows;
}
