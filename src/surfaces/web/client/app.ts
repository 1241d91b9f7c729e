// The web chat: routes (#/w/<workspace>/…), live updates, and the chrome
// around the views. All client state lives in the store (store.ts).
import { agentsView, type AgentsContext } from './agents.ts';
import { api, follow, w, type LiveState, type LiveStream } from './api.ts';
import { addWaitingApprovals, approvalCard, showApprovals, updateApproval } from './approvals.ts';
import { browseChannelsDialog, dialogForm, field, newChannelDialog, newDmDialog, openDialog } from './dialogs.ts';
import { announce, avatar, byId, debounce, h, redraw } from './dom.ts';
import { intakeFilter, intakeView } from './intake.ts';
import { addThreadReply, appendMessage, showChanged, showDeleted } from './messages.ts';
import { showLive } from './live.ts';
import { channelSettingsDialog, loadChannelSettings, mountChannelNotes, personalSettingsView } from './settings.ts';
import { link, mountSidebar } from './sidebar.ts';
import { Store, store, type ViewName } from './store.ts';
import type {
  AgentsList,
  Approval,
  ConversationInfo,
  History,
  InboxListing,
  Me,
  MessageView,
  Posted,
  SearchHit,
  SidebarView,
} from './types.ts';
import { conversationView, inboxView, searchView, threadView, type ConversationActions } from './views.ts';

type Route =
  | { ws: string; view: 'home' }
  | { ws: string; view: 'conversation'; id: string; thread: string | null }
  | { ws: string; view: 'inbox'; page: string }
  | { ws: string; view: 'agents' }
  | { ws: string; view: 'search'; q: string }
  | { ws: string; view: 'intake'; query: URLSearchParams; item: string | null }
  | { ws: string; view: 'approval'; id: string }
  | { ws: string; view: 'settings' };

