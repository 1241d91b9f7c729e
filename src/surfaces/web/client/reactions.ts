// What a person can do to a message once it is shown: react (a small palette,
// or join an emoji already there), and edit or delete their own. The server
// answers with the message as it is now; other pages hear it live (`changed`,
// `deleted`). Every button has an id, so a click made before the script ran is
// replayed (public/early.js).
import { api, ApiError, w } from './api.ts';
import { dialogForm, openDialog } from './dialogs.ts';
import { announce, h } from './dom.ts';
import { glyphOf, PALETTE } from '../../../core/channels/emoji.ts';
import { store } from './store.ts';
import type { MessageView } from './types.ts';

/** Where a changed or deleted message is redrawn (messages.ts). */
export interface MessageChanges {
  changed: (m: MessageView) => void;
  deleted: (id: string, conversationId: string) => void;
}

const ws = () => store.state.ws!;
const fail = (err: unknown) => announce((err as Error).message);

/** Whether the signed-in person wrote the message here (so may edit and delete it). */
export const isMine = (m: MessageView) => m.sender.id === store.state.meAgentId && !m.via;

async function setReaction(m: MessageView, emoji: string, on: boolean, show: MessageChanges) {
  const path = w(ws(), `/messages/${m.id}/reactions`);
  const r = on
    ? await api<{ reactions: MessageView['reactions'] }>('POST', path, { emoji })
    : await api<{ reactions: MessageView['reactions'] }>('DELETE', `${path}/${encodeURIComponent(emoji)}`);
  show.changed({ ...m, reactions: r.reactions });
}

/** The emoji under a message: one button per emoji with its count, pressed when it is the viewer's. */
export function reactionBar(m: MessageView, show: MessageChanges): HTMLElement | null {
  if (!m.reactions.length) return null;
  return h(
    'div',
    { class: 'reactions', role: 'group', 'aria-label': 'Reactions' },
    m.reactions.map((r) =>
      h(
        'button',
        {
          type: 'button',
          class: 'reaction',
          id: `reaction-${m.id}-${r.emoji}`,
          'aria-pressed': String(r.mine),
          title: `${r.names.join(', ')} reacted with :${r.emoji}:`,
          dataset: { emoji: r.emoji },
          onclick: () => setReaction(m, r.emoji, !r.mine, show).catch(fail),
        },
        h('span', { 'aria-hidden': 'true' }, glyphOf(r.emoji)),
        ` ${r.count}`,
        h('span', { class: 'visually-hidden' }, ` ${r.emoji}${r.mine ? ', yours' : ''}`),
      ),
    ),
  );
}

/** The buttons next to "Reply in thread": React (opens the palette), and Edit and Delete on one's own messages. */
export function messageButtons(m: MessageView, show: MessageChanges): HTMLElement[] {
  const palette = h(
    'div',
    { class: 'reaction-palette', role: 'group', 'aria-label': 'Pick a reaction', hidden: true },
    PALETTE.map((emoji) => {
      const mine = m.reactions.some((r) => r.emoji === emoji && r.mine);
      return h(
        'button',
        {
          type: 'button',
          class: 'pick',
          id: `pick-${m.id}-${emoji}`,
          title: `:${emoji}:`,
          'aria-pressed': String(mine),
          onclick: () => {
            palette.hidden = true;
            setReaction(m, emoji, !mine, show).catch(fail);
          },
        },
        h('span', { 'aria-hidden': 'true' }, glyphOf(emoji)),
        h('span', { class: 'visually-hidden' }, emoji),
      );
    }),
  );
  const react = h(
    'button',
    {
      type: 'button',
      class: 'msg-button react-button',
      id: `react-${m.id}`,
      'aria-expanded': 'false',
      onclick: () => {
        palette.hidden = !palette.hidden;
        react.setAttribute('aria-expanded', String(!palette.hidden));
      },
    },
    'React',
  );
  const out = [react, palette];
  if (isMine(m)) {
    out.push(
      h(
        'button',
        {
          type: 'button',
          class: 'msg-button edit-button',
          id: `edit-${m.id}`,
          onclick: (e: MouseEvent) => startEdit(e, m, show),
        },
        'Edit',
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'msg-button delete-button',
          id: `delete-${m.id}`,
          onclick: () => confirmDelete(m, show),
        },
        'Delete',
      ),
    );
  }
  return out;
}

/** Swaps the message's text for a box holding its Markdown; Enter saves, Escape puts the text back. */
function startEdit(e: MouseEvent, m: MessageView, show: MessageChanges) {
  const item = (e.currentTarget as HTMLElement).closest('li.message');
  const body = item?.querySelector<HTMLElement>(':scope .body');
  if (!item || !body || item.querySelector('.edit-form')) return;
  const input = h('textarea', { class: 'edit-input', 'aria-label': 'Edit the message', maxlength: 16000, rows: 3 });
  input.value = m.body;
  const error = h('p', { class: 'notice notice-error', role: 'alert', hidden: true });
  const cancel = () => {
    form.remove();
    body.hidden = false;
  };
  const form = h(
    'form',
    { class: 'edit-form' },
    input,
    error,
    h(
      'div',
      { class: 'buttons' },
      h('button', { type: 'button', class: 'secondary', onclick: cancel }, 'Cancel'),
      h('button', { type: 'submit', class: 'primary' }, 'Save'),
    ),
  );
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    try {
      const r = await api<{ message: MessageView }>('PATCH', w(ws(), `/messages/${m.id}`), { body: input.value });
      show.changed({ ...r.message, thread: m.thread });
    } catch (err) {
      error.textContent = err instanceof ApiError ? err.message : 'The change could not be saved; try again.';
      error.hidden = false;
    }
  });
  input.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape') {
      ev.preventDefault();
      cancel();
    } else if (ev.key === 'Enter' && !ev.shiftKey) {
      ev.preventDefault();
      form.requestSubmit();
    }
  });
  body.hidden = true;
  body.after(form);
  input.focus();
}

function confirmDelete(m: MessageView, show: MessageChanges) {
  openDialog('Delete this message?', (close) => [
    h('p', {}, 'It goes for everyone, with its reactions. Replies in its thread stay.'),
    dialogForm(
      [],
      'Delete',
      async () => {
        await api('DELETE', w(ws(), `/messages/${m.id}`));
        close();
        show.deleted(m.id, m.conversationId);
        announce('Message deleted.');
      },
      close,
    ),
  ]);
}
