import type { Response } from 'express';
import { html, type SafeHtml } from '../html.ts';

/** Strict headers for the server-rendered pages and the chat: no inline scripts, no framing, no referrer leaks. */
export function securityHeaders(res: Response, opts: { noReferrer?: boolean } = {}) {
  res.set({
    'content-security-policy':
      "default-src 'self'; img-src 'self' https: data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': opts.noReferrer ? 'no-referrer' : 'same-origin',
    'cache-control': 'no-store',
  });
}

/** A notice above a form; `role=alert` so screen readers announce it. */
export function notice(text: string | undefined, kind: 'error' | 'info' = 'error'): SafeHtml {
  if (!text) return html``;
  return html`<p class="notice notice-${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</p>`;
}

export function passwordForm(o: {
  csrf: SafeHtml;
  next: string;
  handle?: string;
  error?: string;
  info?: string;
}): SafeHtml {
  return html`${notice(o.error)}${notice(o.info, 'info')}
<form method="post" action="/signin" class="stack">
${o.csrf}
<input type="hidden" name="next" value="${o.next}">
<label for="handle">Handle</label>
<input id="handle" name="handle" autocomplete="username" autocapitalize="none" spellcheck="false" required value="${o.handle ?? ''}" ${o.handle ? '' : html`autofocus`}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required ${o.handle ? html`autofocus` : ''}>
<button type="submit" class="primary">Sign in</button>
</form>
<p class="hint">No password yet? Use the one-time sign-in link you were given (from <code>switchboard init</code> or <code>switchboard person add --invite</code>), then set one.</p>`;
}

export function linkForm(o: {
  csrf: SafeHtml;
  next: string;
  token: string;
  displayName: string;
  handle: string;
}): SafeHtml {
  return html`<p>This one-time link signs you in as <strong>${o.displayName}</strong> (@${o.handle}).</p>
<form method="post" action="/signin/link" class="stack">
${o.csrf}
<input type="hidden" name="token" value="${o.token}">
<input type="hidden" name="next" value="${o.next}">
<button type="submit" class="primary" autofocus>Continue as ${o.displayName}</button>
</form>
<p class="hint">Not you? Close this page; the link stays unused.</p>`;
}

export function accountForm(o: {
  csrf: SafeHtml;
  hasPassword: boolean;
  handle: string;
  error?: string;
  info?: string;
}): SafeHtml {
  return html`${notice(o.error)}${notice(o.info, 'info')}
<form method="post" action="/account/password" class="stack">
${o.csrf}
<input type="text" name="username" autocomplete="username" value="${o.handle}" hidden>
${
  o.hasPassword
    ? html`<label for="current">Current password</label>
<input id="current" name="current" type="password" autocomplete="current-password" required autofocus>`
    : null
}
<label for="new-password">${o.hasPassword ? 'New password' : 'Password'}</label>
<input id="new-password" name="password" type="password" autocomplete="new-password" minlength="10" required aria-describedby="pw-hint" ${o.hasPassword ? '' : html`autofocus`}>
<p id="pw-hint" class="hint">At least 10 characters. Setting it signs out your other browsers.</p>
<label for="confirm">Repeat it</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" required>
<button type="submit" class="primary">${o.hasPassword ? 'Change password' : 'Set password'}</button>
</form>
<p><a href="/">Go to the chat</a></p>`;
}
