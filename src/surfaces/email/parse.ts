// A raw mail read into what the email surface works with: its Message-ID and
// the chain it refers to, who it is from and to, its subject, its text (as
// Markdown for agents without the quoted history, and complete for the record:
// format/in.ts) and its attachments
// (name, type and size only). mailparser reads what it can of broken MIME and
// unknown charsets; what it cannot is left out, never a reason to fail.
import { simpleParser, type AddressObject, type EmailAddress, type ParsedMail } from 'mailparser';
import { storableCopy } from '../../core/safe-text.ts';
import { mailToMarkdown } from './format/in.ts';
import type { MailAddress, MailParties } from './mail-repo.ts';
import { mailIdOf, mailIdsIn } from './thread-id.ts';

/** Most addresses kept of each header (From, Reply-To, To, Cc); a mail to 10,000 people keeps the first. */
export const MAX_ADDRESSES = 100;
/** Most Message-IDs of a chain kept: the first (the thread's start) and the latest. */
export const MAX_REFERENCES = 20;
/** Longest subject kept, in characters (a header line's limit). */
const MAX_SUBJECT = 998;

export interface MailAttachment {
  name: string;
  type: string;
  size: number;
}

/** A mail as read. */
export interface ReadMail {
  /** Its Message-ID (no angle brackets); null when it has none that can be read. */
  mailId: string | null;
  subject: string;
  parties: MailParties;
  /** The Message-IDs it refers to: References, then In-Reply-To, without repeats (first and latest kept). */
  references: string[];
  /** The Message-ID it answers; null when none. */
  inReplyTo: string | null;
  /** Its body for agents, as Markdown (quoted history and signature left out). */
  markdown: string;
  /** Its complete text, for the record. */
  full: string;
  attachments: MailAttachment[];
  /** How many addresses of To and Cc were left out beyond the `MAX_ADDRESSES` kept of each. */
  omitted: number;
  /** Header name (lowercase) → value as mailparser gives it, for the check of automatic mail. */
  headers: Map<string, unknown>;
  /** What could not be read, as short phrases (logged and kept in the record). */
  problems: string[];
}

/** Flattens address groups, drops entries without an address, lowercases addresses, and keeps at most `MAX_ADDRESSES`. */
function addresses(
  field: AddressObject | AddressObject[] | undefined,
  problems: string[],
  what: string,
  omitted: { n: number } = { n: 0 },
): MailAddress[] {
  const flat = (list: EmailAddress[]): EmailAddress[] => list.flatMap((a) => (a.group ? flat(a.group) : [a]));
  const all = flat((Array.isArray(field) ? field : field ? [field] : []).flatMap((o) => o.value ?? []))
    .filter((a) => a.address && /^[^\s@]+@[^\s@]+$/.test(a.address))
    .map((a) => ({ name: oneLine(a.name ?? '').slice(0, 200), address: a.address!.toLowerCase() }));
  const unique = [...new Map(all.map((a) => [a.address, a])).values()];
  omitted.n += Math.max(0, unique.length - MAX_ADDRESSES);
  if (unique.length > MAX_ADDRESSES)
    problems.push(`${what} named ${unique.length} addresses; the first ${MAX_ADDRESSES} were kept`);
  return unique.slice(0, MAX_ADDRESSES);
}

const oneLine = (s: string) => s.replace(/[\r\n\t]+/g, ' ').trim();

/** The first and the latest of a chain, so the thread's start is never lost from a long one. */
function capped(ids: string[]): string[] {
  return ids.length <= MAX_REFERENCES ? ids : [ids[0]!, ...ids.slice(ids.length - (MAX_REFERENCES - 1))];
}

/** Reads a raw mail; never throws for what the mail holds (an unreadable one comes back empty, with its problem). */
export async function readMail(raw: Buffer): Promise<ReadMail> {
  const problems: string[] = [];
  let m: ParsedMail;
  try {
    m = await simpleParser(raw, { skipImageLinks: true, skipTextToHtml: true, maxHtmlLengthToParse: 2_000_000 });
  } catch (e) {
    problems.push(`the mail could not be read (${(e as Error).message ?? 'unknown error'})`);
    return emptyMail(problems);
  }
  const body = mailToMarkdown({ text: m.text, html: m.html });
  const omitted = { n: 0 };
  const inReplyTo = mailIdsIn(m.inReplyTo)[0] ?? null;
  const references = capped([...new Set([...mailIdsIn(m.references), ...(inReplyTo ? [inReplyTo] : [])])]);
  const read: ReadMail = {
    mailId: mailIdOf(m.messageId),
    subject: oneLine(m.subject ?? '').slice(0, MAX_SUBJECT),
    parties: {
      from: addresses(m.from, problems, 'From'),
      replyTo: addresses(m.replyTo, problems, 'Reply-To'),
      to: addresses(m.to, problems, 'To', omitted),
      cc: addresses(m.cc, problems, 'Cc', omitted),
    },
    references,
    inReplyTo,
    markdown: body.markdown,
    full: body.full,
    attachments: m.attachments
      .filter((a) => !a.related)
      .map((a) => ({
        name: oneLine(a.filename ?? '').slice(0, 255) || '(unnamed)',
        type: a.contentType || 'application/octet-stream',
        size: a.size ?? a.content?.length ?? 0,
      })),
    omitted: omitted.n,
    headers: m.headers as Map<string, unknown>,
    problems,
  };
  // Text jsonb or PostgreSQL cannot hold (a NUL, half a UTF-16 pair from a broken charset) becomes U+FFFD.
  return { ...storableCopy({ ...read, headers: undefined }), headers: read.headers } as ReadMail;
}

function emptyMail(problems: string[]): ReadMail {
  return {
    mailId: null,
    subject: '',
    parties: { from: [], replyTo: [], to: [], cc: [] },
    references: [],
    inReplyTo: null,
    markdown: '',
    full: '',
    attachments: [],
    omitted: 0,
    headers: new Map(),
    problems,
  };
}
