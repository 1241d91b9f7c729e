import type pg from 'pg';
import type { Logger } from 'pino';

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;

/**
 * LISTEN needs one connection that stays open, so it cannot come from the
 * pool. When PostgreSQL drops it, this opens a new one (backing off up to 5 s)
 * and listens on every channel again. NOTIFYs sent while it was gone are lost,
 * so once it listens again it tells every listener (`onResume`) to look at the
 * database afresh: a wake-up may have been missed.
 */
export class PgListener {
  private readonly channels = new Map<string, Set<(payload: string) => void>>();
  private readonly resumers = new Set<() => void>();
  /** True once a connection was lost or could not be opened: the next one that works may have missed NOTIFYs. */
  private gap = false;
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private retryMs = FIRST_RETRY_MS;
  private retryTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly newClient: () => pg.Client,
    private readonly logger?: Logger,
  ) {}

  /**
   * Listens on `channel`; resolves once the first connection attempt ended, even when it failed (it keeps retrying).
   * `onResume` runs each time listening works again after a gap, when NOTIFYs may have been missed.
   */
  async listen(
    channel: string,
    onPayload: (payload: string) => void,
    onResume?: () => void,
  ): Promise<() => Promise<void>> {
    if (onResume) this.resumers.add(onResume);
    let handlers = this.channels.get(channel);
    const fresh = !handlers;
    if (!handlers) this.channels.set(channel, (handlers = new Set()));
    handlers.add(onPayload);
    if (!this.client) await this.connect();
    // LISTEN twice is harmless, and a connection opened while this call waited may have missed the new channel.
    const client = this.client as pg.Client | null;
    if (fresh && client) await client.query(`listen ${quoteIdent(channel)}`).catch((e: Error) => this.lost(client, e));
    return async () => {
      if (onResume) this.resumers.delete(onResume);
      handlers.delete(onPayload);
      if (handlers.size > 0 || this.channels.get(channel) !== handlers) return;
      this.channels.delete(channel);
      await this.client?.query(`unlisten ${quoteIdent(channel)}`).catch(() => {});
    };
  }

  /** True while a connection is open and listening (for tests and readiness). */
  get connected(): boolean {
    return this.client !== null;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.connecting?.catch(() => {});
    const c = this.client;
    this.client = null;
    await c?.end().catch(() => {});
  }

  private connect(): Promise<void> {
    this.connecting ??= this.open().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async open(): Promise<void> {
    if (this.closed) return;
    const client = this.newClient();
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client));
    client.on('notification', (n) => {
      for (const fn of this.channels.get(n.channel) ?? []) fn(n.payload ?? '');
    });
    try {
      await client.connect();
      for (const channel of this.channels.keys()) await client.query(`listen ${quoteIdent(channel)}`);
    } catch (err) {
      client.removeAllListeners('end');
      await client.end().catch(() => {});
      this.logger?.warn(
        { error: (err as Error).message, retryMs: this.retryMs },
        'could not listen for database notifications; retrying',
      );
      this.gap = true;
      this.reconnectSoon();
      return;
    }
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    if (this.retryMs !== FIRST_RETRY_MS) this.logger?.info('listening for database notifications again');
    this.retryMs = FIRST_RETRY_MS;
    if (!this.gap) return;
    this.gap = false;
    for (const fn of [...this.resumers]) {
      try {
        fn();
      } catch (err) {
        this.logger?.warn({ err }, 'a listener failed to look again after the notification connection came back');
      }
    }
  }

  private lost(client: pg.Client, err?: Error) {
    if (this.client !== client) return;
    this.client = null;
    if (this.closed) return;
    this.gap = true;
    this.logger?.warn(
      { error: err?.message ?? 'connection ended' },
      'lost the database notification connection; reconnecting',
    );
    client.end().catch(() => {});
    this.reconnectSoon();
  }

  private reconnectSoon() {
    if (this.closed || this.retryTimer) return;
    const wait = this.retryMs;
    this.retryMs = Math.min(MAX_RETRY_MS, this.retryMs * 2);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.connect();
    }, wait);
    this.retryTimer.unref();
  }
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;