/** `#/w/<ws>/…` (the inbox's page, `?page=2`, goes to the server as written: it says what is wrong with one); `#/inbox`, `#/agents`, `#/intake`, `#/settings` and `#/search?q=` (the links of the page before the script ran) mean the open workspace: ws is ''. */
function parseRoute(): Route | null {
  const [path, query = ''] = location.hash.replace(/^#/, '').split('?');
  let p = path.split('/').filter(Boolean).map(decodeURIComponent);
  if (['inbox', 'agents', 'search', 'intake', 'settings'].includes(p[0])) p = ['w', '', ...p];
  if (p[0] !== 'w' || (!p[1] && p.length < 3)) return null;
  if (p[2] === 'c' && p[3])
    return { ws: p[1], view: 'conversation', id: p[3], thread: p[4] === 't' ? (p[5] ?? null) : null };
  if (p[2] === 'inbox') {
    const page = new URLSearchParams(query).get('page') ?? '';
    return { ws: p[1], view: 'inbox', page: page === '1' ? '' : page };
  }
  if (p[2] === 'agents') return { ws: p[1], view: 'agents' };
  if (p[2] === 'intake')
    return { ws: p[1], view: 'intake', query: new URLSearchParams(query), item: p.length === 4 ? p[3] : null };
  if (p[2] === 'approvals' && p.length === 4) return { ws: p[1], view: 'approval', id: p[3] };
  if (p[2] === 'settings') return { ws: p[1], view: 'settings' };
  if (p[2] === 'search') return { ws: p[1], view: 'search', q: new URLSearchParams(query).get('q') ?? '' };
  return { ws: p[1], view: 'home' };
}

/** The open workspace; routes run only once one is chosen. */
const ws = () => store.state.ws!;

async function refreshSidebar() {
  store.update({ sidebar: await api<SidebarView>('GET', w(ws(), '/sidebar')) });
}
const sidebarSoon = debounce(() => {
  refreshSidebar().catch(() => {});
}, 250);

/** Agents and people of the workspace: for @mentions and new DMs. */
async function loadDirectory() {
  const data = await api<AgentsList>('GET', w(ws(), '/agents'));
  const bare = (name: string) => name.split('/').pop() ?? name;
  const count = new Map<string, number>();
  for (const a of data.agents) count.set(bare(a.name), (count.get(bare(a.name)) ?? 0) + 1);
  for (const p of data.people) count.set(p.handle, (count.get(p.handle) ?? 0) + 1);
  store.update({
    directory: [
      ...data.agents.map((a) => ({
        id: a.id,
        kind: 'agent' as const,
        displayName: a.displayName,
        roleLine: a.roleLine,
        mention: (count.get(bare(a.name)) ?? 0) > 1 ? a.name : bare(a.name),
      })),
      ...data.people.map((p) => ({ id: p.id, kind: 'person' as const, displayName: p.displayName, mention: p.handle })),
    ],
    meAgentId: data.people.find((p) => p.handle === store.state.me?.person.handle)?.id ?? null,
  });
}

// ---------------------------------------------------------------- live updates

const markRead = debounce((id: string) => {
  if (document.visibilityState !== 'visible') return;
  api('POST', w(ws(), `/conversations/${id}/read`)).then(sidebarSoon, () => {});
}, 150);

/** A message arrived (live, or as the answer to our own post): put it wherever it shows. */
function receive(m: MessageView, c: ConversationInfo) {
  const { seen, main, thread, meAgentId } = store.state;
  if (seen.has(m.id)) return;
  seen.add(m.id);
  const open = store.open(c.id);
  if (open) {
    appendMessage(open, m);
    markRead(c.id);
  }
  if (c.kind === 'thread' && main && c.parentId === main.conversation.id && c.rootMessageId) {
    addThreadReply(main, c.rootMessageId, { conversationId: c.id, createdAt: m.createdAt });
  }
  if (m.sender.id !== meAgentId && c.id !== main?.conversation.id && c.id !== thread?.conversation.id) {
    announce(`New message from ${m.sender.displayName} in ${c.title}`);
  }
}

/** Reloads what the page shows when events may have been missed: the stream dropped, or the server's wake-ups had a gap. */
function catchUp() {
  store.update({ main: null, thread: null });
  route();
  sidebarSoon();
}

let source: LiveStream | null = null;
/** The workspace whose live events the server refused for good (403/404): its routes show why instead. */
let refusedWs: string | null = null;

function connect() {
  source?.close();
  refusedWs = null;
  showTrouble(null);
  source = follow(ws(), {
    message: ({ message, conversation }) => {
      receive(message, conversation);
      // In the open conversation the message is read at once (markRead refreshes the sidebar after); elsewhere it counts as unread.
      if (!store.open(conversation.id)) sidebarSoon();
    },
    changed: ({ message }) => showChanged(message),
    deleted: ({ id }) => showDeleted(id),
    sidebar: sidebarSoon,
    inbox: () => {
      sidebarSoon();
      if (store.state.view === 'inbox') inboxSoon();
    },
    approval: (card) => updateApproval(ws(), card, { listFor: (id) => store.open(id)?.list ?? null }),
    channel: ({ id }) => {
      if (store.state.main?.conversation.id === id) loadChannelSettings(ws()).catch(() => {});
    },
    live: (activity) => {
      const open = store.open(activity.conversation_id);
      if (open) showLive(open, activity);
    },
    reconnect: catchUp,
    resync: catchUp,
    state: liveState,
  });
}

function liveState(s: LiveState) {
  showTrouble(s.state === 'trouble' ? s.retryInMs : null);
  if (s.state === 'refused') {
    refusedWs = ws();
    showRefused();
  }
}

/** A note over the top of the page while the server fails the event stream (null takes it away). */
function showTrouble(retryInMs: number | null) {
  let note = document.getElementById('live-trouble');
  if (retryInMs === null) {
    note?.remove();
    return;
  }
  if (!note) {
    note = h('p', { id: 'live-trouble', class: 'notice notice-error live-trouble', role: 'status' });
    document.body.append(note);
  }
  note.textContent = `The server is having trouble, so new messages may not show up here for now. Trying again in ${Math.ceil(retryInMs / 1000)} s…`;
}

/** The final word once the server no longer lets the person into the open workspace: nothing more arrives here. */
function showRefused() {
  routeSeq++; // a navigation still waiting for the server must not draw over this
  hideThread();
  store.update({ main: null });
  // The workspace's channels and conversations are no longer theirs to see: the list goes with the access.
  showSidebar(false);
  const name = store.state.me?.workspaces.find((x) => x.slug === ws())?.name ?? ws();
  const heading = h('h1', { tabindex: '-1' }, 'You no longer have access to this workspace');
  byId('main').replaceChildren(
    h(
      'div',
      { class: 'page', id: 'access-ended' },
      heading,
      h(
        'p',
        { class: 'notice notice-error', role: 'alert' },
        `This page stopped following ${name} because you were taken out of it or out of its organization, so nothing new will arrive here.`,
      ),
      h(
        'p',
        {},
        h('a', { href: '/' }, 'Go to your workspaces'),
        ', ',
        h('a', { href: '/signin' }, 'sign in again'),
        ' (perhaps with another account), or ask an admin of the organization to add you back.',
      ),
    ),
  );
  heading.focus();
}

// ---------------------------------------------------------------- views

const actions: ConversationActions = {
  mentionables: () => store.state.directory.filter((d) => d.id !== store.state.meAgentId),
  async openThread(m) {
    const r = await api<{ conversation: { id: string } }>('POST', w(ws(), `/messages/${m.id}/thread`));
    location.hash = link(`/c/${store.state.main!.conversation.id}/t/${r.conversation.id}`);
  },
  closeThread() {
    location.hash = link(`/c/${store.state.main!.conversation.id}`);
  },
  async send(conversationId, body) {
    const r = await api<Posted>('POST', w(ws(), `/conversations/${conversationId}/messages`), { body });
    const open = store.open(conversationId);
    if (r.message && open) receive(r.message, open.conversation);
    return r.notices;
  },
  async join(c) {
    await api('POST', w(ws(), `/channels/${c.id}/join`));
    store.update({ main: null });
    await route();
    sidebarSoon();
  },
  async leave(c) {
    await api('POST', w(ws(), `/channels/${c.id}/leave`));
    await refreshSidebar();
    location.hash = link('');
  },
  addPeople(c) {
    openDialog(`Add people to ${c.title}`, (close) =>
      dialogForm(
        field(
          'handle',
          'Handle',
          { required: true, autofocus: true, autocomplete: 'off' },
          'Someone who can reach this workspace, e.g. bob.',
        ),
        'Add',
        async (v) => {
          const r = await api<{ added: string; channel: string }>('POST', w(ws(), `/channels/${c.id}/members`), {
            handle: v.handle,
          });
          close();
          announce(`Added @${r.added} to #${r.channel}.`);
        },
        close,
      ),
    );
  },
  openSettings() {
    channelSettingsDialog(ws());
  },
};

async function showConversation(r: { id: string; thread: string | null }, stale: () => boolean) {
  if (store.state.main?.conversation.id !== r.id) {
    const data = await api<History>('GET', w(ws(), `/conversations/${r.id}`));
    if (stale()) return;
    const { view, list, threadOpts } = conversationView(actions, data);
    data.messages.forEach((m) => store.state.seen.add(m.id));
    byId('main').replaceChildren(view);
    store.update({ main: Store.opened(data, list, threadOpts), channelSettings: null });
    loadChannelSettings(ws()).catch(() => {});
    showApprovals(ws(), data.conversation.id, list).catch(() => {});
    (view.querySelector<HTMLElement>('#composer-input') ?? view.querySelector('h1'))?.focus();
    sidebarSoon();
  }
  if (r.thread) await showThread(r.thread, stale);
  else hideThread();
}

async function showThread(id: string, stale: () => boolean) {
  if (store.state.thread?.conversation.id === id) return;
  const data = await api<History>('GET', w(ws(), `/conversations/${id}`));
  if (stale()) return;
  const { view, list, input } = threadView(actions, data);
  data.messages.forEach((m) => store.state.seen.add(m.id));
  const panel = byId('thread-panel');
  panel.replaceChildren(...view);
  panel.hidden = false;
  store.update({ thread: Store.opened(data, list, {}) });
  showApprovals(ws(), id, list).catch(() => {});
  input.focus();
}

function hideThread() {
  byId('thread-panel').hidden = true;
  byId('thread-panel').replaceChildren();
  if (store.state.thread) store.update({ thread: null });
}

function showPage(node: HTMLElement, focus = true) {
  hideThread();
  const main = byId('main');
  // A page refreshed live (focus false) keeps whoever is typing on it typing.
  if (!focus && main.childElementCount === 1) redraw(main.firstElementChild!, node);
  else main.replaceChildren(node);
  store.update({ main: null, channelSettings: null });
  if (focus) node.querySelector('h1')?.focus();
}

/** The page of one approval (its link, `#/w/<ws>/approvals/<id>`): its card, and the conversation it was asked in. */
async function approvalPage(id: string) {
  const { approval } = await api<{ approval: Approval }>('GET', w(ws(), `/approvals/${encodeURIComponent(id)}`));
  return h(
    'div',
    { class: 'page approval-page' },
    h('h1', { id: 'page-title', tabindex: '-1' }, 'Approval'),
    h('ol', { class: 'list' }, approvalCard(ws(), approval)),
    approval.conversationId
      ? h('p', {}, h('a', { href: link(`/c/${approval.conversationId}`) }, 'Open the conversation it was asked in'))
      : null,
  );
}

/** An intake item's link (`#/w/<ws>/intake/<id>`): the page with that item in view, or why it is not there. */
function showLinkedItem(page: HTMLElement, id: string) {
  const item = page.querySelector<HTMLElement>(`.intake-item[data-id="${CSS.escape(id)}"]`);
  if (!item) {
    page
      .querySelector('h1')
      ?.after(
        h(
          'p',
          { class: 'notice notice-error', role: 'alert' },
          'The intake item this link names is not one you can see here (or no longer exists).',
        ),
      );
    return;
  }
  item.classList.add('linked');
  item.scrollIntoView({ block: 'center' });
  item.querySelector<HTMLElement>('.intake-triage')?.focus();
}

/** A page of the inbox ('' is the newest, which also shows the approvals waiting for the person). */
async function inboxPage(page: string) {
  const data = await api<InboxListing>('GET', w(ws(), `/inbox${page ? `?page=${encodeURIComponent(page)}` : ''}`));
  const view = inboxView(ws(), data);
  return data.page === 1 ? addWaitingApprovals(ws(), view) : view;
}

/** Whether the newest inbox page is on screen: only it changes when something arrives (older pages keep still while read). */
const onNewestInbox = () => {
  const r = parseRoute();
  return store.state.view === 'inbox' && r?.view === 'inbox' && !r.page;
};

const inboxSoon = debounce(async () => {
  if (!onNewestInbox()) return;
  const page = await inboxPage('');
  if (onNewestInbox()) {
    showPage(page, false);
    sidebarSoon();
  }
}, 300);

const agentsCtx: AgentsContext = {
  get ws() {
    return ws();
  },
  get me() {
    return store.state.me!.person;
  },
  async openDm(agentId) {
    const r = await api<{ conversation: { id: string } }>('POST', w(ws(), '/dms'), { agentId });
    location.hash = link(`/c/${r.conversation.id}`);
  },
  refresh() {
    loadDirectory();
    route();
  },
};

async function enterWorkspace(slug: string) {
  hideThread();
  store.update({ ws: slug, main: null, seen: new Set(), sidebar: null });
  showSidebar(true);
  byId<HTMLSelectElement>('workspace-select').value = slug;
  connect();
  await Promise.all([refreshSidebar(), loadDirectory()]);
}

let routeSeq = 0;

async function route() {
  const seq = ++routeSeq;
  // A newer navigation may start while this one waits for the server; then this one gives way.
  const stale = () => seq !== routeSeq;
  const r = parseRoute();
  const slugs = store.state.me!.workspaces.map((x) => x.slug);
  if (!slugs.length) {
    byId('main').replaceChildren(
      h('p', { class: 'empty' }, 'You are not in any workspace yet. Ask an admin of your organization to add you.'),
    );
    return;
  }
  if (r && r.ws === '') {
    const here = store.state.ws ?? slugs[0];
    location.replace(`#/w/${encodeURIComponent(here)}${location.hash.slice(1)}`);
    return;
  }
  if (!r || !slugs.includes(r.ws)) {
    location.replace(`#/w/${encodeURIComponent(slugs[0])}`);
    return;
  }
  if (r.ws === refusedWs && r.ws === store.state.ws) {
    showRefused();
    return;
  }
  try {
    if (r.ws !== store.state.ws) await enterWorkspace(r.ws);
    if (r.view === 'home') {
      const channels = store.state.sidebar?.channels ?? [];
      const general = channels.find((c) => c.name === 'general') ?? channels[0];
      location.replace(link(general ? `/c/${general.id}` : '/agents'));
      return;
    }
    closeMenu();
    if (r.view === 'conversation') {
      store.update({ view: 'conversation' });
      return await showConversation(r, stale);
    }
    let page: HTMLElement;
    if (r.view === 'inbox') page = await inboxPage(r.page);
    else if (r.view === 'agents') page = await agentsView(agentsCtx);
    else if (r.view === 'intake')
      page = await intakeView(ws(), intakeFilter(r.query), (path) => {
        location.hash = link(path);
      });
    else if (r.view === 'approval') page = await approvalPage(r.id);
    else if (r.view === 'settings') page = await personalSettingsView();
    else {
      page = searchView(
        ws(),
        r.q,
        (await api<{ results: SearchHit[] }>('GET', w(ws(), `/search?q=${encodeURIComponent(r.q)}`))).results,
      );
      byId<HTMLInputElement>('search-input').value = r.q;
    }
    if (stale()) return;
    store.update({ view: r.view as ViewName });
    showPage(page);
    if (r.view === 'inbox') sidebarSoon();
    if (r.view === 'intake' && r.item) showLinkedItem(page, r.item);
  } catch (err) {
    store.update({ main: null });
    byId('main').replaceChildren(
      h(
        'div',
        { class: 'page' },
        h('h1', { tabindex: '-1' }, 'Not available'),
        h('p', { class: 'notice notice-error', role: 'alert' }, (err as Error).message),
      ),
    );
  }
}

// ---------------------------------------------------------------- chrome

function closeMenu() {
  byId('sidebar').classList.remove('open');
  byId('menu-toggle').setAttribute('aria-expanded', 'false');
}

/** The sidebar, and the button that opens it on a narrow screen, there or gone (with the column they take). */
function showSidebar(shown: boolean) {
  if (!shown) closeMenu();
  byId('sidebar').hidden = !shown;
  byId('menu-toggle').hidden = !shown;
  byId('sidebar').parentElement!.classList.toggle('no-sidebar', !shown);
}

function wire(me: Me) {
  const select = byId<HTMLSelectElement>('workspace-select');
  select.replaceChildren(...me.workspaces.map((x) => h('option', { value: x.slug }, x.name)));
  select.addEventListener('change', () => {
    location.hash = `#/w/${encodeURIComponent(select.value)}`;
  });
  byId('search-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const q = byId<HTMLInputElement>('search-input').value.trim();
    if (q) location.hash = link(`/search?q=${encodeURIComponent(q)}`);
  });
  byId('new-channel').addEventListener('click', () =>
    newChannelDialog(ws(), (c) => {
      sidebarSoon();
      location.hash = link(`/c/${c.id}`);
    }),
  );
  byId('browse-channels').addEventListener('click', () =>
    browseChannelsDialog(store.state.sidebar?.channels ?? [], async (c) => {
      await api('POST', w(ws(), `/channels/${c.id}/join`));
      store.update({ main: null });
      await refreshSidebar();
      location.hash = link(`/c/${c.id}`);
    }),
  );
  byId('new-dm').addEventListener('click', () =>
    newDmDialog(store.state.directory, store.state.meAgentId, (d) => agentsCtx.openDm(d.id)),
  );
  byId('menu-toggle').addEventListener('click', () => {
    const open = byId('sidebar').classList.toggle('open');
    byId('menu-toggle').setAttribute('aria-expanded', String(open));
    if (open) byId('sidebar').querySelector('a')?.focus();
  });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && byId('sidebar').classList.contains('open')) closeMenu();
    else if (e.key === 'Escape' && store.state.thread && !byId<HTMLDialogElement>('dialog').open) actions.closeThread();
  });
  document.addEventListener('visibilitychange', () => {
    const main = store.state.main;
    if (document.visibilityState === 'visible' && main) markRead(main.conversation.id);
  });
  window.addEventListener('hashchange', () => route());
}

