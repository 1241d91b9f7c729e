import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { Notifier } from '../../domain/ports.ts';
import type { Database } from './client.ts';

const CHANNEL = 'switchboard_events';
/** Starts a NOTIFY that names the notifier it came from. */
const ORIGIN_MARK = '@';
/** The payload of a wake-up that names nothing: look at the database again. */
export const RECHECK = '';

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

  constructor(private readonly database: Database, private readonly logger?: Logger) {}

  private start() {
    this.starting ??= this.database.listen(CHANNEL, (payload) => {
      const { origin, topic, body } = parse(payload);
      if (origin !== this.origin) this.local.emit(topic, body);
    }, () => this.recheckAll()).then((u) => { this.unlisten = u; });
    return this.starting;
  }

  /**
   * Wake-ups published while the LISTEN connection was down never arrive, so
   * once it is back every subscriber is woken with an empty payload: readers
   * look at the database again (an inbox wait returns what came meanwhile).
   */
  private recheckAll() {
    const topics = this.local.eventNames().filter((t): t is string => typeof t === 'string');
    this.logger?.info({ topics: topics.length }, 'woke every waiter to look again after the notification connection came back');
    for (const topic of topics) this.local.emit(topic, RECHECK);
  }

  /**
   * A wake-up goes out after its change committed, so failing here would make
   * the caller retry work that is already saved. When the database is away the
   * wake-up reaches this process only; other processes' readers re-check the
   * database when their wait ends.
   */
  async publish(topic: string, payload: string) {
    try {
      this.local.emit(topic, payload);
    } catch (err) {
      this.logger?.warn({ err, topic }, 'a subscriber failed on a wake-up');
    }
    try {
      await this.database.notify(CHANNEL, `${ORIGIN_MARK}${this.origin}\n${topic}\n${payload}`);
    } catch (err) {
      this.logger?.warn({ error: (err as Error).message }, 'could not broadcast a wake-up; woke this process only');
    }
  }

  async subscribe(topic: string, fn: (payload: string) => void) {
    await this.start();
    this.local.on(topic, fn);
    return async () => { this.local.off(topic, fn); };
  }

  async close() {
    await this.unlisten?.();
    this.local.removeAllListeners();
  }
}

/**
 * `@origin\ntopic\npayload`, or `topic\npayload` from a sender that does not say
 * where it runs (no topic starts with `@`); the payload may hold newlines.
 */
function parse(s: string): { origin: string | null; topic: string; body: string } {
  let origin: string | null = null;
  if (s.startsWith(ORIGIN_MARK)) {
    const cut = s.indexOf('\n');
    origin = s.slice(ORIGIN_MARK.length, cut);
    s = s.slice(cut + 1);
  }
  const cut = s.indexOf('\n');
  return { origin, topic: s.slice(0, cut), body: s.slice(cut + 1) };
}
