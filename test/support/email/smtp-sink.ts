// A mail server for tests: the real smtp-server on 127.0.0.1 that keeps every
// message it accepts (envelope, raw bytes, and the message as mailparser reads
// it) and refuses the next deliveries on demand, with the SMTP reply a real
// server gives (a 4xx to try again later, a 5xx to give up). Plain SMTP by
// default; STARTTLS (with smtp-server's own self-signed certificate) and
// password authentication when asked.
import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

/** A message the sink accepted. */
export interface SinkMessage {
  /** MAIL FROM ('' for the null return path) and every RCPT TO. */
  envelope: { from: string; to: string[] };
  /** The message as it came over the wire. */
  raw: Buffer;
  parsed: ParsedMail;
}

export interface SmtpSinkOptions {
  /** Offer STARTTLS (clients must accept a self-signed certificate: `tls: { rejectUnauthorized: false }`). */
  starttls?: boolean;
  /** Require AUTH PLAIN/LOGIN with these credentials. */
  auth?: { user: string; pass: string };
}

export interface SmtpSink {
  port: number;
  /** `smtp://127.0.0.1:<port>`. */
  url: string;
  /** The messages accepted so far, in order. */
  received: SinkMessage[];
  /** Refuses the next delivery not yet refused at its end of DATA with `code` and `message` (calls queue up). */
  failNext(code: number, message: string): void;
  /** Resolves with `received` once it holds `count` messages; rejects after `timeoutMs` saying how many came. */
  waitFor(count: number, timeoutMs?: number): Promise<SinkMessage[]>;
  close(): Promise<void>;
}

/** Starts a sink on a free port of 127.0.0.1. */
export async function startSmtpSink(options: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const received: SinkMessage[] = [];
  const failures: Array<{ code: number; message: string }> = [];
  const waiting = new Set<() => void>();

  const serverOptions: SMTPServerOptions = {
    logger: false,
    // A client that keeps its connection open (a pool) must not hold up the end of a test file.
    closeTimeout: 500,
    disabledCommands: [...(options.starttls ? [] : ['STARTTLS']), ...(options.auth ? [] : ['AUTH'])],
    authOptional: !options.auth,
    onAuth(auth, _session, callback) {
      const { user, pass } = options.auth ?? {};
      if (auth.username === user && auth.password === pass) return callback(null, { user: auth.username });
      callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const failure = failures.shift();
        if (failure) return callback(Object.assign(new Error(failure.message), { responseCode: failure.code }));
        const raw = Buffer.concat(chunks);
        const envelope = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
        };
        simpleParser(raw).then(
          (parsed) => {
            received.push({ envelope, raw, parsed });
            for (const wake of waiting) wake();
            callback();
          },
          (err: Error) => callback(Object.assign(err, { responseCode: 554 })),
        );
      });
    },
  };
  const server = new SMTPServer(serverOptions);
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;

  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    received,
    failNext(code, message) {
      failures.push({ code, message });
    },
    waitFor(count, timeoutMs = 20_000) {
      if (received.length >= count) return Promise.resolve(received);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(check);
          reject(new Error(`The SMTP sink received ${received.length} of the ${count} messages waited for.`));
        }, timeoutMs);
        const check = () => {
          if (received.length < count) return;
          clearTimeout(timer);
          waiting.delete(check);
          resolve(received);
        };
        waiting.add(check);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
