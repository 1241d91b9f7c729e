// The one place mail errors are translated. nodemailer's SMTP errors carry the
// server's reply (`response`, `responseCode`) and a `code` (ECONNECTION,
// ETIMEDOUT, EAUTH, EENVELOPE…); a 4xx reply may work later, a 5xx never will.
import { DeliveryError, type DeliveryFailure } from '../../core/delivery/failure.ts';

interface SmtpErrorLike {
  name?: string;
  code?: string;
  message?: string;
  response?: string;
  responseCode?: number;
  command?: string;
}

/** The server's reply on one line, at most 300 characters (it is kept with the job and may be shown to an agent). */
const replyOf = (e: SmtpErrorLike) => (e.response ?? '').replace(/\s+/g, ' ').trim().slice(0, 300);

/** Codes of a refusal that no retry changes, when the server gave no reply code. */
const PERMANENT_CODES = new Set([
  'ECONFIG',
  'EENVELOPE',
  'EMESSAGE',
  'ENOAUTH',
  'EREQUIRETLS',
  'EFILEACCESS',
  'EURLACCESS',
]);

/**
 * What a failed send means: a 4xx reply (the server busy, greylisting, a mailbox over quota for now), a lost or
 * refused connection, a timeout or a TLS failure may work later; a 5xx reply (no such mailbox, refused as spam,
 * credentials refused) never will, and its reason names the server's reply.
 */
export function classifySmtpError(error: unknown): DeliveryFailure {
  const e = (error ?? {}) as SmtpErrorLike;
  const status = e.responseCode;
  const reply = replyOf(e);
  if (status && status >= 400 && status < 500)
    return { kind: 'transient', reason: `the mail server asked to try again later ("${reply}")` };
  if (status && status >= 500) {
    const credentials = e.code === 'EAUTH';
    return {
      kind: 'permanent',
      code: `SMTP ${status}`,
      reason: credentials
        ? `the mail server refused Switchboard's credentials ("${reply}"); check the user and password in EMAIL_SMTP_URL`
        : `the mail server refused the mail ("${reply}")`,
    };
  }
  if (e.code && PERMANENT_CODES.has(e.code))
    return {
      kind: 'permanent',
      code: e.code,
      reason: `the mail could not be sent (${e.code}: ${(e.message ?? '').slice(0, 200)})`,
    };
  return {
    kind: 'transient',
    reason: `the mail server could not be reached (${e.code ?? e.message ?? 'network error'})`,
  };
}

/** The DeliveryError an outbound call throws for a failed send. */
export const deliveryErrorOf = (error: unknown) =>
  error instanceof DeliveryError ? error : new DeliveryError(classifySmtpError(error));

/** An error as it may be logged: the server's reply and codes, never the transport's options (they hold the password). */
export function loggable(error: unknown): Record<string, unknown> {
  const e = (error ?? {}) as SmtpErrorLike;
  if (e.responseCode !== undefined || e.command !== undefined)
    return { name: e.name, code: e.code, responseCode: e.responseCode, command: e.command, reply: replyOf(e) };
  if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack };
  return { message: String(error) };
}
