// Socket Mode: with SLACK_APP_TOKEN set, the serving process connects out to
// Slack (apps.connections.open, then a WebSocket) instead of receiving HTTP,
// so Switchboard works behind a firewall. Each envelope (an event, a click, a
// slash command) is stored through the same acceptSlackRequest as the HTTP
// receiver and acknowledged only then; one left unacknowledged (the store
// failed, the connection went first) is sent again by Slack and recognised as
// a redelivery. Slack asks for a new connection routinely (`disconnect`
// messages): one is opened at once, while the old one closes; a connection
// that drops or fails to open is reopened with backoff. Every serving process
// holds its own connection (Slack allows ten per app).
import { SocketModeClient } from '@slack/socket-mode';
import { boltLogger, clientOptions } from './clients.ts';
import { loggable } from './errors.ts';
import { acceptSlackRequest } from './receiver.ts';
import type { SlackRuntime } from './runtime.ts';

/** The wait before reopening a connection that failed: doubled on each failure in a row, up to the most. */
const RETRY_FIRST_MS = 1_000;
const RETRY_MOST_MS = 30_000;
/** How long stopping waits for envelopes being stored to be acknowledged, then for the connections to close. */
const STOP_WAIT_MS = 5_000;
/** Slack's answers to apps.connections.open that a retry cannot fix without someone changing the token. */
const TOKEN_REFUSED = new Set([
  'not_authed',
  'invalid_auth',
  'account_inactive',
  'token_revoked',
  'not_allowed_token_type',
]);

/** What @slack/socket-mode hands on for each envelope. */
interface Envelope {
  ack(): Promise<void>;
  type: string;
  body: unknown;
  retry_num?: number;
  retry_reason?: string;
}

/** The messages Slack sends on the socket besides envelopes. */
interface ControlMessage {
  type?: string;
  reason?: string;
  num_connections?: number;
}

/** Resolves when `p` settles or after `ms`, whichever is first. */
const within = (p: Promise<unknown>, ms: number) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    p.finally(() => {
      clearTimeout(timer);
      resolve();
    });
  });

/** This process's Socket Mode connection to Slack, reopened as long as it runs. */
export class SlackSocketMode {
  private stopping: Promise<void> | null = null;
  private failures = 0;
  private timer: NodeJS.Timeout | null = null;
  /** Connections open or opening; one is current, an older one may still be closing. */
  private readonly clients = new Set<SocketModeClient>();
  /** Envelopes being stored, each acknowledged once stored. */
  private readonly storing = new Set<Promise<void>>();

  constructor(private readonly rt: SlackRuntime) {}

  /** Starts connecting; returns at once (connecting is retried in the background until stop). */
  start(): void {
    this.open();
  }

