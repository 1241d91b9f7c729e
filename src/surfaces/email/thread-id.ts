// Where an email conversation lives: the workspace's address label (its slug,
// the tenant) and the Message-ID of the thread's first mail. The conversation
// key `email:<root Message-ID>` finds its record again; a Message-ID too long
// for a key is kept there as its hash.
import { createHash } from 'node:crypto';
import { z } from 'zod';

export interface EmailThread {
  /** The slug of the workspace the thread is in: the tenant its mails were addressed under. */
  tenant: string;
  /** The Message-ID of the thread's first mail, without angle brackets. */
  root: string;
}

/** Longest Message-ID a key carries as it is; a longer one is kept as its SHA-256. */
const KEY_ID_CHARS = 200;
/** Longest Message-ID taken at all (a header line is at most 998 characters). */
export const MAX_MAIL_ID_CHARS = 998;

const MAIL_ID = /^[^\s<>\x00-\x1f\x7f]+$/;

/** A Message-ID as it is stored (no angle brackets, no spaces); null when `raw` holds none. */
export function mailIdOf(raw: string | null | undefined): string | null {
  if (!raw) return null;
  const inner = /<([^<>]*)>/.exec(raw)?.[1] ?? raw;
  const id = inner.replace(/\s+/g, '');
  return id && id.length <= MAX_MAIL_ID_CHARS && MAIL_ID.test(id) ? id : null;
}

/** Every Message-ID a References or In-Reply-To header lists, in order, without repeats. */
export function mailIdsIn(raw: string | string[] | null | undefined): string[] {
  const text = Array.isArray(raw) ? raw.join(' ') : (raw ?? '');
  const ids = [...text.matchAll(/<([^<>]+)>/g)].flatMap((m) => mailIdOf(m[1]) ?? []);
  return [...new Set(ids)];
}

const Thread = z.object({
  tenant: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/),
  root: z.string().min(1).max(MAX_MAIL_ID_CHARS).regex(MAIL_ID),
});

/** `email:<root>` (`email:#<sha256>` for a long one); throws on a thread no mail names. */
export function encodeConversationKey(t: EmailThread): string {
  if (!Thread.safeParse(t).success) throw new Error(`not an email thread: ${JSON.stringify(t)}`);
  return t.root.length <= KEY_ID_CHARS
    ? `email:${t.root}`
    : `email:#${createHash('sha256').update(t.root).digest('hex')}`;
}

/** The root Message-ID a key names (or its hash, `#…`); null when it is not an email key. */
export function decodeConversationKey(key: string): string | null {
  const m = /^email:(#[0-9a-f]{64}|[^\s<>#][^\s<>]{0,199})$/.exec(key);
  return m ? m[1]! : null;
}

/** The conversation's `externalRef` (plain strings, as the store keeps it). */
export const threadRef = (t: EmailThread): Record<string, string> => ({ tenant: t.tenant, root: t.root });

/** The thread back from an `externalRef`; null when it is not an email thread's. */
export function threadFromRef(ref: Record<string, string> | null): EmailThread | null {
  const parsed = Thread.safeParse(ref ?? {});
  return parsed.success ? { tenant: parsed.data.tenant, root: parsed.data.root } : null;
}

/** Answers are paced per thread. */
export const paceKey = (t: EmailThread) => `${t.tenant}:${t.root}`;

/**
 * The Message-ID of a mail Switchboard sends: an agent's message (`sb.<message id>@…`), or another mail about a thing
 * with an id, such as an approval (`sb.<kind>.<approval id>@…`).
 */
export const mailIdFor = (id: string, domain: string, kind?: string) => `sb.${kind ? `${kind}.` : ''}${id}@${domain}`;

/** True for a Message-ID Switchboard gave a mail it sent (one coming back is never answered). */
export const isSentByUs = (mailId: string, domain: string) =>
  /^sb\.(?:[a-z]+\.)?[0-9a-f-]{36}@/.test(mailId) && mailId.endsWith(`@${domain}`);
