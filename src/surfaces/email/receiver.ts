// Durable email intake over HTTP: POST /email/inbound takes one raw message
// (RFC 822) from a mail service, behind a shared secret compared in constant
// time. The recipients are checked like the SMTP listener's RCPT TO, and the
// mail is stored with its `inbound.email` job before the 200, so a crash after
// the answer loses nothing. The job (also here) reads it back and handles it.
import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type Request, type RequestHandler, type Response } from 'express';
import addressparser from 'nodemailer/lib/addressparser/index.js';
import { isSwitchboardError, PermanentFailure } from '../../core/errors.ts';
import type { JobHandler } from '../../core/ports.ts';
import { isOurs } from './addresses.ts';
import { loggable } from './errors.ts';
import { handleMail } from './handlers.ts';
import { RecipientBook } from './recipients.ts';
import type { EmailRuntime } from './runtime.ts';
import { headersOf, StoredMailPayload, storeMail } from './stored-mail.ts';

/** The route of the raw-message webhook. */
export const INBOUND_PATH = '/email/inbound';

const refuse = (
  res: Response,
  status: number,
  message: string,
  code = status === 401 ? 'UNAUTHENTICATED' : 'INVALID_INPUT',
) => void res.status(status).json({ error: { code, message } });

const digest = (s: string) => createHash('sha256').update(s).digest();

/** The secret a request carries: `Authorization: Bearer <secret>`, or the password of basic auth (a URL's user:password@). */
function presented(req: Request): string | null {
  const header = req.headers.authorization ?? '';
  const bearer = /^Bearer\s+(.+)$/i.exec(header)?.[1];
  if (bearer) return bearer.trim();
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header)?.[1];
  if (!basic) return null;
  const decoded = Buffer.from(basic, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon === -1 ? null : decoded.slice(colon + 1);
}

/** True when the request carries the secret; compared as hashes in constant time, whatever its length. */
export function carriesSecret(req: Request, secret: string): boolean {
  const given = presented(req);
  return given !== null && timingSafeEqual(digest(given), digest(secret));
}

/**
 * The addresses of a query value, repeated or comma-separated; [] when absent. A `+` sent unencoded (a mail server's
 * `${recipient}` in a URL) reads as a space, which no address holds: it is read back as the `+` it was.
 */
function addressesIn(value: unknown): string[] {
  const all = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return all
    .flatMap((v) => (typeof v === 'string' ? v.split(',') : []))
    .map((v) => v.trim().replace(/ /g, '+'))
    .filter(Boolean);
}

/** Our addresses a mail names in its headers, for a service that does not say whom it delivers to. */
function recipientsInHeaders(raw: Buffer, domain: string): string[] {
  const names = ['to', 'cc', 'delivered-to', 'x-original-to'];
  const h = headersOf(raw, names);
  const all = names.flatMap((n) =>
    addressparser(h.get(n) ?? '', { flatten: true }).map((a) => a.address.toLowerCase()),
  );
  return [...new Set(all.filter((a) => isOurs(a, domain)))];
}

/** express.raw for any content type, its errors answered as 413 or 400 with a reason. */
function rawBody(maxBytes: number): RequestHandler {
  const parse = express.raw({ type: () => true, limit: maxBytes });
  return (req, res, next) =>
    parse(req, res, (err?: unknown) => {
      if (!err) return next();
      if ((err as { status?: number }).status === 413)
        return refuse(
          res,
          413,
          `The mail is larger than ${maxBytes} bytes, the most this server takes (EMAIL_MAX_BYTES).`,
        );
      refuse(res, 400, 'The body could not be read; post the raw message as it was received.');
    });
}

