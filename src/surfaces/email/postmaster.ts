// Mail to postmaster@<EMAIL_DOMAIN>, which RFC 5321 requires every mail domain
// to take: it is stored like any mail (kept a week with the received
// requests) and written to the operator's log, saying who wrote and what;
// it reaches no agent. Bounces and reports come here too, so it is logged
// before the checks that keep automatic mail from agents.
import type { ReadMail } from './parse.ts';
import type { EmailRuntime } from './runtime.ts';
import type { StoredMailPayload } from './stored-mail.ts';

/** How much of the text the log line carries. */
const LOGGED_CHARS = 2_000;

export function logPostmasterMail(rt: EmailRuntime, mailId: string, mail: ReadMail, payload: StoredMailPayload): void {
  rt.logger.warn(
    {
      mailId: mailId.slice(0, 200),
      from: mail.parties.from.map((a) => a.address),
      returnPath: payload.envelope.from,
      subject: mail.subject.slice(0, 300),
      text: mail.markdown.slice(0, LOGGED_CHARS),
      via: payload.via,
    },
    'mail to postmaster (its raw message is kept a week with the received requests)',
  );
}
