// A received mail as it is stored before it is acknowledged (250 over SMTP,
// 200 over the webhook): the raw message byte for byte, the envelope and who
// delivered it, with its `inbound.email` job. Its key is its Message-ID, so a
// mail delivered twice (a lost acknowledgement, both inbound ways) is handled once.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { EmailRuntime } from './runtime.ts';
import { mailIdOf, mailIdsIn } from './thread-id.ts';
import { EMAIL, EMAIL_INBOUND } from './topics.ts';

export const StoredMailPayload = z.object({
  /** The message as received, base64 (8-bit bytes survive, whatever their charset). */
  raw: z.string(),
  envelope: z.object({
    /** MAIL FROM: empty for a bounce; null when the way it came did not say. */
    from: z.string().nullable(),
    /** Our addresses it was delivered to. */
    to: z.array(z.string()),
  }),
  /** Who handed it over: the connecting address and its HELO name (checked against SPF), when known. */
  client: z.object({ ip: z.string().nullable(), helo: z.string().nullable() }),
  via: z.enum(['smtp', 'webhook']),
});
export type StoredMailPayload = z.infer<typeof StoredMailPayload>;

/** Most header bytes read at receipt to find the Message-ID and the thread (the rest is read by the job). */
const HEAD_BYTES = 256 * 1024;

/** The values of some headers, read from the header block without parsing the mail (unfolded, first of each). */
export function headersOf(raw: Buffer, names: string[]): Map<string, string> {
  const head = raw.subarray(0, HEAD_BYTES).toString('latin1');
  const end = head.search(/\r?\n\r?\n/);
  const lines = (end === -1 ? head : head.slice(0, end)).replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/);
  const found = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim().toLowerCase() : '';
    if (names.includes(name) && !found.has(name)) found.set(name, line.slice(colon + 1).trim());
  }
  return found;
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/** The store's key of a mail (its Message-ID, or the hash of a mail without one) and the key of its thread. */
export function keysOf(raw: Buffer): { key: string; thread: string } {
  const h = headersOf(raw, ['message-id', 'references', 'in-reply-to']);
  const mailId = mailIdOf(h.get('message-id'));
  const key = mailId ? (mailId.length <= 400 ? `mid:${mailId}` : `mid#${sha256(mailId)}`) : `sha:${sha256(raw)}`;
  // Mails of one thread are handled in order: the first Message-ID of References names the thread's start.
  const root = mailIdsIn(h.get('references'))[0] ?? mailIdsIn(h.get('in-reply-to'))[0] ?? mailId ?? key;
  return { key, thread: sha256(root).slice(0, 32) };
}

/**
 * Stores a received mail with its job, before the sender is told it arrived; false when it was stored before (a
 * redelivery: acknowledged again, handled once). Throws INVALID_INPUT when the store refuses it for what it holds.
 */
export async function storeMail(
  rt: Pick<EmailRuntime, 'core' | 'logger'>,
  raw: Buffer,
  info: Omit<StoredMailPayload, 'raw'>,
): Promise<boolean> {
  const { key, thread } = keysOf(raw);
  const payload: StoredMailPayload = { raw: raw.toString('base64'), ...info };
  const stored = await rt.core.inboundEvents.accept(
    { surface: EMAIL.surface, key, kind: 'mail', payload },
    { topic: EMAIL_INBOUND, orderingKey: `inbound:${EMAIL.surface}:${thread}` },
  );
  if (stored) rt.core.kick();
  else rt.logger.debug({ key: key.slice(0, 200) }, 'acknowledged a mail already received');
  return Boolean(stored);
}
