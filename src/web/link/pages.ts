// The link page and the linked-accounts settings, as small server-rendered
// cards in the sign-in pages' style. Every value shown is escaped.
import type { LinkCheck } from '../../domain/linking/link-service.ts';
import { surfaceName } from '../../domain/linking/link-rules.ts';
import type { ExternalIdentity } from '../../domain/surfaces/ports.ts';
import type { Person } from '../../domain/types.ts';
import { escapeHtml, notice } from '../auth/index.ts';

/** "Carol Chen (carol@example.test) in the Slack team Acme". */
function chatAccount(i: ExternalIdentity, tenantName: string): string {
  const where = `${surfaceName(i.surface)} ${i.surface === 'slack' ? 'team' : 'tenant'} ${tenantName || i.tenantId}`;
  const email = i.email ? ` (${escapeHtml(i.email)})` : '';
  return `<strong>${escapeHtml(i.displayName || i.externalUserId)}</strong>${email} in the ${escapeHtml(where)}`;
}

/** Asks the signed-in person to confirm which chat account becomes theirs. */
export function confirmPage(check: Extract<LinkCheck, { state: 'valid' }>, person: Person, csrf: string, action: string): string {
  return `<p>Link this chat account</p>
<p class="link-account">${chatAccount(check.identity, check.subject.tenantName)}</p>
<p>to your Switchboard account <strong>${escapeHtml(person.displayName)}</strong> (@${escapeHtml(person.handle)})?</p>
<p class="hint">Agents will then see your messages from ${escapeHtml(surfaceName(check.identity.surface))} as yours and act with your access. You can unlink it at any time.</p>
<form method="post" action="${escapeHtml(action)}" class="stack">
${csrf}
<button type="submit" class="primary" autofocus>Link my account</button>
</form>
<form method="post" action="/signout" class="stack">
${csrf}
<button type="submit" class="link-button">Not @${escapeHtml(person.handle)}? Sign out and sign in as yourself</button>
</form>`;
}

/** Linked already, to this person or another. */
export function alreadyLinkedPage(check: Extract<LinkCheck, { state: 'valid' }>, person: Person): string {
  const mine = check.linkedTo?.id === person.id;
  return `${notice(mine ? 'This chat account is already linked to your Switchboard account.'
    : 'This chat account is already linked to another Switchboard account, and a chat account links to one person only. Unlink it from that account first.', mine ? 'info' : 'error')}
<p class="link-account">${chatAccount(check.identity, check.subject.tenantName)}</p>
<p><a href="/account/links">Your linked accounts</a> · <a href="/">Go to the chat</a></p>`;
}

/** The link did it. */
export function linkedPage(identity: ExternalIdentity, person: Person): string {
  return `${notice(`Linked as @${person.handle}.`, 'info')}
<p>${escapeHtml(identity.displayName || identity.externalUserId)} in ${escapeHtml(surfaceName(identity.surface))} is now linked to your Switchboard account. You can close this page and go back to ${escapeHtml(surfaceName(identity.surface))}.</p>
<p><a href="/account/links">Your linked accounts</a> · <a href="/">Go to the chat</a></p>`;
}

/** A link that cannot be used: why, and how to get a new one. */
export function refusedPage(sentence: string): string {
  return `${notice(sentence)}
<p><a href="/account/links">Your linked accounts</a> · <a href="/">Go to the chat</a></p>`;
}

/** The person's linked chat accounts, each with an Unlink button. */
export function linkedAccountsPage(identities: ExternalIdentity[], csrf: string, info?: string): string {
  const rows = identities.map((i) => `<li class="linked-account">
<span>${chatAccount(i, '')}${i.linkedAt ? `<br><span class="hint">linked ${escapeHtml(i.linkedAt.toISOString().slice(0, 10))}</span>` : ''}</span>
<form method="post" action="/account/links/${escapeHtml(i.id)}/unlink">${csrf}<button type="submit" aria-label="Unlink ${escapeHtml(i.displayName || i.externalUserId)} (${escapeHtml(surfaceName(i.surface))})">Unlink</button></form>
</li>`);
  return `${notice(info, 'info')}
${rows.length ? `<ul class="linked-accounts stack">${rows.join('\n')}</ul>`
    : '<p>No chat account is linked yet. In Slack, write <code>/switchboard link</code> to the Switchboard app, or use the link it sent you in a DM.</p>'}
<p class="hint">A linked account lets agents act for you with your access when you write to them from that chat app. Unlinked, you talk to agents as a guest.</p>
<p><a href="/">Go to the chat</a></p>`;
}
