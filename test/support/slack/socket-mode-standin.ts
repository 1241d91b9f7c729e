// Slack's side of Socket Mode, on the Web API stand-in's port: apps.connections.open
// (app-level token only) hands out a single-use ws:// URL, and the WebSocket
// there speaks the protocol Slack documents: a `hello` with num_connections and
// debug_info, envelopes ({envelope_id, type: events_api | interactive |
// slash_commands, payload, accepts_response_payload, retry_attempt,
// retry_reason}), acknowledgements ({envelope_id, payload?}), `disconnect`
// messages with a reason. An envelope not acknowledged in time, or whose
// connection closes first, is sent again (retry_attempt + 1) on another
// connection, as Slack does, up to three retries.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import WebSocket from 'ws';

/** Methods that take the app-level token (xapp-…) and no other. */
export const APP_TOKEN_METHODS = new Set(['apps.connections.open']);

export type EnvelopeType = 'events_api' | 'interactive' | 'slash_commands';

export interface SocketEnvelope {
  envelope_id: string;
  type: EnvelopeType;
  payload: unknown;
  accepts_response_payload: boolean;
  retry_attempt: number;
  retry_reason: string;
}

export interface SocketAck {
  envelopeId: string;
  /** The acknowledgement's payload, when the app sent one. */
  payload?: unknown;
  /** The connection it came over. */
  connection: number;
  at: Date;
}

export type DisconnectReason = 'warning' | 'refresh_requested' | 'link_disabled';

export interface SocketModeStandin {
  /** Connections open now (their ids), oldest first. */
  open(): number[];
  /** Every connection ever opened, in order. */
  readonly opened: number[];
  /** Every envelope sent, redeliveries included, with the connection it went to. */
  readonly deliveries: Array<{ envelope: SocketEnvelope; connection: number }>;
  /** Every acknowledgement received, late ones included. */
  readonly acks: SocketAck[];
  /** Envelopes sent and not acknowledged yet (or waiting for a connection). */
  unacked(): SocketEnvelope[];
  /** Envelopes given up after the last retry. */
  readonly abandoned: SocketEnvelope[];
  /** Called as each acknowledgement arrives. */
  onAck?: (ack: SocketAck) => void;
  /**
   * Sends a request's payload (built in payloads.ts) as an envelope of the type it is, on `connection` or the next
   * open one in turn (held until one opens); returns its envelope_id.
   */
  send(request: { payload: unknown }, options?: { connection?: number }): string;
  /** Tells a connection (the oldest open one by default) to go away; no new envelope is sent there after. */
  disconnect(reason: DisconnectReason, connection?: number): void;
  /** Drops a connection (the oldest open one by default) without a word, as a network failure does. */
  drop(connection?: number): void;
}

export interface SocketModeStandinOptions {
  appId: string;
  /** How long an envelope waits for its acknowledgement before it is sent again (Slack: a few seconds). */
  ackTimeoutMs?: number;
}

const MAX_RETRIES = 3;

/** What kind of envelope a request is, as Slack tells them apart. */
function envelopeType(payload: unknown): EnvelopeType {
  const p = payload as Record<string, unknown>;
  if (p.type === 'event_callback') return 'events_api';
  if (typeof p.command === 'string') return 'slash_commands';
  return 'interactive';
}

interface Pending {
  envelope: SocketEnvelope;
  /** The connection of its last delivery; null while it waits for one. */
  connection: number | null;
  timer?: NodeJS.Timeout;
}

