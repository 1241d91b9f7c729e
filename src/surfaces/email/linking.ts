// Linking an email address to a Switchboard account. A verified sender
// (verify.ts) writes as the chat user "their address" in the workspace; once
// that address is linked to a person, agents see that person. The first time an
// unlinked verified sender writes, Switchboard mails a link to them alone (the
// core's LinkService: single use, 15 minutes, bound to that address), never in
// an answer, which goes to everyone on the thread; a mail with the subject
// "link" asks for a new one. An unverified sender is never mailed a link: their
// From line may be anyone's. `email.link.done` mails "Linked as @alice".
import { randomUUID } from 'node:crypto';
import { DeliveryError, isDeliveryError, jobErrorFor } from '../../core/delivery/failure.ts';
import { postOncePerKey } from '../../core/delivery/keyed-post.ts';
import { linkReplies, type LinkWording } from '../../core/linking/link-rules.ts';
import type { PromptReason } from '../../core/linking/link-service.ts';
import type { JobHandler } from '../../core/ports.ts';
import type { SurfacePort } from '../../core/surfaces/inbound.ts';
import type { ExternalIdentity, ExternalKey } from '../../core/surfaces/surface-ports.ts';
import { deliveryErrorOf, loggable } from './errors.ts';
import { markdownToMail } from './format/out.ts';
import type { MailAddress } from './mail-repo.ts';
import { dkimOption, workspaceOfTenant, type EmailRuntime } from './runtime.ts';
import { mailIdFor } from './thread-id.ts';
import { EMAIL, EMAIL_LINK_DONE } from './topics.ts';
import type { SenderCheck } from './verify.ts';

/** The subject (reply prefixes aside) of a mail asking for a link instead of writing to an agent. */
export const LINK_SUBJECT = 'link';

const ASK = `mail any agent, from the address to link, with the subject "${LINK_SUBJECT}"`;

/** How email speaks of account links: a mail with the subject "link" asks for one; the web settings unlink. */
export const EMAIL_LINK_WORDING: LinkWording = {
  app: 'email',
  tenant: 'workspace',
  newLink: `Get a new one: ${ASK}.`,
  ask: ASK,
};

/** What a person's mail program shows as the sender of account mail; a reply to it is refused (no agent has the name). */
const accountSender = (domain: string): MailAddress => ({ name: 'Switchboard', address: `no-reply@${domain}` });

/** The chat user a verified address is in a workspace (verified identities are keyed by the address itself). */
const keyOf = (tenant: string, address: string): ExternalKey => ({
  surface: EMAIL.surface,
  tenantId: tenant,
  externalUserId: address,
});

/** True for the identity of a verified sender: only it is ever linked (an unverified one is `unverified:<address>`). */
const isVerifiedAddress = (i: Pick<ExternalIdentity, 'externalUserId'>) => /^[^\s:]+@[^\s@]+$/.test(i.externalUserId);

/** The mail a link prompt or a link confirmation answers, to thread with it in the person's mail program. */
export interface MailAbout {
  mailId: string;
}

/** Mails `markdown` to one person, from Switchboard's account address; throws DeliveryError when the relay refuses. */
async function accountMail(
  rt: EmailRuntime,
  m: { to: string; subject: string; markdown: string; about?: MailAbout; auto: 'auto-replied' | 'auto-generated' },
): Promise<string> {
  const transport = rt.transport();
  const mailId = mailIdFor(randomUUID(), rt.settings.domain, 'account');
  if (!transport)
    throw new DeliveryError({
      kind: 'permanent',
      code: 'not_configured',
      reason: 'EMAIL_SMTP_URL is not set, so Switchboard cannot send mail',
    });
  try {
    await transport.sendMail({
      from: accountSender(rt.settings.domain),
      to: m.to,
      subject: m.subject,
      ...markdownToMail(m.markdown),
      messageId: `<${mailId}>`,
      ...(m.about ? { inReplyTo: `<${m.about.mailId}>`, references: `<${m.about.mailId}>` } : {}),
      headers: { 'Auto-Submitted': m.auto },
      ...dkimOption(rt),
    });
  } catch (e) {
    throw deliveryErrorOf(e);
  }
  return mailId;
}

/**
 * Mails a fresh link to the verified address of `identity`, to that address alone (a link in a mail to several people
 * would let any of them link the address to their own account); false when it is not a verified address or the mail
 * could not be sent (the core then tries again at their next mail). Never throws.
 */
