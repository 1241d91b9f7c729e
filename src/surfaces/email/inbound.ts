// Email's side of the one inbound pipeline: a mail as the core's
// InboundMessage (its thread, its sender, the agents it was written to and a
// Markdown text that says who wrote, to whom and about what), and the
// SurfacePort the core calls back for what only mail knows.
import { MAX_BODY_CHARS } from '../../core/messaging/rules.ts';
import type { InboundMessage, SurfacePort } from '../../core/surfaces/inbound.ts';
import type { Workspace } from '../../core/entities.ts';
import { emailLinkHowTo, mailLinkPrompt, type MailAbout } from './linking.ts';
import type { MailAddress } from './mail-repo.ts';
import type { MailAttachment, ReadMail } from './parse.ts';
import { workspaceOfTenant, type EmailRuntime } from './runtime.ts';
import { encodeConversationKey, threadRef, type EmailThread } from './thread-id.ts';
import { EMAIL } from './topics.ts';
import type { SenderCheck } from './verify.ts';

/**
 * The chat user a sender is: their address once verified (DKIM aligned with it, or SPF and DMARC: verify.ts), else the
 * address marked unverified. Two identities, so that whoever forges a From line is never taken for the person who
 * linked that address.
 */
export const authorIdOf = (check: SenderCheck, sender: MailAddress) =>
  check.verified && check.address ? check.address : `unverified:${sender.address}`;

/** Most people named in the line that says who else a mail went to, and most attachments named. */
const MAX_NAMED = 10;

const markdownEscaped = (s: string) => s.replace(/([\\`*_{}[\]<>#|~])/g, '\\$1');
const person = (a: MailAddress) =>
  a.name && a.name.toLowerCase() !== a.address ? `${markdownEscaped(a.name)} (${a.address})` : a.address;

/** `2.1 KB`, `340 B`. */
function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The subject without its reply and forward prefixes, for telling whether a reply changed it. */
export const bareSubject = (s: string) => s.replace(/^(\s*(re|fwd?|aw|wg|sv|vs)\s*(\[\d+\])?\s*:\s*)+/i, '').trim();

/** What the agents read of a mail: who wrote, to whom else, the subject when it is new, the text and the attachments. */
export function mailText(
  mail: ReadMail,
  sender: MailAddress,
  others: MailAddress[],
  check: SenderCheck,
  showSubject: boolean,
): string {
  const more = Math.max(0, others.length - MAX_NAMED) + mail.omitted;
  const cc = others.length
    ? `, cc ${others.slice(0, MAX_NAMED).map(person).join(', ')}${more ? ` and ${more} more` : ''}`
    : '';
  const from = `from ${person(sender)}${check.verified ? '' : ' (sender not verified)'}${cc}`;
  const head = showSubject && mail.subject ? `${markdownEscaped(mail.subject)} — ${from}` : `Mail ${from}:`;
  const files = mail.attachments
    .slice(0, MAX_NAMED)
    .map((a: MailAttachment) => `${markdownEscaped(a.name)} (${a.type.slice(0, 100)}, ${size(a.size)})`);
  const moreFiles = mail.attachments.length - files.length;
  const attached = files.length
    ? `Attached (not kept): ${files.join(', ')}${moreFiles ? ` and ${moreFiles} more` : ''}`
    : '';
  const body = mail.markdown || (attached ? '' : '(no text)');
  const tail = attached ? `\n\n${attached}` : '';
  const room = MAX_BODY_CHARS - head.length - tail.length - 200;
  const cut =
    body.length > room
      ? `${body.slice(0, room)}\n\n(the mail goes on for ${body.length - room} more characters; they are not shown here)`
      : body;
  return `${head}\n\n${cut}${tail}`.trim();
}

/** The core's view of one mail for one workspace: its thread's conversation, its author, the agents it names. */
export function normalise(
  workspace: Workspace,
  thread: EmailThread,
  mailId: string,
  authorId: string,
  text: string,
  names: string[],
): InboundMessage {
  const conversationKey = encodeConversationKey(thread);
  return {
    surface: EMAIL.surface,
    tenantId: workspace.slug,
    // Each thread is its own place: listening on shared addresses would name theirs here.
    channelId: conversationKey,
    place: 'channel',
    conversationKey,
    externalRef: threadRef(thread),
    messageId: mailId,
    threadRootId: thread.root,
    authorId,
    text,
    names,
    // Every mail that reaches an agent was written to it: its address was on the envelope.
    addressed: true,
  };
}

/** What the core asks of email while handling one mail from `sender` (`about`: the mail, which a link prompt answers). */
export function emailPort(rt: EmailRuntime, sender: MailAddress, check: SenderCheck, about?: MailAbout): SurfacePort {
  return {
    ...EMAIL,
    profileTtlMs: rt.settings.profileTtlMs,
    workspaceOf: (tenantId) => workspaceOfTenant(rt, tenantId),
    async profile() {
      return {
        displayName: sender.name || sender.address,
        // Only a verified address is the person's; an unverified one is kept in the details alone.
        email: check.verified ? sender.address : null,
        details: { address: sender.address, verified: check.verified, verification: check.reason },
        fetchedAt: rt.core.clock.now(),
      };
    },
    // Mailed to a verified sender alone; an unverified one never gets a link (linking.ts).
    sendLinkPrompt: (identity, reason) => mailLinkPrompt(rt, identity, reason, about),
    // A mail has no address people open in a browser.
    permalink: async () => null,
    showName: (n) => `"${n}"`,
    linkHowTo: emailLinkHowTo(check),
  };
}
