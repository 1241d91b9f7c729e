import type { Response } from 'express';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ENTITIES[c]);

/** Strict headers for the server-rendered pages and the chat: no inline scripts, no framing, no referrer leaks. */
export function securityHeaders(res: Response, opts: { noReferrer?: boolean } = {}) {
  res.set({
    'content-security-policy': "default-src 'self'; img-src 'self' https: data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': opts.noReferrer ? 'no-referrer' : 'same-origin',
    'cache-control': 'no-store',
  });
}

/** A small centred card page (sign-in, account) sharing the chat's stylesheet. */
export function cardPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Switchboard</title>
<link rel="stylesheet" href="/assets/app.css">
<link rel="icon" href="/assets/icon.svg" type="image/svg+xml">
</head>
<body class="card-page">
<main class="card" aria-labelledby="page-title">
<p class="brand" aria-hidden="true"><img src="/assets/icon.svg" alt="" width="28" height="28"> Switchboard</p>
<h1 id="page-title">${escapeHtml(title)}</h1>
${body}
</main>
</body>
</html>`;
}

/** A notice above a form; `role=alert` so screen readers announce it. */
export function notice(text: string | undefined, kind: 'error' | 'info' = 'error'): string {
  if (!text) return '';
  return `<p class="notice notice-${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${escapeHtml(text)}</p>`;
}

export function passwordForm(o: { csrf: string; next: string; handle?: string; error?: string; info?: string }): string {
  return `${notice(o.error)}${notice(o.info, 'info')}
<form method="post" action="/signin" class="stack">
${o.csrf}
<input type="hidden" name="next" value="${escapeHtml(o.next)}">
<label for="handle">Handle</label>
<input id="handle" name="handle" autocomplete="username" autocapitalize="none" spellcheck="false" required value="${escapeHtml(o.handle ?? '')}" ${o.handle ? '' : 'autofocus'}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required ${o.handle ? 'autofocus' : ''}>
<button type="submit" class="primary">Sign in</button>
</form>
<p class="hint">No password yet? Use the one-time sign-in link you were given (from <code>switchboard init</code> or <code>switchboard person add --invite</code>), then set one.</p>`;
}

export function linkForm(o: { csrf: string; next: string; token: string; displayName: string; handle: string }): string {
  return `<p>This one-time link signs you in as <strong>${escapeHtml(o.displayName)}</strong> (@${escapeHtml(o.handle)}).</p>
<form method="post" action="/signin/link" class="stack">
${o.csrf}
<input type="hidden" name="token" value="${escapeHtml(o.token)}">
<input type="hidden" name="next" value="${escapeHtml(o.next)}">
<button type="submit" class="primary" autofocus>Continue as ${escapeHtml(o.displayName)}</button>
</form>
<p class="hint">Not you? Close this page; the link stays unused.</p>`;
}

export function accountForm(o: { csrf: string; hasPassword: boolean; handle: string; error?: string; info?: string }): string {
  return `${notice(o.error)}${notice(o.info, 'info')}
<form method="post" action="/account/password" class="stack">
${o.csrf}
<input type="text" name="username" autocomplete="username" value="${escapeHtml(o.handle)}" hidden>
${o.hasPassword ? `<label for="current">Current password</label>
<input id="current" name="current" type="password" autocomplete="current-password" required autofocus>` : ''}
<label for="new-password">${o.hasPassword ? 'New password' : 'Password'}</label>
<input id="new-password" name="password" type="password" autocomplete="new-password" minlength="10" required aria-describedby="pw-hint" ${o.hasPassword ? '' : 'autofocus'}>
<p id="pw-hint" class="hint">At least 10 characters. Setting it signs out your other browsers.</p>
<label for="confirm">Repeat it</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" required>
<button type="submit" class="primary">${o.hasPassword ? 'Change password' : 'Set password'}</button>
</form>
<p><a href="/">Go to the chat</a></p>`;
}
