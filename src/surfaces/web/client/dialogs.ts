import { api, w } from './api.ts';
import { fragment, h, type Attrs, type Child } from './dom.ts';
import type { Mentionable, SidebarView } from './types.ts';

let generation = 0;
let opener: Element | null = null;

const dialogEl = () => document.getElementById('dialog') as HTMLDialogElement;

/**
 * Shows a modal dialog (the browser's own <dialog>: it traps focus and closes
 * on Escape). `build(close)` returns the content; focus returns where it was.
 * A dialog may open another (a form, then its result): the close event of the
 * first one, which arrives later, must not empty the second.
 */
export function openDialog(
  title: string,
  build: (close: () => void) => Child,
  o: { onEscape?: () => void; onCopy?: () => void } = {},
): () => void {
  const dialog = dialogEl();
  if (!dialog.contains(document.activeElement)) opener = document.activeElement;
  const mine = ++generation;
  const close = () => dialog.close();
  dialog.replaceChildren(h('h2', { id: 'dialog-title' }, title), fragment(build(close)));
  // A dialog that must not close by accident hears Escape itself: stopping the key (not only the
  // `cancel` event, which the browser lets through when asked twice in a row) keeps it open.
  const onKey = (e: KeyboardEvent) => {
    if (e.key !== 'Escape' || generation !== mine) return;
    e.preventDefault();
    o.onEscape!();
  };
  const onCancel = (e: Event) => {
    if (generation === mine) {
      e.preventDefault();
      o.onEscape!();
    }
  };
  const onCopy = () => {
    if (generation === mine) o.onCopy?.();
  };
  if (o.onEscape) {
    dialog.addEventListener('keydown', onKey);
    dialog.addEventListener('cancel', onCancel);
  }
  dialog.addEventListener('copy', onCopy);
  const onClose = () => {
    if (dialog.open) return;
    dialog.removeEventListener('close', onClose);
    dialog.removeEventListener('keydown', onKey);
    dialog.removeEventListener('cancel', onCancel);
    dialog.removeEventListener('copy', onCopy);
    if (generation !== mine) return;
    dialog.replaceChildren();
    (opener as HTMLElement | null)?.focus?.();
  };
  dialog.addEventListener('close', onClose);
  if (!dialog.open) dialog.showModal();
  dialog.querySelector<HTMLElement>('[autofocus]')?.focus();
  return close;
}

export type FormValues = Record<string, string | boolean>;

/** A form inside a dialog; `submit(values)` resolves when done or throws with a sentence to show. */
export function dialogForm(
  fields: Child[],
  submitLabel: string,
  submit: (v: FormValues) => Promise<void>,
  close: () => void,
): HTMLFormElement {
  const error = h('p', { class: 'notice notice-error', role: 'alert', hidden: true });
  const form = h(
    'form',
    { class: 'stack' },
    error,
    ...fields,
    h(
      'div',
      { class: 'buttons' },
      h('button', { type: 'button', class: 'secondary', onclick: close }, 'Cancel'),
      h('button', { type: 'submit', class: 'primary' }, submitLabel),
    ),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const values: FormValues = {};
    for (const [k, v] of new FormData(form)) values[k] = String(v);
    for (const box of form.querySelectorAll<HTMLInputElement>('input[type=checkbox]')) values[box.name] = box.checked;
    try {
      error.hidden = true;
      await submit(values);
    } catch (err) {
      error.textContent = (err as Error).message;
      error.hidden = false;
    }
  });
  return form;
}

/** A labelled input with an optional hint under it. */
export const field = (id: string, label: string, attrs: Attrs = {}, hint?: string): HTMLElement[] => [
  h('label', { for: id }, label),
  h('input', { id, name: id, ...attrs, ...(hint ? { 'aria-describedby': `${id}-hint` } : {}) }),
  ...(hint ? [h('p', { class: 'hint', id: `${id}-hint` }, hint)] : []),
];

