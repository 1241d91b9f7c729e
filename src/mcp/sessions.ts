import type { McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import type { Logger } from 'pino';

/** One open MCP session over Streamable HTTP (a client before 2026-07-28): the caller's own server and its transport. */
export interface Session {
  id: string;
  agentId: string;
  workspaceId: string;
  workspaceSlug: string;
  server: McpServer;
  transport: WebStandardStreamableHTTPServerTransport;
  /** Requests being answered now (a waiting `subscribe`, the GET notification stream). */
  inFlight: number;
  lastSeen: number;
  /** Whether the token that opened the session still authenticates its agent (false once rotated). */
  stillAuthorized(): Promise<boolean>;
  /** Set once its token was found rotated: the session ends when its last request is answered. */
  revoked?: boolean;
}

export interface SessionOptions {
  /** A session with no request for this long is closed; its id then gets 404. */
  idleMs: number;
  /** How often idle sessions are looked for. */
  sweepMs: number;
  /** The most sessions held at once; the oldest idle one is closed to make room. */
  max: number;
  /** Milliseconds of the clock idle time is measured on (tests move it by hand). */
  now?: () => number;
}

export const DEFAULT_SESSION_OPTIONS: SessionOptions = { idleMs: 30 * 60_000, sweepMs: 60_000, max: 10_000 };

/** The sessions of this process, closed after idle time and all at once on shutdown. */
export class SessionRegistry {
  private readonly sessions = new Map<string, Session>();
  private readonly timer: NodeJS.Timeout;
  private closing: Promise<void> | null = null;

  private readonly now: () => number;

  constructor(
    private readonly opts: SessionOptions,
    private readonly logger: Logger,
  ) {
    this.now = opts.now ?? Date.now;
    this.timer = setInterval(() => {
      void this.sweep();
    }, opts.sweepMs);
    this.timer.unref();
  }

  get size() {
    return this.sessions.size;
  }

  get(id: string): Session | undefined {
    return this.sessions.get(id);
  }

  add(s: Session) {
    // A session that opens while the server is stopping is not kept.
    if (this.closing) {
      void s.server.close();
      return;
    }
    if (this.sessions.size >= this.opts.max) {
      const oldest = [...this.sessions.values()]
        .filter((x) => x.inFlight === 0)
        .sort((a, b) => a.lastSeen - b.lastSeen)[0];
      if (oldest) void this.close(oldest.id, 'too many sessions');
    }
    s.lastSeen = this.now();
    this.sessions.set(s.id, s);
  }

  /** Counts a request against the session until its response is done. */
  track(s: Session, done: (fn: () => void) => void) {
    s.inFlight++;
    s.lastSeen = this.now();
    done(() => {
      s.inFlight--;
      s.lastSeen = this.now();
      if (s.revoked && s.inFlight === 0) void this.close(s.id, 'token rotated');
    });
  }

  /**
   * Ends a session whose token was rotated: its notification stream at once (a
   * waiting call answers for itself and is refused), the session once nothing is
   * being answered. Every later request is refused by the bearer check anyway.
   */
  revoke(id: string) {
    const s = this.sessions.get(id);
    if (!s || s.revoked) return;
    s.revoked = true;
    s.transport.closeStandaloneSSEStream();
    if (s.inFlight === 0) void this.close(id, 'token rotated');
  }

  /** Forgets the session (the transport already closed, e.g. after DELETE). */
  forget(id: string) {
    this.sessions.delete(id);
  }

  async close(id: string, why: string) {
    const s = this.sessions.get(id);
    if (!s) return;
    this.sessions.delete(id);
    this.logger.debug({ sessionId: id, agentId: s.agentId, why }, 'closing MCP session');
    await s.server
      .close()
      .catch((err) => this.logger.warn({ err, sessionId: id }, 'MCP session did not close cleanly'));
  }

  /**
   * Closes sessions idle past `idleMs` (a session answering a request is never
   * idle), and open streams whose token was rotated: every request is checked
   * anyway, but a notification stream would otherwise outlive its token.
   */
  async sweep() {
    const cutoff = this.now() - this.opts.idleMs;
    const all = [...this.sessions.values()];
    const idle = all.filter((s) => s.inFlight === 0 && s.lastSeen < cutoff);
    const streaming = all.filter((s) => s.inFlight > 0);
    const revoked = (
      await Promise.all(streaming.map(async (s) => ((await s.stillAuthorized().catch(() => true)) ? null : s)))
    ).filter((s) => s !== null);
    await Promise.all([
      ...idle.map((s) => this.close(s.id, 'idle')),
      ...revoked.map((s) => this.close(s.id, 'token rotated')),
    ]);
    return idle.length + revoked.length;
  }

  /** Closes every session (ending their streams and waits); later calls wait for the same work. */
  closeAll(): Promise<void> {
    clearInterval(this.timer);
    return (this.closing ??= Promise.all([...this.sessions.keys()].map((id) => this.close(id, 'shutting down'))).then(
      () => {},
    ));
  }
}