/** What /assets/early.js kept while this script loaded (see there). */
type EarlyAction = { type: 'click' | 'submit' | 'change'; id: string; value?: string };

/**
 * Once a workspace is open (the first route may only have corrected the address),
 * the page's own handlers answer; what was clicked before runs now, in order.
 */
async function replayEarlyActions() {
  const open = (st: typeof store.state) => !st.me?.workspaces.length || Boolean(st.ws && st.sidebar);
  if (!open(store.state))
    await new Promise<void>((resolve) => {
      const stop = store.subscribe((st) => {
        if (open(st)) {
          stop();
          resolve();
        }
      });
    });
  document.documentElement.dataset.chat = 'ready';
  const early = (window as { switchboardEarly?: EarlyAction[] }).switchboardEarly ?? [];
  for (const a of early.splice(0)) {
    const el = document.getElementById(a.id);
    if (a.type === 'click' && el instanceof HTMLButtonElement) el.click();
    else if (a.type === 'submit' && el instanceof HTMLFormElement) el.requestSubmit();
    else if (a.type === 'change' && el instanceof HTMLSelectElement) {
      el.value = a.value ?? el.value;
      el.dispatchEvent(new Event('change'));
    }
  }
}

async function boot() {
  mountSidebar();
  mountChannelNotes();
  const me = await api<Me>('GET', '/me');
  store.update({ me });
  document
    .querySelector('.user-menu .avatar')
    ?.replaceWith(avatar({ id: me.person.id, displayName: me.person.displayName }, 'avatar-small'));
  wire(me);
  await route();
  await replayEarlyActions();
  if (!me.hasPassword) {
    const note = h(
      'p',
      { class: 'notice notice-info', role: 'status' },
      'You signed in with a one-time link. ',
      h('a', { href: '/account' }, 'Set a password'),
      ' to sign in again later.',
    );
    byId('sidebar').prepend(note);
  }
}

boot().catch((err: Error) => {
  byId('main').replaceChildren(
    h('p', { class: 'notice notice-error', role: 'alert' }, `The chat could not start: ${err.message}`),
  );
});
