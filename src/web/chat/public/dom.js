// Small DOM helpers. Text always goes in through textContent; the only HTML
// inserted is a message's `html`, which the server has already sanitised.

/** h('a', { href, class: 'x', onclick }, 'text', child) */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : String(c));
  return el;
}

const COLORS = ['#4f46e5', '#0e7490', '#b45309', '#be185d', '#15803d', '#7c3aed', '#0369a1', '#a21caf'];
function colorFor(id) {
  let n = 0;
  for (const ch of id) n = (n * 31 + ch.charCodeAt(0)) >>> 0;
  return COLORS[n % COLORS.length];
}

/** The sender's picture, or their initials on a colour of their own. */
export function avatar(sender, size = '') {
  if (sender.avatarUrl) {
    return h('img', { class: `avatar ${size}`, src: sender.avatarUrl, alt: '', width: 36, height: 36, referrerpolicy: 'no-referrer', loading: 'lazy' });
  }
  const initials = sender.displayName.split(/\s+/).map((p) => p[0]).join('').slice(0, 2).toUpperCase() || '?';
  const el = h('span', { class: `avatar ${size}`, 'aria-hidden': 'true' }, initials);
  el.style.background = colorFor(sender.id);
  return el;
}

const timeFmt = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const dateFmt = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
/** "14:05" today, "12 Mar 2026, 14:05" otherwise. */
export function time(iso) {
  const d = new Date(iso);
  const today = new Date().toDateString() === d.toDateString();
  return h('time', { datetime: d.toISOString(), title: dateFmt.format(d) }, today ? timeFmt.format(d) : dateFmt.format(d));
}

/** A message body: @mentions stand out, web links are clickable, `**x**` (search hits) is marked. */
export function richText(text, { marks = false } = {}) {
  const frag = document.createDocumentFragment();
  const pattern = marks ? /\*\*(.+?)\*\*|(https?:\/\/[^\s<>"]+[^\s<>".,;:!?)\]])|(?<![\w@/.])(@[a-z0-9](?:[a-z0-9_.\/-]*[a-z0-9])?)/gi
    : /()(https?:\/\/[^\s<>"]+[^\s<>".,;:!?)\]])|(?<![\w@/.])(@[a-z0-9](?:[a-z0-9_.\/-]*[a-z0-9])?)/gi;
  let last = 0;
  for (const m of text.matchAll(pattern)) {
    frag.append(text.slice(last, m.index));
    if (m[1]) frag.append(h('mark', {}, m[1]));
    else if (m[2]) frag.append(h('a', { href: m[2], target: '_blank', rel: 'noopener noreferrer' }, m[2]));
    else frag.append(h('span', { class: 'mention' }, m[3]));
    last = m.index + m[0].length;
  }
  frag.append(text.slice(last));
  return frag;
}

/** A message body as the server rendered it from Markdown (sanitised there: no scripts, only web links). */
export function renderedBody(html) {
  const t = document.createElement('template');
  t.innerHTML = html;
  return t.content;
}

/** Tells screen-reader users about something that happened off-focus. */
export function announce(text) {
  const el = document.getElementById('announcer');
  if (!el) return;
  el.textContent = '';
  requestAnimationFrame(() => { el.textContent = text; });
}

/** One message of a list. `onThread` opens (or starts) its thread; omitted inside a thread. */
export function messageItem(m, { onThread } = {}) {
  const agent = m.sender.kind === 'agent';
  const actions = h('div', { class: 'msg-actions' });
  if (onThread && m.thread) {
    actions.append(h('button', { type: 'button', class: 'thread-link', onclick: () => onThread(m) },
      `${m.thread.replies} ${m.thread.replies === 1 ? 'reply' : 'replies'}`));
  }
  if (onThread) actions.append(h('button', { type: 'button', class: 'reply-button', onclick: () => onThread(m) }, 'Reply in thread'));
  if (m.permalink) actions.append(h('a', { href: m.permalink, target: '_blank', rel: 'noopener noreferrer', class: 'thread-link' }, `View in ${m.surface === 'teams' ? 'Teams' : 'Slack'}`));
  // The message rides along so its thread line can be redrawn when replies arrive.
  return h('li', { class: 'message', id: `m-${m.id}`, dataset: { id: m.id, sender: m.sender.id, message: JSON.stringify(m) } },
    avatar(m.sender),
    h('div', {},
      h('div', { class: 'meta' },
        h('span', { class: 'sender' }, m.sender.displayName),
        agent ? h('span', { class: 'tag' }, 'agent') : null,
        h('span', { class: 'handle' }, m.sender.label),
        time(m.createdAt)),
      h('div', { class: 'body markdown' }, typeof m.html === 'string' ? renderedBody(m.html) : richText(m.body)),
      actions.childElementCount ? actions : null));
}
