import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { type Notifier, RECHECK } from '../../core/ports.ts';
import type { Database } from './client.ts';

const CHANNEL = 'switchboard_events';
/** Starts a NOTIFY that names the notifier it came from. */
const ORIGIN_MARK = '@';
/** Starts a NOTIFY for several topics: the origin, how many topics, each on its own line, then the payload. */
const MANY_MARK = '&';
/** NOTIFY payloads must stay under 8000 bytes; a publish to more topics is sent in several. */
const MAX_NOTIFY_BYTES = 7_000;

/**
 * Wake-ups over Postgres LISTEN/NOTIFY: one LISTEN per process, fanned out
 * in-process by topic, so every process sharing the database hears every publish.
 * A publish wakes this process's own subscribers at once, without waiting for
 * its NOTIFY to come back (a sender and a waiting `subscribe` often share a
 * process); each NOTIFY carries its origin, so that echo is not delivered twice.
 */
export class PgNotifier implements Notifier {
  private readonly local = new EventEmitter().setMaxListeners(0);
  private unlisten: (() => Promise<void>) | null = null;
  private starting: Promise<void> | null = null;
  /** Tells this notifier's own NOTIFYs apart from other processes'. */
  private readonly origin = randomBytes(9).toString('base64url');

  constructor(
    private readonly database: Database,
    private readonly logger?: Logger,
  ) {}

  private start() {
    this.starting ??= this.database
      .listen(
        CHANNEL,
        (payload) => {
          const { origin, topics, body } = parse(payload);
          if (origin !== this.origin) for (const topic of topics) this.local.emit(topic, body);
        },
        () => this.recheckAll(),
      )
      .then((u) => {
        this.unlisten = u;
      });
    return this.starting;
  }

  /**
   * Wake-ups published while the LISTEN connection was down never arrive, so
   * once it is back every subscriber is woken with an empty payload: readers
   * look at the database again (an inbox wait returns what came meanwhile).
   */
  private recheckAll() {
    const topics = this.local.eventNames().filter((t): t is string => typeof t === 'string');
    this.logger?.info(
      { topics: topics.length },
      'woke every waiter to look again after the notification connection came back',
    );
    for (const topic of topics) this.local.emit(topic, RECHECK);
  }

  /**
   * A wake-up goes out after its change committed, so failing here would make
   * the caller retry work that is already saved. When the database is away the
   * wake-up reaches this process only; other processes' readers re-check the
   * database when their wait ends.
   */
  async publish(topics: string | readonly string[], payload: string) {
    const list = typeof topics === 'string' ? [topics] : [...new Set(topics)];
    for (const topic of list) {
      try {
        this.local.emit(topic, payload);
      } catch (err) {
        this.logger?.warn({ err, topic }, 'a subscriber failed on a wake-up');
      }
    }
    try {
      // One NOTIFY (one statement) for a message's readers, not one per reader.
      for (const notice of this.notices(list, payload)) await this.database.notify(CHANNEL, notice);
    } catch (err) {
      this.logger?.warn({ error: (err as Error).message }, 'could not broadcast a wake-up; woke this process only');
    }
  }

  private *notices(topics: string[], payload: string): Generator<string> {
    if (topics.length === 1) {
      yield `${ORIGIN_MARK}${this.origin}\n${topics[0]}\n${payload}`;
      return;
    }
    let batch: string[] = [];
    let bytes = Buffer.byteLength(payload);
    for (const topic of topics) {
      const size = Buffer.byteLength(topic) + 1;
      if (batch.length && bytes + size > MAX_NOTIFY_BYTES) {
        yield many(this.origin, batch, payload);
        batch = [];
        bytes = Buffer.byteLength(payload);
      }
      batch.push(topic);
      bytes += size;
    }
    if (batch.length) yield many(this.origin, batch, payload);
  }

  async subscribe(topic: string, fn: (payload: string) => void) {
    await this.start();
    this.local.on(topic, fn);
    return async () => {
      this.local.off(topic, fn);
    };
  }

  async close() {
    await this.unlisten?.();
    this.local.removeAllListeners();
  }
}

const many = (origin: string, topics: string[], payload: string) =>
  `${MANY_MARK}${origin}\n${topics.length}\n${topics.join('\n')}\n${payload}`;

/**
 * `@origin\ntopic\npayload`, `&origin\nN\ntopic1\n…\ntopicN\npayload`, or `topic\npayload` from a sender
 * that does not say where it runs (no topic starts with `@` or `&`); the payload may hold newlines.
 */
function parse(s: string): { origin: string | null; topics: string[]; body: string } {
  if (s.startsWith(MANY_MARK)) {
    const lines = s.split('\n');
    const n = Number(lines[1]);
    return {
      origin: lines[0].slice(MANY_MARK.length),
      topics: lines.slice(2, 2 + n),
      body: lines.slice(2 + n).join('\n'),
    };
  }
  let origin: string | null = null;
  if (s.startsWith(ORIGIN_MARK)) {
    const cut = s.indexOf('\n');
    origin = s.slice(ORIGIN_MARK.length, cut);
    s = s.slice(cut + 1);
  }
  const cut = s.indexOf('\n');
  return { origin, topics: [s.slice(0, cut)], body: s.slice(cut + 1) };
}
