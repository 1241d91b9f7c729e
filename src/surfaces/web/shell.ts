import { html } from '../../http/html.ts';
import { appPage, brand, userMenu, type PageUser } from '../../http/layout.ts';

/**
 * The chat page: a static skeleton that /assets/app.js fills in. The CSRF
 * token rides in a meta tag so scripts can send it with every change. Until
 * the script runs, the links lead where they will (`#/inbox` is the open
 * workspace's inbox) and /assets/early.js keeps what is clicked for it.
 */
export function chatShell(o: {
  csrf: string;
  user: PageUser;
  workspaces: Array<{ slug: string; name: string }>;
}): string {
  return appPage({
    title: 'Switchboard',
    bodyClass: 'chat',
    script: '/assets/app.js',
    styles: ['/assets/approvals.css', '/assets/reactions.css'],
    meta: html`<meta name="csrf-token" content="${o.csrf}">
<script src="/assets/early.js"></script>`,
    topbar: html`
  <button id="menu-toggle" class="icon-button only-narrow" type="button" aria-controls="sidebar" aria-expanded="false">
    <span aria-hidden="true">☰</span><span class="visually-hidden">Show channels and conversations</span>
  </button>
  ${brand}
  <label for="workspace-select" class="visually-hidden">Workspace</label>
  <select id="workspace-select">${o.workspaces.map((w) => html`<option value="${w.slug}">${w.name}</option>`)}</select>
  <form id="search-form" role="search" class="search">
    <label for="search-input" class="visually-hidden">Search messages</label>
    <input id="search-input" type="search" placeholder="Search messages" autocomplete="off">
  </form>
  ${userMenu(o.user)}`,
    body: html`<div class="layout">
  <nav id="sidebar" class="sidebar" aria-label="Conversations">
    <a id="nav-inbox" class="nav-item" href="#/inbox">Inbox <span class="badge" hidden></span></a>
    <a id="nav-agents" class="nav-item" href="#/agents">Agents</a>
    <a id="nav-intake" class="nav-item" href="#/intake">Intake</a>
    <a id="nav-docs" class="nav-item" href="/docs">Documents</a>
    <section aria-labelledby="channels-heading">
      <div class="section-head"><h2 id="channels-heading">Channels</h2>
        <button id="new-channel" class="icon-button" type="button" title="Create a channel"><span aria-hidden="true">+</span><span class="visually-hidden">Create a channel</span></button></div>
      <ul id="channel-list" class="nav-list"></ul>
      <button id="browse-channels" class="link-button" type="button">Browse channels</button>
    </section>
    <section aria-labelledby="dms-heading">
      <div class="section-head"><h2 id="dms-heading">Direct messages</h2>
        <button id="new-dm" class="icon-button" type="button" title="Start a direct message"><span aria-hidden="true">+</span><span class="visually-hidden">Start a direct message</span></button></div>
      <ul id="dm-list" class="nav-list"></ul>
    </section>
  </nav>
  <main id="main" class="main" tabindex="-1"><p class="empty">Loading…</p></main>
  <aside id="thread-panel" class="thread-panel" aria-labelledby="thread-title" hidden></aside>
</div>
<dialog id="dialog" aria-labelledby="dialog-title"></dialog>
<div id="announcer" class="visually-hidden" aria-live="polite"></div>
<noscript><p class="notice notice-error">The chat needs JavaScript.</p></noscript>`,
  });
}
