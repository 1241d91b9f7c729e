// The SMTP listener for EMAIL_DOMAIN (smtp-server): the MX record, or a relay,
// delivers here. Recipients are checked at RCPT TO (outside the domain, a
// workspace not connected to email, an unknown agent: 550 with the reason);
// the message is refused past EMAIL_MAX_BYTES (552) and otherwise stored with
// its job before the 250, so a crash after the answer loses nothing. STARTTLS
// is offered with the configured certificate; nobody logs in (AUTH is off).
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import { isSwitchboardError } from '../../core/errors.ts';
import { loggable } from './errors.ts';
import { RecipientBook } from './recipients.ts';
import type { EmailRuntime } from './runtime.ts';
import { storeMail } from './stored-mail.ts';

/** An SMTP reply to send for a refused command: smtp-server reads `responseCode`. */
const reply = (responseCode: number, message: string) => Object.assign(new Error(message), { responseCode });

export interface SmtpListener {
  /** The port it listens on (the one the system chose when configured as 0). */
  port(): number;
  close(): Promise<void>;
}

/** Starts listening; resolves once the port is bound (rejects when it cannot be, with the reason). */
export async function startSmtpListener(
  rt: EmailRuntime,
  port: number,
  draining: () => boolean,
): Promise<SmtpListener> {
  const { domain, maxBytes, maxRecipients, tls } = rt.settings;
  const books = new WeakMap<SMTPServerSession, RecipientBook>();
  const bookOf = (session: SMTPServerSession) => {
    let book = books.get(session);
    if (!book) books.set(session, (book = new RecipientBook(rt)));
    return book;
  };
  const server = new SMTPServer({
    name: domain,
    banner: 'Switchboard',
    size: maxBytes,
    authOptional: true,
    disabledCommands: tls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
    ...(tls ? { key: tls.key, cert: tls.cert } : {}),
    disableReverseLookup: true,
    logger: false,
    maxClients: 200,
    // Stopping waits this long at most for senders still connected (they send again to another MX or later).
    closeTimeout: 5_000,
    onConnect(_session, callback) {
      if (draining()) return callback(reply(421, 'Switchboard is restarting; try again shortly.'));
      callback();
    },
    onRcptTo(address, session, callback) {
      if (session.envelope.rcptTo.length >= maxRecipients)
        return callback(
          reply(452, `At most ${maxRecipients} recipients per message; send to the others in another one.`),
        );
      bookOf(session)
        .check(address.address)
        .then(
          (found) => (found.ok ? callback() : callback(reply(found.permanent ? 550 : 451, found.reason))),
          (err: unknown) => {
            rt.logger.warn({ err: loggable(err) }, 'could not check a mail recipient; answered 451');
            callback(reply(451, 'The recipient could not be checked just now; try again later.'));
          },
        );
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      let bytes = 0;
      stream.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes <= maxBytes) chunks.push(chunk);
      });
      stream.on('error', (err) => callback(err));
      stream.on('end', () => {
        if (stream.sizeExceeded)
          return callback(reply(552, `The message is larger than ${maxBytes} bytes, the most this server takes.`));
        const raw = Buffer.concat(chunks);
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        const release = rt.core.holdForIngest();
        storeMail(rt, raw, {
          envelope: { from, to: session.envelope.rcptTo.map((a) => a.address.toLowerCase()) },
          client: { ip: session.remoteAddress || null, helo: session.hostNameAppearsAs || null },
          via: 'smtp',
        })
          .then(
            (stored) => callback(null, stored ? 'Queued by Switchboard' : 'Already received; queued once'),
            (err: unknown) => {
              // Refused for what it holds: the same message sent again is refused again.
              if (isSwitchboardError(err) && err.code === 'INVALID_INPUT')
                return callback(reply(554, `The message cannot be stored: ${err.message}`));
              rt.logger.error({ err: loggable(err) }, 'could not store a mail; answered 451');
              callback(reply(451, 'The message could not be stored just now; try again later.'));
            },
          )
          .finally(release);
      });
    },
  });
  server.on('error', (err) => rt.logger.warn({ err: loggable(err) }, 'the SMTP listener met an error'));
  await new Promise<void>((resolve, reject) => {
    const failed = (err: Error) => reject(err);
    server.server.once('error', failed);
    server.listen(port, rt.settings.smtpHost, () => {
      server.server.off('error', failed);
      resolve();
    });
  });
  return {
    port: () => (server.server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