export function emailWebhook(rt: EmailRuntime, secret: string, draining: () => boolean): RequestHandler[] {
  const { domain, maxBytes, maxRecipients } = rt.settings;
  const gate: RequestHandler = (_req, res, next) => {
    if (!draining()) return next();
    res
      .status(503)
      .set('retry-after', '5')
      .json({ error: { code: 'UNAVAILABLE', message: 'Switchboard is restarting; post the mail again shortly.' } });
  };
  // The secret is checked before the body is read: nobody else makes this server read 10 MB.
  const auth: RequestHandler = (req, res, next) => {
    if (carriesSecret(req, secret)) return next();
    res.set('www-authenticate', 'Bearer, Basic realm="switchboard-email"');
    refuse(
      res,
      401,
      'The webhook secret is missing or wrong; send EMAIL_INBOUND_SECRET as a bearer token or as the basic-auth password.',
    );
  };
  const handle = async (req: Request, res: Response) => {
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (!raw.length) return refuse(res, 400, 'The body is empty; post the raw message (RFC 822) as it was received.');
    if (!headersOf(raw, ['from', 'to', 'date', 'message-id', 'subject']).size)
      return refuse(
        res,
        400,
        'The body is not a mail: it has none of the headers From, To, Date, Message-ID or Subject.',
      );
    const wanted = addressesIn(req.query.to).map((a) => a.toLowerCase());
    const addresses = [...new Set(wanted.length ? wanted : recipientsInHeaders(raw, domain))];
    if (!addresses.length)
      return refuse(res, 400, `The mail names no address at ${domain}; say whom it is for with ?to=agent@${domain}.`);
    if (addresses.length > maxRecipients)
      return refuse(
        res,
        400,
        `The mail is for ${addresses.length} addresses here; at most ${maxRecipients} are taken at once.`,
      );
    const book = new RecipientBook(rt);
    const accepted: string[] = [];
    const refused: Array<{ address: string; reason: string }> = [];
    let later = false;
    for (const address of addresses) {
      const found = await book.check(address);
      if (found.ok) accepted.push(found.recipient.address);
      else {
        refused.push({ address, reason: found.reason });
        later ||= !found.permanent;
      }
    }
    if (!accepted.length) {
      if (later)
        return void res
          .status(503)
          .set('retry-after', '30')
          .json({ error: { code: 'UNAVAILABLE', message: refused.map((r) => r.reason).join(' ') }, refused });
      return void res.status(400).json({
        error: {
          code: 'INVALID_INPUT',
          message: `No address of the mail reaches anyone here. ${refused[0]!.reason}`,
        },
        refused,
      });
    }
    const from = typeof req.query.from === 'string' ? req.query.from.trim().replace(/ /g, '+') : null;
    const ip = typeof req.query.ip === 'string' ? req.query.ip.trim() : null;
    const helo = typeof req.query.helo === 'string' ? req.query.helo.trim() : null;
    // Ingest first: while the service waits for this answer, this process starts no new jobs (for a bounded time).
    const release = rt.core.holdForIngest();
    try {
      const stored = await storeMail(rt, raw, {
        envelope: { from, to: accepted },
        client: { ip: ip || null, helo: helo || null },
        via: 'webhook',
      });
      res.status(200).json({ accepted, refused, duplicate: !stored });
    } catch (err) {
      if (isSwitchboardError(err) && err.code === 'INVALID_INPUT') return refuse(res, 400, err.message);
      rt.logger.error({ err: loggable(err) }, 'could not store a mail; answered 503');
      res
        .status(503)
        .set('retry-after', '5')
        .json({ error: { code: 'UNAVAILABLE', message: 'The mail could not be stored; post it again shortly.' } });
    } finally {
      release();
    }
  };
  return [gate, auth, rawBody(maxBytes), handle];
}

/** The `inbound.email` job: reads the stored mail back and handles it; a thrown error retries it. */
export function emailInboundHandler(rt: EmailRuntime): JobHandler {
  return async (payload, job) => {
    // Read with the claim when the queue could (the embedded one); otherwise here.
    const event = job.inbound ?? (await rt.core.inboundEvents.get(String(payload.inboundId ?? '')));
    if (!event) throw new PermanentFailure('The stored mail is gone (purged or never written).');
    const parsed = StoredMailPayload.safeParse(event.payload);
    if (!parsed.success) throw new PermanentFailure('The stored mail is malformed and cannot be handled.');
    await handleMail(rt, parsed.data);
  };
}
