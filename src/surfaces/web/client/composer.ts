import { h } from './dom.ts';
import type { Mentionable } from './types.ts';

let counter = 0;

export interface ComposerOpts {
  label: string;
  placeholder: string;
  /** Sends the text; resolves to notices to show (refused mentions…). */
  send: (body: string) => Promise<string[] | undefined>;
  mentionables: () => Mentionable[];
  id?: string;
}

/**
 * A message box: Enter sends, Shift+Enter starts a new line, typing `@` offers
 * the agents and people of the workspace (arrow keys, Enter or Tab to pick).
 */
export function composer({ label, placeholder, send, mentionables, id }: ComposerOpts): {
  form: HTMLFormElement;
  input: HTMLTextAreaElement;
} {
  const n = ++counter;
  const inputId = id ?? `composer-${n}`;
  const listId = `mentions-${n}`;
  const notices = h('p', { class: 'notices', role: 'status', 'aria-live': 'polite' });
  const input = h('textarea', {
    id: inputId,
    rows: 1,
    placeholder,
    autocomplete: 'off',
    'aria-autocomplete': 'list',
    'aria-controls': listId,
    'aria-describedby': `${inputId}-hint`,
    maxlength: 16000,
  });
  const list = h('ul', {
    id: listId,
    class: 'mention-list',
    role: 'listbox',
    hidden: true,
    'aria-label': 'People and agents to mention',
  });
  const button = h('button', { type: 'submit', class: 'primary' }, 'Send');
  const form = h(
    'form',
    { class: 'composer' },
    h('label', { for: inputId, class: 'visually-hidden' }, label),
    input,
    button,
    list,
    notices,
    h(
      'p',
      { class: 'hint', id: `${inputId}-hint` },
      'Enter sends, Shift+Enter adds a line. Type @ to mention an agent.',
    ),
  );
  // The suggestion list is local to this box: what is offered and which one is highlighted.
  let options: Mentionable[] = [];
  let active = -1;

  const fit = () => {
    input.style.height = 'auto';
    input.style.height = `${Math.min(input.scrollHeight + 2, 200)}px`;
  };
  const close = () => {
    list.hidden = true;
    options = [];
    active = -1;
    input.removeAttribute('aria-activedescendant');
    input.setAttribute('aria-expanded', 'false');
  };
  const caret = () => input.selectionStart ?? input.value.length;
  const query = () => /(?:^|[\s(])@([a-z0-9_./-]*)$/i.exec(input.value.slice(0, caret()))?.[1]?.toLowerCase();
  const highlight = (i: number) => {
    active = i;
    [...list.children].forEach((li, j) => li.setAttribute('aria-selected', String(j === i)));
    if (i >= 0) input.setAttribute('aria-activedescendant', list.children[i].id);
  };
  const pick = (i: number) => {
    const choice = options[i];
    if (!choice) return;
    const before = input.value.slice(0, caret()).replace(/@([a-z0-9_./-]*)$/i, `@${choice.mention} `);
    input.value = before + input.value.slice(caret());
    input.setSelectionRange(before.length, before.length);
    close();
    input.focus();
  };
  const suggest = () => {
    const q = query();
    if (q === undefined) return close();
    options = mentionables()
      .filter((m) => m.mention.toLowerCase().includes(q) || m.displayName.toLowerCase().includes(q))
      .slice(0, 6);
    if (!options.length) return close();
    list.replaceChildren(
      ...options.map((o, i) =>
        h(
          'li',
          {
            id: `${listId}-${i}`,
            role: 'option',
            'aria-selected': 'false',
            onmousedown: (e: MouseEvent) => {
              e.preventDefault();
              pick(i);
            },
          },
          h('strong', {}, o.displayName),
          ' ',
          h('span', { class: 'handle' }, `@${o.mention}`),
        ),
      ),
    );
    list.hidden = false;
    input.setAttribute('aria-expanded', 'true');
    highlight(0);
  };

  input.addEventListener('input', () => {
    fit();
    suggest();
  });
  input.addEventListener('blur', () => setTimeout(close, 100));
  input.addEventListener('keydown', (e) => {
    if (!list.hidden && options.length) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        highlight((active + (e.key === 'ArrowDown' ? 1 : options.length - 1)) % options.length);
        return;
      }
      if (e.key === 'Enter' || e.key === 'Tab') {
        e.preventDefault();
        pick(active);
        return;
      }
      if (e.key === 'Escape') {
        e.preventDefault();
        close();
        return;
      }
    }
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      form.requestSubmit();
    }
  });
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const body = input.value.trim();
    if (!body || button.disabled) return;
    button.disabled = true;
    notices.textContent = '';
    try {
      const shown = await send(body);
      input.value = '';
      fit();
      notices.textContent = (shown ?? []).join(' ');
    } catch (err) {
      notices.textContent = (err as Error).message;
    } finally {
      button.disabled = false;
      input.focus();
    }
  });
  return { form, input };
}