export function newChannelDialog(ws: string, onCreated: (c: { id: string; name: string }) => void): void {
  openDialog('Create a channel', (close) =>
    dialogForm(
      [
        ...field(
          'name',
          'Name',
          {
            required: true,
            autofocus: true,
            maxlength: 40,
            pattern: '#?[a-zA-Z0-9][a-zA-Z0-9_\\-]*',
            autocomplete: 'off',
          },
          'Lowercase letters, digits, dashes; for example design-review.',
        ),
        ...field('description', 'What it is about (optional)', { maxlength: 250 }),
        h(
          'label',
          { class: 'checkbox' },
          h('input', { type: 'checkbox', name: 'restricted' }),
          'Restricted: only people added to it can see it',
        ),
      ],
      'Create',
      async (v) => {
        const r = await api<{ channel: { id: string; name: string } }>('POST', w(ws, '/channels'), {
          name: v.name,
          description: v.description,
          restricted: v.restricted,
        });
        close();
        onCreated(r.channel);
      },
      close,
    ),
  );
}

type SidebarChannel = SidebarView['channels'][number];

export function browseChannelsDialog(channels: SidebarChannel[], onJoin: (c: SidebarChannel) => Promise<void>): void {
  openDialog('Browse channels', (close) => {
    const others = channels.filter((c) => !c.member);
    const list = h(
      'ul',
      { class: 'list picker' },
      others.map((c) =>
        h(
          'li',
          { class: 'list-item two-col' },
          h(
            'div',
            {},
            h('strong', {}, `#${c.name}`),
            c.description ? h('p', { class: 'excerpt hint' }, c.description) : null,
          ),
          h(
            'button',
            {
              type: 'button',
              class: 'secondary',
              onclick: async () => {
                close();
                await onJoin(c);
              },
            },
            'Join',
          ),
        ),
      ),
    );
    return [
      others.length ? list : h('p', {}, 'You are in every open channel. Create a new one with the + next to Channels.'),
      h(
        'div',
        { class: 'buttons' },
        h('button', { type: 'button', class: 'secondary', onclick: close, autofocus: true }, 'Close'),
      ),
    ];
  });
}

/** Pick an agent or a person to talk to directly. */
export function newDmDialog(
  directory: Mentionable[],
  meId: string | null,
  onOpen: (d: Mentionable) => Promise<void>,
): void {
  openDialog('Start a direct message', (close) => {
    const filter = h('input', {
      id: 'dm-filter',
      type: 'search',
      placeholder: 'Filter by name',
      autofocus: true,
      'aria-controls': 'dm-choices',
    });
    const list = h('ul', { id: 'dm-choices', class: 'list picker' });
    const render = () => {
      const q = filter.value.toLowerCase();
      list.replaceChildren(
        ...directory
          .filter((d) => d.id !== meId && `${d.displayName} ${d.mention}`.toLowerCase().includes(q))
          .map((d) =>
            h(
              'li',
              {},
              h(
                'button',
                {
                  type: 'button',
                  class: 'list-item link-button wide',
                  onclick: async () => {
                    close();
                    await onOpen(d);
                  },
                },
                h(
                  'span',
                  {},
                  h('strong', {}, d.displayName),
                  ' ',
                  h('span', { class: 'handle' }, d.kind === 'agent' ? d.mention : `@${d.mention}`),
                ),
                h('span', { class: 'hint' }, d.kind === 'agent' ? d.roleLine || 'Agent' : 'Person'),
              ),
            ),
          ),
      );
    };
    filter.addEventListener('input', render);
    render();
    return [
      h('label', { for: 'dm-filter', class: 'visually-hidden' }, 'Filter people and agents'),
      filter,
      list,
      h('div', { class: 'buttons' }, h('button', { type: 'button', class: 'secondary', onclick: close }, 'Cancel')),
    ];
  });
}
