// The main column's views: a channel or DM, the thread panel, the inbox and search results.
import { composer } from './composer.ts';
import { avatar, h, richText, time } from './dom.ts';
import { messageItem, messageList, type MessageOpts } from './messages.ts';
import { channelNotes } from './settings.ts';
import type { ConversationInfo, History, InboxListing, Mentionable, MessageView, SearchHit } from './types.ts';

/** What the conversation views ask the app to do. */
export interface ConversationActions {
  mentionables: () => Mentionable[];
  openThread: (m: MessageView) => void;
  closeThread: () => void;
  send: (conversationId: string, body: string) => Promise<string[] | undefined>;
  join: (c: ConversationInfo) => void;
  leave: (c: ConversationInfo) => void;
  addPeople: (c: ConversationInfo) => void;
  /** The channel's settings panel (listening agents, bridges). */
  openSettings: (c: ConversationInfo) => void;
}

/** The main column for a channel or DM. */
export function conversationView(
  ctx: ConversationActions,
  data: History,
): { view: HTMLElement; list: HTMLOListElement; threadOpts: MessageOpts } {
  const c = data.conversation;
  const ch = c.channel;
  const actions = h('div', { class: 'actions' });
  if (ch?.member && ch.restricted)
    actions.append(h('button', { type: 'button', class: 'secondary', onclick: () => ctx.addPeople(c) }, 'Add people'));
  if (ch?.member && ch.name !== 'general')
    actions.append(h('button', { type: 'button', class: 'secondary', onclick: () => ctx.leave(c) }, 'Leave'));
  if (ch)
    actions.append(
      h(
        'button',
        { type: 'button', class: 'secondary', id: 'channel-settings', onclick: () => ctx.openSettings(c) },
        'Settings',
      ),
    );
  const header = h(
    'header',
    { class: 'conv-header' },
    h('h1', { id: 'conv-title', tabindex: '-1' }, ch?.restricted ? `🔒 ${c.title}` : c.title),
    ch?.description
      ? h('p', { class: 'conv-desc' }, ch.description)
      : c.kind === 'dm'
        ? h('p', { class: 'conv-desc' }, 'Direct message')
        : null,
    ch ? channelNotes(ch.bridges) : null,
    actions,
  );
  const threadOpts: MessageOpts = { onThread: (m) => ctx.openThread(m) };
  const list = messageList(
    data.messages,
    `Messages in ${c.title}`,
    threadOpts,
    'No messages yet. Say hello, or mention an agent with @name.',
  );
  let bottom: HTMLElement;
  if (ch && !ch.member) {
    bottom = h(
      'div',
      { class: 'join-bar' },
      h('span', {}, `You are not in ${c.title}.`),
      h('button', { type: 'button', class: 'primary', onclick: () => ctx.join(c) }, `Join ${c.title}`),
    );
  } else {
    bottom = composer({
      id: 'composer-input',
      label: `Message ${c.title}`,
      placeholder: c.kind === 'dm' ? `Message ${c.title}` : `Message ${c.title} — mention an agent with @name`,
      mentionables: ctx.mentionables,
      send: (body) => ctx.send(c.id, body),
    }).form;
  }
  const view = h('div', { class: 'conversation', dataset: { conversation: c.id } }, header, list, bottom);
  requestAnimationFrame(() => {
    list.scrollTop = list.scrollHeight;
  });
  return { view, list, threadOpts };
}

/** The thread panel: the message it started from, its replies, and a box to reply. */
export function threadView(
  ctx: ConversationActions,
  data: History,
): { view: HTMLElement[]; list: HTMLOListElement; input: HTMLTextAreaElement } {
  const c = data.conversation;
  const close = h(
    'button',
    { type: 'button', class: 'icon-button', onclick: () => ctx.closeThread(), title: 'Close the thread' },
    h('span', { 'aria-hidden': 'true' }, '✕'),
    h('span', { class: 'visually-hidden' }, 'Close the thread'),
  );
  const root = data.root
    ? h('ol', { class: 'messages root', 'aria-label': 'Thread started by' }, messageItem(data.root))
    : null;
  const list = messageList(data.messages, 'Replies', {}, 'No replies yet.');
  const box = composer({
    label: 'Reply in the thread',
    placeholder: 'Reply… (@name to ask an agent)',
    mentionables: ctx.mentionables,
    send: (body) => ctx.send(c.id, body),
  });
  const view = [
    h('header', {}, h('h2', { id: 'thread-title', tabindex: '-1' }, 'Thread'), close),
    ...(root ? [root] : []),
    list,
    box.form,
  ];
  requestAnimationFrame(() => {
    list.scrollTop = list.scrollHeight;
  });
  return { view, list, input: box.input };
}

