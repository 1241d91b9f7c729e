import { EventEmitter } from 'node:events';
import type { Notifier } from '../../domain/ports.ts';
import type { Database } from './client.ts';

const CHANNEL = 'switchboard_events';

/**
 * Wake-ups over Postgres LISTEN/NOTIFY: one LISTEN per process, fanned out
 * in-process by topic, so every process sharing the database hears every publish.
 */
export class PgNotifier implements Notifier {
  private readonly local = new EventEmitter().setMaxListeners(0);
  private unlisten: (() => Promise<void>) | null = null;
  private starting: Promise<void> | null = null;

  constructor(private readonly database: Database) {}

  private start() {
    this.starting ??= this.database.listen(CHANNEL, (payload) => {
      const cut = payload.indexOf('\n');
      this.local.emit(payload.slice(0, cut), payload.slice(cut + 1));
    }).then((u) => { this.unlisten = u; });
    return this.starting;
  }

  async publish(topic: string, payload: string) {
    await this.database.notify(CHANNEL, `${topic}\n${payload}`);
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