/** Socket Mode on `server` (the Web API stand-in's); `connectionsOpen` answers apps.connections.open. */
export function attachSocketMode(
  server: Server,
  origin: () => string,
  options: SocketModeStandinOptions,
): { standin: SocketModeStandin; connectionsOpen: () => { ok: true; url: string }; close(): void } {
  const ackTimeoutMs = options.ackTimeoutMs ?? 3_000;
  const wss = new WebSocket.Server({ noServer: true });
  const tickets = new Set<string>();
  const sockets = new Map<number, WebSocket>();
  const draining = new Set<number>();
  const pending = new Map<string, Pending>();
  const deliveries: SocketModeStandin['deliveries'] = [];
  const acks: SocketAck[] = [];
  const abandoned: SocketEnvelope[] = [];
  const opened: number[] = [];
  let nextConnection = 0;
  let turn = 0;

  const usable = () => [...sockets.keys()].filter((id) => !draining.has(id));

  function deliver(p: Pending, connection?: number) {
    const targets = usable();
    const to = connection !== undefined && targets.includes(connection) ? connection : targets[turn++ % targets.length];
    const socket = to === undefined ? undefined : sockets.get(to);
    if (to === undefined || !socket) {
      p.connection = null;
      return;
    }
    p.connection = to;
    deliveries.push({ envelope: p.envelope, connection: to });
    socket.send(JSON.stringify(p.envelope));
    clearTimeout(p.timer);
    p.timer = setTimeout(() => retry(p, 'timeout'), ackTimeoutMs);
  }

  function retry(p: Pending, reason: string) {
    clearTimeout(p.timer);
    if (!pending.has(p.envelope.envelope_id)) return;
    if (p.envelope.retry_attempt >= MAX_RETRIES) {
      pending.delete(p.envelope.envelope_id);
      abandoned.push(p.envelope);
      return;
    }
    p.envelope = { ...p.envelope, retry_attempt: p.envelope.retry_attempt + 1, retry_reason: reason };
    deliver(p);
  }

  /** Envelopes waiting for a connection go out on a new one. */
  function flush() {
    for (const p of pending.values()) if (p.connection === null) deliver(p);
  }

  function onClosed(id: number) {
    sockets.delete(id);
    draining.delete(id);
    for (const p of pending.values()) if (p.connection === id) retry(p, 'connection_closed');
  }

  wss.on('connection', (socket: WebSocket) => {
    const id = ++nextConnection;
    sockets.set(id, socket);
    opened.push(id);
    socket.on('message', (data: WebSocket.Data) => {
      let message: { envelope_id?: unknown; payload?: unknown };
      try {
        message = JSON.parse(String(data));
      } catch {
        return;
      }
      if (typeof message.envelope_id !== 'string') return;
      const ack: SocketAck = {
        envelopeId: message.envelope_id,
        connection: id,
        at: new Date(),
        ...(message.payload !== undefined ? { payload: message.payload } : {}),
      };
      acks.push(ack);
      const p = pending.get(ack.envelopeId);
      if (p) {
        clearTimeout(p.timer);
        pending.delete(ack.envelopeId);
      }
      standin.onAck?.(ack);
    });
    socket.on('close', () => onClosed(id));
    socket.on('error', () => onClosed(id));
    socket.send(
      JSON.stringify({
        type: 'hello',
        num_connections: sockets.size,
        debug_info: { host: 'applink-standin', build_number: 1, approximate_connection_time: 18060 },
        connection_info: { app_id: options.appId },
      }),
    );
    flush();
  });

  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const url = new URL(req.url ?? '/', origin());
    const ticket = url.searchParams.get('ticket') ?? '';
    // Each URL opens one connection.
    if (url.pathname !== '/link/' || !tickets.delete(ticket)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  const standin: SocketModeStandin = {
    open: () => [...sockets.keys()],
    opened,
    deliveries,
    acks,
    abandoned,
    unacked: () => [...pending.values()].map((p) => p.envelope),
    send(request, o = {}) {
      const type = envelopeType(request.payload);
      const envelope: SocketEnvelope = {
        envelope_id: randomUUID(),
        type,
        payload: request.payload,
        accepts_response_payload: type !== 'events_api',
        retry_attempt: 0,
        retry_reason: '',
      };
      const p: Pending = { envelope, connection: null };
      pending.set(envelope.envelope_id, p);
      deliver(p, o.connection);
      return envelope.envelope_id;
    },
    disconnect(reason, connection = usable()[0]) {
      const socket = connection === undefined ? undefined : sockets.get(connection);
      if (!socket) throw new Error('no open Socket Mode connection to tell to disconnect');
      draining.add(connection!);
      socket.send(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'applink-standin' } }));
    },
    drop(connection = [...sockets.keys()][0]) {
      const socket = connection === undefined ? undefined : sockets.get(connection);
      if (!socket) throw new Error('no open Socket Mode connection to drop');
      socket.terminate();
    },
  };

  return {
    standin,
    connectionsOpen() {
      const ticket = randomUUID();
      tickets.add(ticket);
      return { ok: true, url: `${origin().replace(/^http/, 'ws')}/link/?ticket=${ticket}&app_id=${options.appId}` };
    },
    close() {
      for (const p of pending.values()) clearTimeout(p.timer);
      for (const socket of sockets.values()) socket.terminate();
      wss.close();
    },
  };
}
