// The left column and the page title, drawn from the store whenever what they show changes.
import { byId, h } from './dom.ts';
import { store, type ChatState } from './store.ts';

/** A route inside the open workspace, as a link target. */
export const link = (path: string) => `#/w/${encodeURIComponent(store.state.ws ?? '')}${path}`;

function badge(n: number) {
  return n
    ? h('span', { class: 'badge' }, n > 99 ? '99+' : String(n), h('span', { class: 'visually-hidden' }, ' unread'))
    : null;
}

function render(state: ChatState) {
  const s = state.sidebar;
  if (!s) return;
  const current = state.main?.conversation.id;
  const item = (href: string, icon: string, name: string, unread: number, id: string) =>
    h(
      'li',
      {},
      h(
        'a',
        {
          href,
          class: unread ? 'unread' : '',
          'aria-current': id === current ? 'page' : false,
          dataset: { id },
        },
        h('span', { 'aria-hidden': 'true' }, icon),
        h('span', { class: 'name' }, name),
        badge(unread),
      ),
    );
  byId('channel-list').replaceChildren(
    ...s.channels
      .filter((c) => c.member)
      .map((c) => item(link(`/c/${c.id}`), c.restricted ? '🔒' : '#', c.name, c.unread, c.id)),
  );
  byId('dm-list').replaceChildren(
    ...s.conversations.map((c) => item(link(`/c/${c.id}`), c.kind === 'dm' ? '●' : '↗', c.title, c.unread, c.id)),
  );
  if (!s.conversations.length)
    byId('dm-list').append(h('li', { class: 'hint' }, h('span', { class: 'name' }, 'None yet')));
  const inbox = byId('nav-inbox');
  const inboxBadge = inbox.querySelector<HTMLElement>('.badge')!;
  inboxBadge.hidden = !s.inboxUnread;
  inboxBadge.textContent = s.inboxUnread ? String(s.inboxUnread) : '';
  inbox.setAttribute('aria-label', s.inboxUnread ? `Inbox, ${s.inboxUnread} unread` : 'Inbox');
  inbox.classList.toggle('unread', Boolean(s.inboxUnread));
  inbox.setAttribute('aria-current', state.view === 'inbox' ? 'page' : 'false');
  byId('nav-agents').setAttribute('aria-current', state.view === 'agents' ? 'page' : 'false');
  byId('nav-intake').setAttribute('aria-current', state.view === 'intake' ? 'page' : 'false');
  const total =
    s.inboxUnread + s.channels.reduce((n, c) => n + c.unread, 0) + s.conversations.reduce((n, c) => n + c.unread, 0);
  const where =
    state.main?.conversation.title ??
    (
      { inbox: 'Inbox', agents: 'Agents', search: 'Search', intake: 'Intake', settings: 'Settings' } as Record<
        string,
        string
      >
    )[state.view ?? ''] ??
    '';
  document.title = `${total ? `(${total}) ` : ''}${where ? `${where} · ` : ''}Switchboard`;
}

/** Where the workspace's links (inbox, agents, documents) lead. */
function renderWorkspaceLinks(ws: string) {
  byId<HTMLAnchorElement>('nav-inbox').href = link('/inbox');
  byId<HTMLAnchorElement>('nav-agents').href = link('/agents');
  byId<HTMLAnchorElement>('nav-intake').href = link('/intake');
  const menuSettings = document.getElementById('menu-settings') as HTMLAnchorElement | null;
  if (menuSettings) menuSettings.href = link('/settings');
  const docs = `/docs/${encodeURIComponent(ws)}`;
  byId<HTMLAnchorElement>('nav-docs').href = docs;
  const menuDocs = document.getElementById('menu-docs') as HTMLAnchorElement | null;
  if (menuDocs) menuDocs.href = docs;
}

/** Keeps the sidebar in step with the store. */
export function mountSidebar(): void {
  store.subscribe((state, changed) => {
    if (changed.has('ws') && state.ws) renderWorkspaceLinks(state.ws);
    if (changed.has('sidebar') || changed.has('main') || changed.has('view')) render(state);
  });
}
