// The one page frame of the web app: the chat, the documents pages and the
// small card pages (sign-in, account, linking) share its head, stylesheet
// (with its dark theme), brand and user menu.
import { html, type HtmlValue, type SafeHtml } from './html.ts';

/** The signed-in person the top bar names, and the CSRF field its sign-out form posts. */
export interface PageUser {
  displayName: string;
  handle: string;
  csrfField: SafeHtml;
  /** Where the menu's Documents entry leads (a workspace's documents, or the list of them). */
  docsHref?: string;
}

function frame(o: {
  title: string;
  bodyClass: string;
  body: HtmlValue;
  styles?: string[];
  script?: string;
  meta?: SafeHtml;
}): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${o.meta}
<title>${o.title}</title>
<link rel="stylesheet" href="/assets/app.css">
${(o.styles ?? []).map((href) => html`<link rel="stylesheet" href="${href}">\n`)}<link rel="icon" href="/assets/icon.svg" type="image/svg+xml">
${o.script ? html`<script type="module" src="${o.script}"></script>` : null}
</head>
<body class="${o.bodyClass}">
${o.body}
</body>
</html>`.toString();
}

const initials = (name: string) =>
  name
    .split(/\s+/)
    .map((p) => p[0] ?? '')
    .join('')
    .slice(0, 2)
    .toUpperCase();

/** The person's menu: documents, password, linked accounts, sign out. */
export function userMenu(u: PageUser, o: { chatLink?: boolean } = {}): SafeHtml {
  return html`<details class="user-menu">
    <summary><span class="avatar avatar-small" aria-hidden="true">${initials(u.displayName)}</span><span class="user-name">${u.displayName}</span></summary>
    <div class="menu">
      <p class="menu-handle">@${u.handle}</p>
      ${o.chatLink ? html`<a href="/">Chat</a>` : null}
      <a id="menu-docs" href="${u.docsHref ?? '/docs'}">Documents</a>
      <a id="menu-settings" href="/#/settings">Settings</a>
      <a href="/account">Password</a>
      <a href="/account/links">Linked accounts</a>
      <form method="post" action="/signout">${u.csrfField}<button type="submit">Sign out</button></form>
    </div>
  </details>`;
}

/** The brand at the left of the top bar, leading back to the chat. */
export const brand = html`<a class="brand" href="/"><img src="/assets/icon.svg" alt="" width="24" height="24"><span class="brand-name">Switchboard</span></a>`;

/** A full-width app page (the chat, the documents): top bar, then the content. */
export function appPage(o: {
  title: string;
  bodyClass: string;
  topbar: HtmlValue;
  body: HtmlValue;
  skipTo?: string;
  styles?: string[];
  script?: string;
  meta?: SafeHtml;
}): string {
  return frame({
    ...o,
    body: html`<a class="skip-link" href="#${o.skipTo ?? 'main'}">Skip to the content</a>
<header class="topbar">${o.topbar}</header>
${o.body}`,
  });
}

/** A small centred card page (sign-in, account, linking). */
export function cardPage(title: string, body: HtmlValue): string {
  return frame({
    title: `${title} · Switchboard`,
    bodyClass: 'card-page',
    body: html`<main class="card" aria-labelledby="page-title">
<p class="brand" aria-hidden="true"><img src="/assets/icon.svg" alt="" width="28" height="28"> Switchboard</p>
<h1 id="page-title">${title}</h1>
${body}
</main>`,
  });
}
