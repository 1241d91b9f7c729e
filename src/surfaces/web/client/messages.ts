// Message lists: one message, adding one as it arrives, the "N replies" line.
import { avatar, h, isWebUrl, messageBody, time } from './dom.ts';
import { streamItemId } from './live.ts';
import { messageButtons, reactionBar, type MessageChanges } from './reactions.ts';
import { store, type OpenConversation } from './store.ts';
import type { MessageView } from './types.ts';

export interface MessageOpts {
  /** Opens (or starts) the message's thread; omitted inside a thread. */
  onThread?: (m: MessageView) => void;
}

const nearBottom = (el: HTMLElement) => el.scrollHeight - el.scrollTop - el.clientHeight < 120;
const itemId = (messageId: string) => `m-${messageId}`;

/** One message of a list. */
export function messageItem(m: MessageView, { onThread }: MessageOpts = {}): HTMLLIElement {
  const agent = m.sender.kind === 'agent';
  const actions = h('div', { class: 'msg-actions' });
  if (onThread && m.thread) {
    actions.append(
      h(
        'button',
        { type: 'button', class: 'thread-link', onclick: () => onThread(m) },
        `${m.thread.replies} ${m.thread.replies === 1 ? 'reply' : 'replies'}`,
      ),
    );
  }
  if (onThread)
    actions.append(
      h('button', { type: 'button', class: 'reply-button', onclick: () => onThread(m) }, 'Reply in thread'),
    );
  if (m.permalink && isWebUrl(m.permalink))
    actions.append(
      h(
        'a',
        { href: m.permalink, target: '_blank', rel: 'noopener noreferrer', class: 'thread-link' },
        `View in ${m.via ?? 'the chat app'}`,
      ),
    );
  actions.append(...messageButtons(m, changes));
  return h(
    'li',
    { class: 'message', id: itemId(m.id), dataset: { id: m.id, sender: m.sender.id, createdAt: m.createdAt } },
    avatar(m.sender),
    h(
      'div',
      {},
      h(
        'div',
        { class: 'meta' },
        h('span', { class: 'sender' }, m.sender.displayName),
        agent ? h('span', { class: 'tag' }, 'agent') : null,
        m.via ? h('span', { class: 'tag via' }, `via ${m.via}`) : null,
        m.sender.label ? h('span', { class: 'handle' }, m.sender.label) : null,
        time(m.createdAt),
        m.editedAt
          ? h('span', { class: 'edited', title: `Edited ${new Date(m.editedAt).toLocaleString()}` }, '(edited)')
          : null,
      ),
      messageBody(m),
      reactionBar(m, changes),
      actions,
    ),
  );
}

/** Every place a message is drawn (a list, the root above a thread) with how that place draws it. */
function placesOf(id: string): Array<{ item: Element; open: OpenConversation | null }> {
  const { main, thread } = store.state;
  return [...document.querySelectorAll(`li.message[data-id="${CSS.escape(id)}"]`)].map((item) => ({
    item,
    open: [main, thread].find((o) => o?.list === item.parentElement) ?? null,
  }));
}

/** Redraws a message that changed wherever it shows; it keeps the thread line it had (a change does not carry it). */
export function showChanged(m: MessageView): void {
  for (const { item, open } of placesOf(m.id)) {
    const known = open?.messages.get(m.id);
    const next: MessageView = { ...m, thread: known?.thread ?? m.thread };
    open?.messages.set(m.id, next);
    item.replaceWith(messageItem(next, open?.opts ?? {}));
  }
}

/** Takes a deleted message away wherever it shows. */
export function showDeleted(id: string): void {
  for (const { item, open } of placesOf(id)) {
    open?.messages.delete(id);
    item.remove();
  }
}

const changes: MessageChanges = { changed: showChanged, deleted: showDeleted };

/** A list of messages, or a line saying there are none yet. */
export function messageList(
  messages: MessageView[],
  label: string,
  opts: MessageOpts,
  empty: string,
): HTMLOListElement {
  const list = h('ol', { class: 'messages', role: 'log', 'aria-label': label, tabindex: '0' });
  if (!messages.length) list.append(h('li', { class: 'empty' }, empty));
  for (const m of messages) list.append(messageItem(m, opts));
  return list;
}

/** Adds a message to an open conversation and its list unless it is there already; keeps the view at the bottom if the reader was. */
export function appendMessage(open: OpenConversation, m: MessageView): boolean {
  if (open.messages.has(m.id)) return false;
  open.messages.set(m.id, m);
  const list = open.list;
  const stick = nearBottom(list);
  list.querySelector('.empty')?.remove();
  // The finished message takes its draft's place; an agent's status lines and drafts stay below the messages.
  list.querySelector(`#${CSS.escape(streamItemId(m.id))}`)?.remove();
  list.insertBefore(messageItem(m, open.opts), list.querySelector(':scope > li.live'));
  if (stick) list.scrollTop = list.scrollHeight;
  return true;
}

/** Counts one more reply on the message that started a thread, and redraws its line. */
export function addThreadReply(
  open: OpenConversation,
  rootId: string,
  reply: { conversationId: string; createdAt: string },
): void {
  const root = open.messages.get(rootId);
  if (!root) return;
  const next: MessageView = {
    ...root,
    thread: {
      conversationId: reply.conversationId,
      replies: (root.thread?.replies ?? 0) + 1,
      lastReplyAt: reply.createdAt,
    },
  };
  open.messages.set(rootId, next);
  open.list.querySelector(`#${CSS.escape(itemId(rootId))}`)?.replaceWith(messageItem(next, open.opts));
}