export async function mailLinkPrompt(
  rt: EmailRuntime,
  identity: ExternalIdentity,
  reason: PromptReason,
  about?: MailAbout,
): Promise<boolean> {
  if (!isVerifiedAddress(identity)) return false;
  try {
    const workspace = await workspaceOfTenant(rt, identity.tenantId);
    const { prompt } = await rt.core.links.offer(identity, { tenantName: workspace?.name ?? '', reason });
    const text = prompt.text.replace(/\*([^*\n]+)\*/g, '**$1**');
    await accountMail(rt, {
      to: identity.externalUserId,
      subject: 'Link your email address to Switchboard',
      markdown: `${text}\n\n[${prompt.button}](${prompt.url})\n\nThis link was mailed to ${identity.externalUserId} alone; do not forward it. ${EMAIL_LINK_WORDING.newLink}`,
      about,
      auto: 'auto-replied',
    });
    return true;
  } catch (err) {
    rt.logger.warn(
      { err: loggable(err), identityId: identity.id },
      'could not mail a link; it is tried again at their next mail',
    );
    return false;
  }
}

/** How to get a link by mail, finishing a sentence (SurfacePort.linkHowTo), for a sender as checked. */
export function emailLinkHowTo(check: SenderCheck): SurfacePort['linkHowTo'] {
  return (justSent, sendFailed = false) => {
    if (justSent) return `Open the link Switchboard just mailed to ${check.address} alone`;
    // Never the case with justSent: an unverified sender is never mailed a link.
    if (!check.verified)
      return `Your mail could not be verified as sent from ${check.address || 'its From address'}, so no link is mailed to it; write from an address whose mail its domain signs (DKIM) or sends from a server it names (SPF)`;
    if (sendFailed) return `The link could not be mailed just now; ${ASK} in a moment`;
    return `Open the link Switchboard mailed you, or ${ASK} for a new one`;
  };
}

/** What email says about a person's link. */
const replies = (rt: EmailRuntime) =>
  linkReplies(EMAIL_LINK_WORDING.app, {
    link: `${ASK} to link it`,
    unlink: `Linked accounts in Switchboard (${rt.core.config.publicUrl}/account/links) removes the link`,
  });

/**
 * A mail with the subject "link": for a verified sender, a fresh link (or who their address is linked as) mailed to
 * them, in each workspace it was written to; an unverified sender is never answered. It reaches no agent.
 */
export async function answerLinkRequest(
  rt: EmailRuntime,
  workspaces: Array<{ slug: string }>,
  sender: MailAddress,
  check: SenderCheck,
  about: MailAbout,
): Promise<void> {
  if (!check.verified || !check.address)
    return void rt.logger.info(
      { reason: check.reason },
      'a request for a link from a sender who is not verified was not answered',
    );
  for (const { slug } of workspaces) {
    const key = keyOf(slug, check.address);
    const { identity, person } = await rt.core.links.whoIs(key);
    if (person) {
      await accountMail(rt, {
        to: check.address,
        subject: 'Your email address and Switchboard',
        markdown: replies(rt).linkedAs(person.handle),
        about,
        auto: 'auto-replied',
      }).catch((err: unknown) => rt.logger.warn({ err: loggable(err) }, 'could not say who an address is linked as'));
      continue;
    }
    const profile = { displayName: sender.name || check.address, email: check.address, fetchedAt: rt.core.clock.now() };
    await mailLinkPrompt(rt, identity ?? (await rt.core.identities.upsert(key, profile)), 'asked', about);
  }
}

/** `email.link.done`: "Linked as @alice" mailed to the address just linked, once per job. */
export function linkDoneHandler(rt: EmailRuntime): JobHandler {
  return async (raw, ctx) => {
    const done = await rt.core.links.linkDone(EMAIL_LINK_DONE, raw);
    if (!done || !isVerifiedAddress(done.identity)) return;
    const { identity, person } = done;
    try {
      await postOncePerKey(
        rt.core.posts,
        EMAIL.surface,
        `link-done:${ctx.entryId}`,
        {
          post: () =>
            accountMail(rt, {
              to: identity.externalUserId,
              subject: 'Your email address is linked to Switchboard',
              markdown: replies(rt).linked(person),
              auto: 'auto-generated',
            }),
          // A relay cannot be searched: a retry after an unknown outcome mails it again (a new Message-ID).
          find: async () => null,
        },
        ctx.signal,
      );
    } catch (e) {
      throw isDeliveryError(e) ? jobErrorFor(e.failure) : e;
    }
  };
}
