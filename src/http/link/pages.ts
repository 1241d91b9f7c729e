// The link page and the linked-accounts settings, as small server-rendered
// cards in the sign-in pages' style.
import type { LinkCheck } from '../../core/linking/link-service.ts';
import type { LinkWording } from '../../core/linking/link-rules.ts';
import type { ExternalIdentity, ExternalSurface } from '../../core/surfaces/surface-ports.ts';
import type { Person } from '../../core/entities.ts';
import { notice } from '../auth/index.ts';
import { html, type SafeHtml } from '../html.ts';

/** How each surface speaks of links (LinkService.wording). */
export type WordingOf = (surface: ExternalSurface) => LinkWording;

const back = html`<p><a href="/account/links">Your linked accounts</a> · <a href="/">Go to the chat</a></p>`;

/**
 * "Carol Chen (carol@example.test, user U0123) in the Slack team Acme": the name is the one the account gave itself,
 * so the platform's user id (which nobody chooses) and the e-mail come with it.
 */
function chatAccount(i: ExternalIdentity, wording: WordingOf, tenantName: string): SafeHtml {
  const w = wording(i.surface);
  const where = `${w.app} ${w.tenant} ${tenantName || i.tenantId}`;
  const ids = [i.email, i.displayName ? `user ${i.externalUserId}` : null].filter(Boolean).join(', ');
  return html`<strong>${i.displayName || i.externalUserId}</strong>${ids ? html` (${ids})` : null} in the ${where}`;
}

/** Asks the signed-in person to confirm which chat account becomes theirs. */
export function confirmPage(
  check: Extract<LinkCheck, { state: 'valid' }>,
  wording: WordingOf,
  person: Person,
  csrf: SafeHtml,
  action: string,
): SafeHtml {
  return html`<p>Link this chat account</p>
<p class="link-account">${chatAccount(check.identity, wording, check.subject.tenantName)}</p>
<p>to your Switchboard account <strong>${person.displayName}</strong> (@${person.handle})?</p>
<p class="hint">Agents will then see your messages from ${wording(check.identity.surface).app} as yours and act with your access. You can unlink it at any time.</p>
<p class="hint">Link only an account that is yours: a link you asked for yourself, in your own direct message with the app. Anyone can give their chat account any name; check the user id and e-mail above.</p>
<form method="post" action="${action}" class="stack">
${csrf}
<button type="submit" class="primary" autofocus>Link my account</button>
</form>
<form method="post" action="/signout" class="stack">
${csrf}
<button type="submit" class="link-button">Not @${person.handle}? Sign out and sign in as yourself</button>
</form>`;
}

/** Linked already, to this person or another. */
export function alreadyLinkedPage(
  check: Extract<LinkCheck, { state: 'valid' }>,
  wording: WordingOf,
  person: Person,
): SafeHtml {
  const mine = check.linkedTo?.id === person.id;
  return html`${notice(
    mine
      ? 'This chat account is already linked to your Switchboard account.'
      : 'This chat account is already linked to another Switchboard account, and a chat account links to one person only. Unlink it from that account first.',
    mine ? 'info' : 'error',
  )}
<p class="link-account">${chatAccount(check.identity, wording, check.subject.tenantName)}</p>
${back}`;
}

/** The link did it. */
export function linkedPage(identity: ExternalIdentity, wording: WordingOf, person: Person): SafeHtml {
  const surface = wording(identity.surface).app;
  return html`${notice(`Linked as @${person.handle}.`, 'info')}
<p>${identity.displayName || identity.externalUserId} in ${surface} is now linked to your Switchboard account. You can close this page and go back to ${surface}.</p>
${back}`;
}

/** A link that cannot be used: why, and how to get a new one. */
export function refusedPage(sentence: string): SafeHtml {
  return html`${notice(sentence)}
${back}`;
}

/** How to link a first account, from what each surface registered (`LinkWording.ask`, its commands in backticks shown as code). */
function howToLink(asks: string[]): SafeHtml {
  if (!asks.length)
    return html`Ask the Switchboard app in your chat app for a link, or use the link it sent you in a direct message.`;
  const phrases = asks.map((a) => a.split('`').map((part, i) => (i % 2 ? html`<code>${part}</code>` : html`${part}`)));
  const joined = phrases.flatMap((p, i) => (i ? [html`; or `, p] : [p]));
  return html`To link one, ${joined}; or use the link the app sent you in a direct message.`;
}

/** The person's linked chat accounts, each with an Unlink button. */
export function linkedAccountsPage(
  identities: ExternalIdentity[],
  wording: WordingOf,
  asks: string[],
  csrf: SafeHtml,
  info?: string,
): SafeHtml {
  const rows = identities.map(
    (i) => html`<li class="linked-account">
<span>${chatAccount(i, wording, '')}${i.linkedAt ? html`<br><span class="hint">linked ${i.linkedAt.toISOString().slice(0, 10)}</span>` : null}</span>
<form method="post" action="/account/links/${encodeURIComponent(i.id)}/unlink">${csrf}<button type="submit" aria-label="Unlink ${i.displayName || i.externalUserId} (${wording(i.surface).app})">Unlink</button></form>
</li>`,
  );
  return html`${notice(info, 'info')}
${
  rows.length
    ? html`<ul class="linked-accounts stack">${rows}</ul>`
    : html`<p>No chat account is linked yet. ${howToLink(asks)}</p>`
}
<p class="hint">A linked account lets agents act for you with your access when you write to them from that chat app. Unlinked, you talk to agents as a guest.</p>
<p><a href="/">Go to the chat</a></p>`;
}