/** Where a conversation lives, as a link target. */
export const hrefFor = (ws: string, conv: Pick<ConversationInfo, 'id' | 'kind' | 'parentId'>) =>
  conv.kind === 'thread' && conv.parentId ? `#/w/${ws}/c/${conv.parentId}/t/${conv.id}` : `#/w/${ws}/c/${conv.id}`;

function entry(
  ws: string,
  item: { message: MessageView; conversation: Pick<ConversationInfo, 'id' | 'kind' | 'parentId'>; unread?: boolean },
  where: string,
  text: Node,
) {
  return h(
    'li',
    {},
    h(
      'a',
      { class: `list-item${item.unread ? ' unread' : ''}`, href: hrefFor(ws, item.conversation) },
      avatar(item.message.sender),
      h(
        'div',
        {},
        h(
          'div',
          { class: 'meta' },
          h('strong', {}, item.message.sender.displayName),
          ' ',
          h('span', { class: 'where' }, where, ' · '),
          time(item.message.createdAt),
        ),
        h('p', { class: 'excerpt' }, text),
      ),
    ),
  );
}

/** The inbox's address for a page (the first has none, like the sidebar's link). */
const inboxHref = (ws: string, page: number) => `#/w/${encodeURIComponent(ws)}/inbox${page > 1 ? `?page=${page}` : ''}`;

/** One page of the inbox, with links to the newer and older pages (plain links: the address holds the page). */
export function inboxView(ws: string, data: InboxListing): HTMLElement {
  const { items, page, older } = data;
  const list = h('ul', { class: 'list', 'aria-label': page > 1 ? `Inbox, page ${page}` : 'Inbox' });
  for (const it of items) {
    const c = it.conversation;
    const where =
      it.kind === 'dm'
        ? 'Direct message'
        : c.kind === 'thread'
          ? 'In a thread'
          : c.kind === 'channel'
            ? `In #${c.title}`
            : c.title || 'A conversation';
    list.append(entry(ws, it, where, richText(it.message.body)));
  }
  // A page past the end links back to the newest one rather than to another empty page.
  const arrow = (a: string) => h('span', { 'aria-hidden': 'true' }, a);
  const newer =
    page > 1
      ? h(
          'a',
          { href: inboxHref(ws, items.length ? page - 1 : 1), rel: 'prev' },
          arrow('← '),
          items.length ? 'Newer' : 'Newest',
        )
      : null;
  const olderLink = older ? h('a', { href: inboxHref(ws, page + 1), rel: 'next' }, 'Older', arrow(' →')) : null;
  const pager =
    newer || olderLink
      ? h(
          'nav',
          { class: 'pager', 'aria-label': 'Inbox pages' },
          newer,
          h('span', { class: 'hint' }, `Page ${page}`),
          olderLink,
        )
      : null;
  const empty =
    page > 1
      ? `Nothing on page ${page}: the inbox ends before it.`
      : 'Nothing here yet. When someone mentions you or an agent answers you, it shows up here.';
  return h(
    'div',
    { class: 'page' },
    h('h1', { id: 'page-title', tabindex: '-1' }, 'Inbox'),
    h('p', { class: 'hint' }, 'Mentions of you, direct messages and answers from agents, newest first.'),
    items.length ? list : h('p', { class: 'empty' }, empty),
    pager,
  );
}

/** Where a search hit was said: `#general`, `Thread “…” in #general`, `DM with Helper`. */
export function hitPlace(r: Pick<SearchHit, 'conversation' | 'parent'>): string {
  const name = (c: Pick<ConversationInfo, 'kind' | 'title'>) => (c.kind === 'dm' ? `DM with ${c.title}` : c.title);
  if (r.conversation.kind !== 'thread') return name(r.conversation);
  const thread = `Thread “${r.conversation.title}”`;
  return r.parent ? `${thread} in ${name(r.parent)}` : thread;
}

export function searchView(ws: string, q: string, results: SearchHit[]): HTMLElement {
  const list = h('ul', { class: 'list', 'aria-label': 'Search results' });
  for (const r of results) {
    // The server returns the words around the match; say when the message goes on before or after them.
    const text = `${r.cut.before ? '… ' : ''}${r.snippet}${r.cut.after ? ' …' : ''}`;
    list.append(entry(ws, { message: r, conversation: r.conversation }, hitPlace(r), richText(text, { marks: true })));
  }
  return h(
    'div',
    { class: 'page' },
    h('h1', { id: 'page-title', tabindex: '-1' }, `Search: ${q}`),
    results.length ? list : h('p', { class: 'empty' }, 'No messages you can see match that. Try other words.'),
  );
}
