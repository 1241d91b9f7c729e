import { escapeHtml } from '../auth/pages.ts';

/**
 * The chat page: a static skeleton that /assets/app.js fills in. The CSRF
 * token rides in a meta tag so scripts can send it with every change.
 */
export function chatShell(o: { csrf: string; displayName: string; handle: string }): string {
  const csrf = escapeHtml(o.csrf);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="${csrf}">
<title>Switchboard</title>
<link rel="stylesheet" href="/assets/app.css">
<link rel="stylesheet" href="/assets/approvals.css">
<link rel="icon" href="/assets/icon.svg" type="image/svg+xml">
<script type="module" src="/assets/app.js"></script>
</head>
<body class="chat">
<a class="skip-link" href="#main">Skip to the conversation</a>
<header class="topbar">
  <button id="menu-toggle" class="icon-button only-narrow" type="button" aria-controls="sidebar" aria-expanded="false">
    <span aria-hidden="true">☰</span><span class="visually-hidden">Show channels and conversations</span>
  </button>
  <span class="brand"><img src="/assets/icon.svg" alt="" width="24" height="24"><span class="brand-name">Switchboard</span></span>
  <label for="workspace-select" class="visually-hidden">Workspace</label>
  <select id="workspace-select"></select>
  <form id="search-form" role="search" class="search">
    <label for="search-input" class="visually-hidden">Search messages</label>
    <input id="search-input" type="search" placeholder="Search messages" autocomplete="off">
  </form>
  <details class="user-menu">
    <summary><span class="avatar avatar-small" aria-hidden="true"></span><span class="user-name">${escapeHtml(o.displayName)}</span></summary>
    <div class="menu">
      <p class="menu-handle">@${escapeHtml(o.handle)}</p>
      <a href="/account">Password</a>
      <a href="/account/links">Linked accounts</a>
      <form method="post" action="/signout"><input type="hidden" name="_csrf" value="${csrf}"><button type="submit">Sign out</button></form>
    </div>
  </details>
</header>
<div class="layout">
  <nav id="sidebar" class="sidebar" aria-label="Conversations">
    <a id="nav-inbox" class="nav-item" href="#">Inbox <span class="badge" hidden></span></a>
    <a id="nav-agents" class="nav-item" href="#">Agents</a>
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
<noscript><p class="notice notice-error">The chat needs JavaScript.</p></noscript>
</body>
</html>`;
}
