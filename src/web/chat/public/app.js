// The web chat: routes (#/w/<workspace>/…), the sidebar, live updates, and the views in views.js and agents.js.
import { api, follow, w } from './api.js';
import { agentsView } from './agents.js';
import { addWaitingApprovals, showApprovals, updateApproval } from './approvals.js';
import { dialogForm, field, newChannelDialog, newDmDialog, browseChannelsDialog, openDialog } from './dialogs.js';
import { announce, avatar, h } from './dom.js';
import { appendMessage, conversationView, inboxView, searchView, setThreadCount, threadView } from './views.js';

const $ = (id) => document.getElementById(id);
const state = {
  me: null, ws: null, sidebar: null, directory: [], source: null,
  /** The open channel or DM: its conversation, message list and thread handlers. */
  main: null,
  /** The open thread panel. */
  thread: null,
  view: null,
  seen: new Set(),
};

function parseRoute() {
  const [path, query = ''] = location.hash.replace(/^#/, '').split('?');
  const p = path.split('/').filter(Boolean).map(decodeURIComponent);
  if (p[0] !== 'w' || !p[1]) return null;
  if (p[2] === 'c' && p[3]) return { ws: p[1], view: 'conversation', id: p[3], thread: p[4] === 't' ? p[5] ?? null : null };
  if (p[2] === 'inbox' || p[2] === 'agents') return { ws: p[1], view: p[2] };
  if (p[2] === 'search') return { ws: p[1], view: 'search', q: new URLSearchParams(query).get('q') ?? '' };
  return { ws: p[1], view: 'home' };
}

const link = (path) => `#/w/${encodeURIComponent(state.ws)}${path}`;
const debounce = (fn, ms) => { let t; return (...a) => { clearTimeout(t); t = setTimeout(() => fn(...a), ms); }; };

// ---------------------------------------------------------------- sidebar

function badge(n) {
  return n ? h('span', { class: 'badge' }, n > 99 ? '99+' : String(n), h('span', { class: 'visually-hidden' }, ' unread')) : null;
}

function renderSidebar() {
  const s = state.sidebar;
  if (!s) return;
  const current = state.main?.conversation.id;
  const item = (href, icon, name, unread, id) => h('li', {}, h('a', {
    href, class: unread ? 'unread' : '', 'aria-current': id && id === current ? 'page' : false, dataset: { id: id ?? '' },
  }, h('span', { 'aria-hidden': 'true' }, icon), h('span', { class: 'name' }, name), badge(unread)));
  $('channel-list').replaceChildren(...s.channels.filter((c) => c.member).map((c) => item(link(`/c/${c.id}`), c.restricted ? '🔒' : '#', c.name, c.unread, c.id)));
  $('dm-list').replaceChildren(...s.conversations.map((c) => item(link(`/c/${c.id}`), c.kind === 'dm' ? '●' : '↗', c.title, c.unread, c.id)));
  if (!s.conversations.length) $('dm-list').append(h('li', { class: 'hint' }, h('span', { class: 'name' }, 'None yet')));
  const inbox = $('nav-inbox');
  inbox.querySelector('.badge').hidden = !s.inboxUnread;
  inbox.querySelector('.badge').textContent = s.inboxUnread ? String(s.inboxUnread) : '';
  inbox.setAttribute('aria-label', s.inboxUnread ? `Inbox, ${s.inboxUnread} unread` : 'Inbox');
  inbox.classList.toggle('unread', Boolean(s.inboxUnread));
  inbox.setAttribute('aria-current', state.view === 'inbox' ? 'page' : 'false');
  $('nav-agents').setAttribute('aria-current', state.view === 'agents' ? 'page' : 'false');
  const total = s.inboxUnread + s.channels.reduce((n, c) => n + c.unread, 0) + s.conversations.reduce((n, c) => n + c.unread, 0);
  const where = state.main?.conversation.title ?? { inbox: 'Inbox', agents: 'Agents', search: 'Search' }[state.view] ?? '';
  document.title = `${total ? `(${total}) ` : ''}${where ? `${where} · ` : ''}Switchboard`;
}

async function refreshSidebar() {
  state.sidebar = await api('GET', w(state.ws, '/sidebar'));
  renderSidebar();
}
const sidebarSoon = debounce(() => refreshSidebar().catch(() => {}), 250);

/** Agents and people of the workspace: for @mentions and new DMs. */
async function loadDirectory() {
  const data = await api('GET', w(state.ws, '/agents'));
  const bare = (name) => name.split('/').pop();
  const count = new Map();
  for (const a of data.agents) count.set(bare(a.name), (count.get(bare(a.name)) ?? 0) + 1);
  for (const p of data.people) count.set(p.handle, (count.get(p.handle) ?? 0) + 1);
  state.directory = [
    ...data.agents.map((a) => ({ id: a.id, kind: 'agent', displayName: a.displayName, roleLine: a.roleLine, mention: count.get(bare(a.name)) > 1 ? a.name : bare(a.name) })),
    ...data.people.map((p) => ({ id: p.id, kind: 'person', displayName: p.displayName, mention: p.handle })),
  ];
  state.meAgentId = data.people.find((p) => p.handle === state.me.person.handle)?.id;
}

// ---------------------------------------------------------------- live updates

const markRead = debounce((id) => {
  if (document.visibilityState !== 'visible') return;
  api('POST', w(state.ws, `/conversations/${id}/read`)).then(sidebarSoon, () => {});
}, 150);

/** A message arrived (live, or as the answer to our own post): put it wherever it shows. */
function receive(m, c) {
  if (state.seen.has(m.id)) return;
  state.seen.add(m.id);
  const mainId = state.main?.conversation.id;
  if (c.id === mainId) { appendMessage(state.main.list, m, state.main.threadOpts); markRead(c.id); }
  if (state.thread && c.id === state.thread.conversation.id) { appendMessage(state.thread.list, m, {}); markRead(c.id); }
  if (c.kind === 'thread' && c.parentId === mainId && c.rootMessageId) {
    const li = state.main.list.querySelector(`#m-${CSS.escape(c.rootMessageId)}`);
    const before = li ? JSON.parse(li.dataset.message ?? '{}').thread : null;
    setThreadCount(state.main.list, c.rootMessageId, { conversationId: c.id, replies: (before?.replies ?? 0) + 1, lastReplyAt: m.createdAt }, state.main.threadOpts);
  }
  if (m.sender.id !== state.meAgentId && c.id !== mainId && c.id !== state.thread?.conversation.id) {
    announce(`New message from ${m.sender.displayName} in ${c.title}`);
  }
}

function connect() {
  state.source?.close();
  state.source = follow(state.ws, {
    message: ({ message, conversation }) => {
      receive(message, conversation);
      // In the open conversation the message is read at once (markRead refreshes the sidebar after); elsewhere it counts as unread.
      const open = conversation.id === state.main?.conversation.id || conversation.id === state.thread?.conversation.id;
      if (!open) sidebarSoon();
    },
    sidebar: sidebarSoon,
    inbox: () => { sidebarSoon(); if (state.view === 'inbox') inboxSoon(); },
    approval: (card) => updateApproval(state.ws, card, {
      listFor: (id) => (id === state.main?.conversation.id ? state.main.list : id === state.thread?.conversation.id ? state.thread.list : null),
    }),
    reconnect: () => { state.main = null; state.thread = null; route(); sidebarSoon(); },
  });
}

// ---------------------------------------------------------------- views

const ctx = {
  mentionables: () => state.directory.filter((d) => d.id !== state.meAgentId),
  async openThread(m) {
    const r = await api('POST', w(state.ws, `/messages/${m.id}/thread`));
    location.hash = link(`/c/${state.main.conversation.id}/t/${r.conversation.id}`);
  },
  closeThread() { location.hash = link(`/c/${state.main.conversation.id}`); },
  async send(conversationId, body) {
    const r = await api('POST', w(state.ws, `/conversations/${conversationId}/messages`), { body });
    if (r.message) {
      const c = conversationId === state.thread?.conversation.id ? state.thread.conversation : state.main.conversation;
      receive(r.message, c);
    }
    return r.notices;
  },
  async join(c) { await api('POST', w(state.ws, `/channels/${c.id}/join`)); state.main = null; await route(); sidebarSoon(); },
  async leave(c) {
    await api('POST', w(state.ws, `/channels/${c.id}/leave`));
    await refreshSidebar();
    location.hash = link('');
  },
  addPeople(c) {
    openDialog(`Add people to ${c.title}`, (close) => dialogForm(
      field('handle', 'Handle', { required: true, autofocus: true, autocomplete: 'off' }, 'Someone who can reach this workspace, e.g. bob.'),
      'Add', async (v) => { const r = await api('POST', w(state.ws, `/channels/${c.id}/members`), { handle: v.handle }); close(); announce(`Added @${r.added} to #${r.channel}.`); }, close));
  },
};

async function showConversation(r, stale = () => false) {
  if (state.main?.conversation.id !== r.id) {
    const data = await api('GET', w(state.ws, `/conversations/${r.id}`));
    if (stale()) return;
    const { view, list, threadOpts } = conversationView(ctx, data);
    data.messages.forEach((m) => state.seen.add(m.id));
    $('main').replaceChildren(view);
    state.main = { conversation: data.conversation, list, threadOpts };
    showApprovals(state.ws, data.conversation.id, list).catch(() => {});
    (view.querySelector('#composer-input') ?? view.querySelector('h1'))?.focus();
    sidebarSoon();
  }
  if (r.thread) await showThread(r.thread, stale); else hideThread();
  renderSidebar();
}

async function showThread(id, stale = () => false) {
  if (state.thread?.conversation.id === id) return;
  const data = await api('GET', w(state.ws, `/conversations/${id}`));
  if (stale()) return;
  const { view, list, input } = threadView(ctx, data);
  data.messages.forEach((m) => state.seen.add(m.id));
  const panel = $('thread-panel');
  panel.replaceChildren(...view.filter(Boolean));
  panel.hidden = false;
  state.thread = { conversation: data.conversation, list };
  showApprovals(state.ws, id, list).catch(() => {});
  input.focus();
}

function hideThread() {
  $('thread-panel').hidden = true;
  $('thread-panel').replaceChildren();
  state.thread = null;
}

async function showPage(node, focus = true) {
  state.main = null;
  hideThread();
  $('main').replaceChildren(node);
  if (focus) node.querySelector('h1')?.focus();
  renderSidebar();
}

const inboxSoon = debounce(async () => {
  const items = (await api('GET', w(state.ws, '/inbox'))).items;
  const page = await addWaitingApprovals(state.ws, inboxView(state.ws, items));
  if (state.view === 'inbox') { await showPage(page, false); sidebarSoon(); }
}, 300);

const agentsCtx = {
  get ws() { return state.ws; },
  get me() { return state.me.person; },
  async openDm(agentId) {
    const r = await api('POST', w(state.ws, '/dms'), { agentId });
    location.hash = link(`/c/${r.conversation.id}`);
  },
  refresh() { loadDirectory(); route(); },
};

async function enterWorkspace(ws) {
  state.ws = ws;
  state.main = null;
  state.seen.clear();
  hideThread();
  $('workspace-select').value = ws;
  $('nav-inbox').href = link('/inbox');
  $('nav-agents').href = link('/agents');
  connect();
  await Promise.all([refreshSidebar(), loadDirectory()]);
}

let routeSeq = 0;

async function route() {
  const seq = ++routeSeq;
  // A newer navigation may start while this one waits for the server; then this one gives way.
  const stale = () => seq !== routeSeq;
  const r = parseRoute();
  const slugs = state.me.workspaces.map((x) => x.slug);
  if (!slugs.length) {
    $('main').replaceChildren(h('p', { class: 'empty' }, 'You are not in any workspace yet. Ask an admin of your organization to add you.'));
    return;
  }
  if (!r || !slugs.includes(r.ws)) { location.replace(`#/w/${encodeURIComponent(slugs[0])}`); return; }
  try {
    if (r.ws !== state.ws) await enterWorkspace(r.ws);
    if (r.view === 'home') {
      const general = state.sidebar.channels.find((c) => c.name === 'general') ?? state.sidebar.channels[0];
      location.replace(link(general ? `/c/${general.id}` : '/agents'));
      return;
    }
    state.view = r.view;
    closeMenu();
    if (r.view === 'conversation') return await showConversation(r, stale);
    let page;
    if (r.view === 'inbox') page = await addWaitingApprovals(state.ws, inboxView(state.ws, (await api('GET', w(state.ws, '/inbox'))).items));
    else if (r.view === 'agents') page = await agentsView(agentsCtx);
    else if (r.view === 'search') page = searchView(state.ws, r.q, (await api('GET', w(state.ws, `/search?q=${encodeURIComponent(r.q)}`))).results);
    if (!page || stale()) return;
    if (r.view === 'search') $('search-input').value = r.q;
    await showPage(page);
    if (r.view === 'inbox') sidebarSoon();
  } catch (err) {
    state.main = null;
    $('main').replaceChildren(h('div', { class: 'page' }, h('h1', { tabindex: '-1' }, 'Not available'), h('p', { class: 'notice notice-error', role: 'alert' }, err.message)));
  }
}

// ---------------------------------------------------------------- chrome

function closeMenu() {
  $('sidebar').classList.remove('open');
  $('menu-toggle').setAttribute('aria-expanded', 'false');
}

function wire() {
  const select = $('workspace-select');
  select.replaceChildren(...state.me.workspaces.map((x) => h('option', { value: x.slug }, x.name)));
  select.addEventListener('change', () => { location.hash = `#/w/${encodeURIComponent(select.value)}`; });
  $('search-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const q = $('search-input').value.trim();
    if (q) location.hash = link(`/search?q=${encodeURIComponent(q)}`);
  });
  $('new-channel').addEventListener('click', () => newChannelDialog(state.ws, (c) => { sidebarSoon(); location.hash = link(`/c/${c.id}`); }));
  $('browse-channels').addEventListener('click', () => browseChannelsDialog(state.ws, state.sidebar.channels, async (c) => {
    await api('POST', w(state.ws, `/channels/${c.id}/join`));
    state.main = null;
    await refreshSidebar();
    location.hash = link(`/c/${c.id}`);
  }));
  $('new-dm').addEventListener('click', () => newDmDialog(state.ws, state.directory, state.meAgentId, (d) => agentsCtx.openDm(d.id)));
  $('menu-toggle').addEventListener('click', () => {
    const open = $('sidebar').classList.toggle('open');
    $('menu-toggle').setAttribute('aria-expanded', String(open));
    if (open) $('sidebar').querySelector('a')?.focus();
  });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && $('sidebar').classList.contains('open')) closeMenu();
    else if (e.key === 'Escape' && state.thread && !$('dialog').open) ctx.closeThread();
  });
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && state.main) markRead(state.main.conversation.id);
  });
  window.addEventListener('hashchange', () => route());
}

async function boot() {
  state.me = await api('GET', '/me');
  document.querySelector('.user-menu .avatar')?.replaceWith(avatar({ id: state.me.person.id, displayName: state.me.person.displayName }, 'avatar-small'));
  wire();
  await route();
  if (!state.me.hasPassword) {
    const note = h('p', { class: 'notice notice-info', role: 'status' }, 'You signed in with a one-time link. ', h('a', { href: '/account' }, 'Set a password'), ' to sign in again later.');
    $('sidebar').prepend(note);
  }
}

boot().catch((err) => {
  $('main').replaceChildren(h('p', { class: 'notice notice-error', role: 'alert' }, `The chat could not start: ${err.message}`));
});
