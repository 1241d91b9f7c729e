import { api, w } from './api.js';
import { h } from './dom.js';

let generation = 0;
let opener = null;

/**
 * Shows a modal dialog (the browser's own <dialog>: it traps focus and closes
 * on Escape). `build(close)` returns the content; focus returns where it was.
 * A dialog may open another (a form, then its result): the close event of the
 * first one, which arrives later, must not empty the second.
 */
export function openDialog(title, build) {
  const dialog = document.getElementById('dialog');
  if (!dialog.contains(document.activeElement)) opener = document.activeElement;
  const mine = ++generation;
  const close = () => dialog.close();
  dialog.replaceChildren(h('h2', { id: 'dialog-title' }, title), ...[build(close)].flat());
  const onClose = () => {
    if (dialog.open) return;
    dialog.removeEventListener('close', onClose);
    if (generation !== mine) return;
    dialog.replaceChildren();
    opener?.focus?.();
  };
  dialog.addEventListener('close', onClose);
  if (!dialog.open) dialog.showModal();
  dialog.querySelector('[autofocus]')?.focus();
  return close;
}

/** A form inside a dialog; `submit(values)` resolves when done or throws with a sentence to show. */
export function dialogForm(fields, submitLabel, submit, close) {
  const error = h('p', { class: 'notice notice-error', role: 'alert', hidden: true });
  const form = h('form', { class: 'stack' }, error, ...fields,
    h('div', { class: 'buttons' },
      h('button', { type: 'button', class: 'secondary', onclick: close }, 'Cancel'),
      h('button', { type: 'submit', class: 'primary' }, submitLabel)));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const values = Object.fromEntries(new FormData(form));
    for (const box of form.querySelectorAll('input[type=checkbox]')) values[box.name] = box.checked;
    try {
      error.hidden = true;
      await submit(values);
    } catch (err) {
      error.textContent = err.message;
      error.hidden = false;
    }
  });
  return form;
}

export const field = (id, label, attrs = {}, hint) => [
  h('label', { for: id }, label),
  h('input', { id, name: id, ...attrs, ...(hint ? { 'aria-describedby': `${id}-hint` } : {}) }),
  hint ? h('p', { class: 'hint', id: `${id}-hint` }, hint) : null,
].filter(Boolean);

export function newChannelDialog(ws, onCreated) {
  openDialog('Create a channel', (close) => dialogForm([
    ...field('name', 'Name', { required: true, autofocus: true, maxlength: 40, pattern: '#?[a-zA-Z0-9][a-zA-Z0-9_\\-]*', autocomplete: 'off' }, 'Lowercase letters, digits, dashes; for example design-review.'),
    ...field('description', 'What it is about (optional)', { maxlength: 250 }),
    h('label', { class: 'checkbox' }, h('input', { type: 'checkbox', name: 'restricted' }), 'Restricted: only people added to it can see it'),
  ], 'Create', async (v) => {
    const r = await api('POST', w(ws, '/channels'), { name: v.name, description: v.description, restricted: v.restricted });
    close();
    onCreated(r.channel);
  }, close));
}

export function browseChannelsDialog(ws, channels, onJoin) {
  openDialog('Browse channels', (close) => {
    const others = channels.filter((c) => !c.member);
    const list = h('ul', { class: 'list picker' }, others.map((c) => h('li', { class: 'list-item two-col' },
      h('div', {}, h('strong', {}, `#${c.name}`), c.description ? h('p', { class: 'excerpt hint' }, c.description) : null),
      h('button', { type: 'button', class: 'secondary', onclick: async () => { close(); await onJoin(c); } }, 'Join'))));
    return [others.length ? list : h('p', {}, 'You are in every open channel. Create a new one with the + next to Channels.'),
      h('div', { class: 'buttons' }, h('button', { type: 'button', class: 'secondary', onclick: close, autofocus: true }, 'Close'))];
  });
}

/** Pick an agent or a person to talk to directly. */
export function newDmDialog(ws, directory, meId, onOpen) {
  openDialog('Start a direct message', (close) => {
    const filter = h('input', { id: 'dm-filter', type: 'search', placeholder: 'Filter by name', autofocus: true, 'aria-controls': 'dm-choices' });
    const list = h('ul', { id: 'dm-choices', class: 'list picker' });
    const render = () => {
      const q = filter.value.toLowerCase();
      list.replaceChildren(...directory.filter((d) => d.id !== meId && `${d.displayName} ${d.mention}`.toLowerCase().includes(q)).map((d) =>
        h('li', {}, h('button', { type: 'button', class: 'list-item link-button wide', onclick: async () => { close(); await onOpen(d); } },
          h('span', {}, h('strong', {}, d.displayName), ' ', h('span', { class: 'handle' }, d.kind === 'agent' ? d.mention : `@${d.mention}`)),
          h('span', { class: 'hint' }, d.kind === 'agent' ? (d.roleLine || 'Agent') : 'Person')))));
    };
    filter.addEventListener('input', render);
    render();
    return [h('label', { for: 'dm-filter', class: 'visually-hidden' }, 'Filter people and agents'), filter, list,
      h('div', { class: 'buttons' }, h('button', { type: 'button', class: 'secondary', onclick: close }, 'Cancel'))];
  });
}