  /**
   * Envelopes already being stored are stored and acknowledged (for a bounded time); those arriving from now on are
   * left unacknowledged, so Slack sends them again (to another process's connection, or to this one's successor).
   */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      if (this.timer) clearTimeout(this.timer);
      await within(Promise.allSettled([...this.storing]), STOP_WAIT_MS);
      await within(Promise.allSettled([...this.clients].map((c) => c.disconnect())), STOP_WAIT_MS);
    })();
    return this.stopping;
  }

  private open(): void {
    if (this.stopping) return;
    const { logger: _logger, logLevel: _level, ...web } = clientOptions(this.rt.settings, this.rt.logger);
    const client = new SocketModeClient({
      appToken: this.rt.settings.appToken!,
      // Reconnecting is done here: at once when Slack asks, with backoff when a connection fails.
      autoReconnectEnabled: false,
      logger: boltLogger(this.rt.logger),
      clientOptions: web,
    });
    this.clients.add(client);
    // Each connection opens at most one successor, whichever of its endings comes first; the wait, or null if none.
    let succeeded = false;
    const succeed = (wait: () => number): number | null => {
      if (succeeded || this.stopping) return null;
      succeeded = true;
      const delayMs = wait();
      this.timer = setTimeout(() => this.open(), delayMs);
      this.timer.unref();
      return delayMs;
    };
    client.on('slack_event', (e: Envelope) => this.receive(e));
    client.on('ws_message', (data: unknown) => {
      const m = control(data);
      if (m?.type === 'hello') {
        this.failures = 0;
        this.rt.logger.info({ connections: m.num_connections }, 'connected to Slack over Socket Mode');
      } else if (m?.type === 'disconnect') {
        // The client closes this connection by itself; `link_disabled` means Socket Mode was turned off for the app.
        if (m.reason === 'link_disabled') {
          this.rt.logger.error(
            { reason: m.reason },
            `Slack turned Socket Mode off for this app: turn it on again in the app's Socket Mode settings (or unset SLACK_APP_TOKEN to receive over HTTP); trying again every ${RETRY_MOST_MS / 1000} s`,
          );
          succeed(() => RETRY_MOST_MS);
        } else {
          this.rt.logger.info({ reason: m.reason }, 'Slack asked for a new Socket Mode connection; opening one');
          succeed(() => 0);
        }
      }
    });
    client.on('disconnected', () => {
      this.clients.delete(client);
      succeed(() => this.backoff());
    });
    client.start().then(
      () => {
        // Opened while stopping: closed again at once.
        if (this.stopping) void client.disconnect();
      },
      (err: unknown) => {
        this.clients.delete(client);
        const delay = succeed(() => this.backoff());
        if (delay === null) return;
        const code = (err as { data?: { error?: string } } | undefined)?.data?.error;
        if (code && TOKEN_REFUSED.has(code))
          this.rt.logger.error(
            { code },
            `Slack refused SLACK_APP_TOKEN (${code}): generate an app-level token with the connections:write scope on the app's Basic Information page; trying again in ${delay / 1000} s`,
          );
        else
          this.rt.logger.warn(
            { err: err ? loggable(err) : undefined, retryInMs: delay },
            'could not connect to Slack over Socket Mode; trying again',
          );
      },
    );
  }

  /** The wait before the next attempt after a failure: 1 s, 2 s, 4 s… up to 30 s. */
  private backoff(): number {
    this.failures += 1;
    return Math.min(RETRY_FIRST_MS * 2 ** (this.failures - 1), RETRY_MOST_MS);
  }

  private receive(e: Envelope): void {
    // Stopping: not acknowledged, so Slack sends it again elsewhere or later.
    if (this.stopping) return;
    const work = this.store(e).finally(() => this.storing.delete(work));
    this.storing.add(work);
  }

  private async store(e: Envelope): Promise<void> {
    // Ingest first, as for an HTTP request: this process starts no new jobs until the envelope is acknowledged.
    const release = this.rt.core.holdForIngest();
    try {
      try {
        await acceptSlackRequest(this.rt, e.body, {
          ...(e.retry_num ? { retryNum: e.retry_num } : {}),
          ...(e.retry_reason ? { retryReason: e.retry_reason } : {}),
        });
      } catch {
        // Not stored (logged there), so not acknowledged: Slack sends it again.
        return;
      }
      // Stored or refused for good; either way Slack need not send it again.
      await e
        .ack()
        .catch(() =>
          this.rt.logger.info(
            { type: e.type },
            'a Slack request was stored but its connection closed before the acknowledgement; Slack sends it again and it is recognised',
          ),
        );
    } finally {
      release();
    }
  }
}

/** A `hello` or `disconnect` message, or null for anything else (an envelope, which the client hands on itself). */
function control(data: unknown): ControlMessage | null {
  if (typeof data !== 'string' || data.includes('"envelope_id"')) return null;
  try {
    const m = JSON.parse(data) as unknown;
    return m && typeof m === 'object' ? (m as ControlMessage) : null;
  } catch {
    return null;
  }
}
