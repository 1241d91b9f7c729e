// The rules of an account-link nonce: how long it lives, what it is bound to,
// and the sentences people read when one cannot be used. Pure: no store, no clock.
import type { OneTimeToken } from '../ports.ts';
import type { ExternalIdentity, ExternalKey, ExternalSurface } from '../surfaces/surface-ports.ts';

/** A link works for 15 minutes after it was sent. */
export const LINK_TTL_MS = 15 * 60_000;

/** What `newNonce` makes: 32 random bytes in base64url (256 bits; at least 128 are required). */
const NONCE = /^[A-Za-z0-9_-]{43}$/;

/** Whether a string could be a link nonce at all (anything else is refused before touching the database). */
export const isWellFormedNonce = (s: string) => NONCE.test(s);

/** The state of a link as the page shows it. */
export type LinkState = 'valid' | 'expired' | 'used' | 'unknown';

/** What a stored nonce is bound to: one chat user (surface, tenant, user) and their identity row. */
export interface LinkSubject extends ExternalKey {
  identityId: string;
  /** The team or tenant name, for the page ("Acme's Slack"); empty when unknown. */
  tenantName: string;
}

export function linkSubject(identity: ExternalIdentity, tenantName = ''): Record<string, string> {
  return {
    surface: identity.surface,
    tenantId: identity.tenantId,
    externalUserId: identity.externalUserId,
    identityId: identity.id,
    tenantName,
  };
}

/** The subject back from a stored token; null when the token was not made for an account link. */
export function parseSubject(subject: Record<string, string> | null): LinkSubject | null {
  if (!subject?.identityId || !subject.tenantId || !subject.externalUserId || !subject.surface) return null;
  return {
    surface: subject.surface,
    tenantId: subject.tenantId,
    externalUserId: subject.externalUserId,
    identityId: subject.identityId,
    tenantName: subject.tenantName ?? '',
  };
}

/** Whether the identity is still the chat user the nonce was issued for (a nonce never links anyone else). */
export const boundTo = (s: LinkSubject, i: ExternalKey) =>
  s.surface === i.surface && s.tenantId === i.tenantId && s.externalUserId === i.externalUserId;

/** Valid, expired, used or unknown: `token` is what the store found for the nonce's hash (null when nothing). */
export function linkState(token: Pick<OneTimeToken, 'expiresAt' | 'usedAt'> | null, now: Date): LinkState {
  if (!token) return 'unknown';
  if (token.usedAt) return 'used';
  return token.expiresAt.getTime() <= now.getTime() ? 'expired' : 'valid';
}

/** How a chat surface speaks of account links; each surface registers its own (LinkService.registerWording). */
export interface LinkWording {
  /** The app's name in sentences ("Slack", "Microsoft Teams"). */
  app: string;
  /** What the app calls the organization an account belongs to ("team", "tenant"). */
  tenant: string;
  /** How to get a new link from the app, as a sentence. */
  newLink: string;
  /** How to ask the app for a link, as a phrase finishing "To link one, …" ("write `/switchboard link` to the Switchboard app in Slack"). */
  ask: string;
  /** How to unlink from the app itself, as a phrase ("`/switchboard unlink` in Slack"); absent when only the web settings can. */
  unlink?: string;
}

/** The wording for a surface that registered none (a link issued before it was turned off). */
export const plainWording = (surface: ExternalSurface): LinkWording => ({
  app: surface,
  tenant: 'organization',
  newLink: 'Ask the Switchboard app in your chat for a new one.',
  ask: 'ask the Switchboard app in your chat app for one',
});

/** Why a link cannot be used, as a sentence with what to do instead (`wording` of the link's surface; null when the link is unknown). */
export function linkRefusal(state: Exclude<LinkState, 'valid'>, wording: LinkWording | null): string {
  const hint = wording?.newLink ?? 'Ask the Switchboard app in your chat for a new one.';
  switch (state) {
    case 'expired':
      return `This link has expired: links work for ${LINK_TTL_MS / 60_000} minutes. ${hint}`;
    case 'used':
      return `This link was already used; each link works once. ${hint}`;
    default:
      return `This is not a link Switchboard sent, or it was copied incompletely. ${hint}`;
  }
}

/** The identity is linked already: to the same person, or to someone else. */
export function alreadyLinked(
  identity: ExternalIdentity,
  wording: LinkWording,
  toYou: boolean,
  handle: string | null,
): string {
  const who = `${identity.displayName || identity.externalUserId} (${wording.app})`;
  return toYou
    ? `${who} is already linked to your account; there is nothing to do.`
    : `${who} is already linked to ${handle ? `@${handle}` : 'another Switchboard account'}, and a chat account links to one person only. ` +
        `Unlink it first from that account (its Linked accounts settings${wording.unlink ? `, or ${wording.unlink}` : ''}), then link again.`;
}

/**
 * How a chat app's own commands link and unlink, each a phrase finishing a sentence: Slack's
 * "`/switchboard link` links it" and "`/switchboard unlink` removes the link", Teams' 'write "link" to link it'.
 */
export interface LinkCommands {
  link: string;
  unlink: string;
}

const sentence = (phrase: string) => `${phrase.charAt(0).toUpperCase()}${phrase.slice(1)}.`;

/** What a chat user is told in the app about their link, by `app` (the surface's label) and its commands. */
export const linkReplies = (app: string, say: LinkCommands) => ({
  /** Once the link is made (the link-done job). */
  linked: (person: { handle: string; displayName: string }) =>
    `Linked as @${person.handle}. Agents now see your messages as ${person.displayName}'s and act with your access; ${say.unlink}.`,
  /** Who their account is linked as; with how to unlink unless `brief`. */
  linkedAs: (handle: string, brief = false) =>
    `Your ${app} account is linked as @${handle}.${brief ? '' : ` ${sentence(say.unlink)}`}`,
  /** They unlinked from the app. */
  unlinked: (handle: string) =>
    `Your ${app} account is no longer linked to @${handle}. Agents now see you as a guest; ${say.link} again.`,
  /** They asked to unlink an account that is not linked. */
  notLinked: () => `Your ${app} account is not linked to a Switchboard account; ${say.link}.`,
});
