// Small DOM helpers. Text always goes in through textContent; the only HTML
// inserted is a message body the server already rendered and sanitised.
import type { MessageView } from './types.ts';

/**
 * Replaces `old` with `next` (a redraw); when someone was typing in a text box of `old`, they go on typing in the
 * box of the same id in `next` (its text comes from the store), the caret at its end.
 */
export function redraw(old: Element, next: Element): void {
  const active = document.activeElement;
  const typingIn = active instanceof HTMLTextAreaElement && active.id && old.contains(active) ? active.id : null;
  old.replaceWith(next);
  const box = typingIn ? next.querySelector(`#${CSS.escape(typingIn)}`) : null;
  if (box instanceof HTMLTextAreaElement) {
    box.focus();
    box.setSelectionRange(box.value.length, box.value.length);
  }
}

/** A handler for any event (`onclick`, `onkeydown`…); the event type is the element's. */
type Handler = (e: never) => unknown;
export type Attrs = Record<string, string | number | boolean | null | undefined | Handler | Record<string, string>>;
export type Child = Node | string | number | null | undefined | false | Child[];

/** h('a', { href, class: 'x', onclick }, 'text', child) */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v as unknown as EventListener);
    else if (k === 'class') el.className = String(v);
    else if (k === 'dataset' && typeof v === 'object') Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

/** Children (nested lists allowed) as one fragment to insert. */
export function fragment(...children: Child[]): DocumentFragment {
  const f = document.createDocumentFragment();
  append(f, children);
  return f;
}

function append(el: Element | DocumentFragment, children: Child[]) {
  for (const c of children) {
    if (Array.isArray(c)) append(el, c);
    else if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : String(c));
  }
}

/** The element with this id; the page skeleton (shell.ts) guarantees it exists. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`The page has no #${id}; reload it.`);
  return el as T;
}

const COLORS = ['#4f46e5', '#0e7490', '#b45309', '#be185d', '#15803d', '#7c3aed', '#0369a1', '#a21caf'];
function colorFor(id: string) {
  let n = 0;
  for (const ch of id) n = (n * 31 + ch.charCodeAt(0)) >>> 0;
  return COLORS[n % COLORS.length];
}

/** The sender's picture, or their initials on a colour of their own. */
export function avatar(sender: { id: string; displayName: string; avatarUrl?: string | null }, size = ''): HTMLElement {
  if (sender.avatarUrl) {
    return h('img', {
      class: `avatar ${size}`,
      src: sender.avatarUrl,
      alt: '',
      width: 36,
      height: 36,
      referrerpolicy: 'no-referrer',
      loading: 'lazy',
    });
  }
  const initials =
    sender.displayName
      .split(/\s+/)
      .map((p) => p[0] ?? '')
      .join('')
      .slice(0, 2)
      .toUpperCase() || '?';
  const el = h('span', { class: `avatar ${size}`, 'aria-hidden': 'true' }, initials);
  el.style.background = colorFor(sender.id);
  return el;
}

const timeFmt = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const dateFmt = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
/** "14:05" today, "12 Mar 2026, 14:05" otherwise. */
export function time(iso: string): HTMLTimeElement {
  const d = new Date(iso);
  const today = new Date().toDateString() === d.toDateString();
  return h(
    'time',
    { datetime: d.toISOString(), title: dateFmt.format(d) },
    today ? timeFmt.format(d) : dateFmt.format(d),
  );
}

/** Only web addresses become links: a `javascript:` or `data:` URL from a platform never does. */
export const isWebUrl = (url: string) => /^https?:\/\//i.test(url);

const LINK = String.raw`(https?:\/\/[^\s<>"]+[^\s<>".,;:!?)\]])`;
const MENTION = String.raw`(?<![\w@/.])(@[a-z0-9](?:[a-z0-9_.\/-]*[a-z0-9])?)`;
const WITH_MARKS = new RegExp(String.raw`\*\*(.+?)\*\*|${LINK}|${MENTION}`, 'gi');
const PLAIN = new RegExp(String.raw`()${LINK}|${MENTION}`, 'gi');

/** Plain text with @mentions standing out, web links clickable and (for search hits) `**x**` marked. */
export function richText(text: string, { marks = false } = {}): DocumentFragment {
  const frag = document.createDocumentFragment();
  let last = 0;
  for (const m of text.matchAll(marks ? WITH_MARKS : PLAIN)) {
    frag.append(text.slice(last, m.index));
    if (m[1]) frag.append(h('mark', {}, m[1]));
    else if (m[2]) frag.append(h('a', { href: m[2], target: '_blank', rel: 'noopener noreferrer' }, m[2]));
    else frag.append(h('span', { class: 'mention' }, m[3]));
    last = m.index + m[0].length;
  }
  frag.append(text.slice(last));
  return frag;
}

/** A message body: the server's sanitised HTML when it sent one, else the text. */
export function messageBody(m: Pick<MessageView, 'body' | 'html'>): HTMLElement {
  if (m.html === undefined) return h('div', { class: 'body' }, richText(m.body));
  const el = h('div', { class: 'body markdown' });
  // Sanitised on the server (Markdown → HTML with rehype-sanitize); never built from text here.
  el.innerHTML = m.html;
  return el;
}

/** Tells screen-reader users about something that happened off-focus. */
export function announce(text: string): void {
  const el = document.getElementById('announcer');
  if (!el) return;
  el.textContent = '';
  requestAnimationFrame(() => {
    el.textContent = text;
  });
}

/** Runs `fn` once calls have stopped for `ms`. */
export function debounce<A extends unknown[]>(fn: (...a: A) => void, ms: number): (...a: A) => void {
  let t: ReturnType<typeof setTimeout> | undefined;
  return (...a: A) => {
    clearTimeout(t);
    t = setTimeout(() => fn(...a), ms);
  };
}
