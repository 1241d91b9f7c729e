// Agents write Markdown; Slack shows mrkdwn. This renders one into the other
// (`**b**` → `*b*`, `[a](u)` → `<u|a>`, headings bold, lists with bullets,
// tables as aligned code) and escapes `&`, `<` and `>` everywhere, so an
// agent can neither break the layout nor ping `<!channel>` by writing it.
// Mrkdwn rather than Slack's `markdown` block: the same text then serves as
// the notification, the fallback and the message, in every Slack client.
import type { List, Nodes, PhrasingContent, Root, Table } from 'mdast';
import { parseMarkdown } from '../../../core/format/markdown.ts';

/** Slack's limit for the text of one section block. */
export const SECTION_LIMIT = 3000;
/** Slack's limit for blocks in one message. */
const BLOCK_LIMIT = 50;
/** How much of a long message its notification shows. */
const NOTIFICATION_CHARS = 300;
const WEB_LINK = /^(https?:|mailto:)/i;

/** What chat.postMessage gets: `text` alone when it fits one section, else sections with `text` as the notification. */
export interface SlackText {
  text: string;
  blocks?: Array<{ type: 'section'; text: { type: 'mrkdwn'; text: string } }>;
}

/** Slack's escaping for message text. */
export const escapeSlack = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * Markdown rendered as mrkdwn, split into sections when longer than one may hold. `lead` is mrkdwn
 * put before the message on its first line (who asked, in a slash command's post).
 */
export function markdownToSlack(markdown: string, lead?: string): SlackText {
  const nodes = (parseMarkdown(markdown) as Root).children
    .map((node) => ({ node: node as Nodes, text: block(node as Nodes) }))
    .filter((p) => p.text);
  const whole = [lead, nodes.map((p) => p.text).join('\n\n')].filter(Boolean).join(' ');
  if (whole.length <= SECTION_LIMIT) return { text: whole };
  // Top-level nodes (paragraphs, lists, code…) first; only a node too long for a section is split inside.
  const parts: Part[] = [
    ...(lead ? [{ text: lead, sep: '' }] : []),
    ...nodes.flatMap((p, i) => {
      const room = i === 0 && lead ? SECTION_LIMIT - lead.length - 1 : SECTION_LIMIT;
      return startWith(
        p.text.length <= SECTION_LIMIT ? [{ text: p.text, sep: '' }] : piecesOf(p.node, 0, room),
        i === 0 && lead ? ' ' : '\n\n',
      );
    }),
  ].flatMap((p) =>
    p.text.length <= SECTION_LIMIT
      ? [p]
      : startWith(
          cut(p.text, SECTION_LIMIT).map((text) => ({ text, sep: '\n' })),
          p.sep,
        ),
  );
  const sections = pack(parts);
  const kept =
    sections.length > BLOCK_LIMIT
      ? [...sections.slice(0, BLOCK_LIMIT - 1), '_(The rest of this message is too long for Slack.)_']
      : sections;
  return {
    text: notification(whole),
    blocks: kept.map((text) => ({ type: 'section', text: { type: 'mrkdwn', text } })),
  };
}

/** The start of the message for notifications, never ending inside an entity or a `<…>` (it would show as raw markup). */
function notification(whole: string): string {
  const notice = whole.replace(/\s+/g, ' ');
  if (notice.length <= NOTIFICATION_CHARS) return notice;
  const start = notice.slice(0, NOTIFICATION_CHARS - 1).replace(/&[a-z]*$/, '');
  const open = start.lastIndexOf('<');
  return `${open > start.lastIndexOf('>') ? start.slice(0, open).trimEnd() : start}…`;
}

/** A piece of a message that fits a section, and what joins it to the piece before when both fit in one. */
interface Part {
  text: string;
  sep: string;
}

const startWith = (parts: Part[], sep: string) => parts.map((p, i) => (i ? p : { ...p, sep }));

/** Consecutive parts joined into as few sections as fit. */
function pack(parts: Part[]): string[] {
  const out: string[] = [];
  for (const p of parts) {
    const last = out.at(-1);
    if (last !== undefined && last.length + p.sep.length + p.text.length <= SECTION_LIMIT)
      out[out.length - 1] = `${last}${p.sep}${p.text}`;
    else out.push(p.text);
  }
  return out;
}

/** A node as pieces of at most `room` characters: lists by item, quotes by child, paragraphs between words, code by line. */
function piecesOf(node: Nodes, depth: number, room: number): Part[] {
  const whole = block(node, depth);
  if (whole.length <= room) return [{ text: whole, sep: '' }];
  switch (node.type) {
    case 'paragraph':
      return words(node.children, [], room);
    case 'heading':
      return words(node.children, ['*'], room);
    case 'list':
      return node.children.flatMap((_item, i) => startWith(itemPieces(node, i, depth, room), '\n'));
    case 'blockquote':
      return prefixed(
        (r) => node.children.flatMap((c) => startWith(piecesOf(c as Nodes, depth, r), '\n\n')),
        '> ',
        '> ',
        room,
      );
    default:
      return cut(whole, room).map((text) => ({ text, sep: '\n' }));
  }
}

/** One list item as pieces, marked and indented as `list` does. */
function itemPieces(node: List, i: number, depth: number, room: number): Part[] {
  const whole = list({ ...node, start: (node.start ?? 1) + i, children: [node.children[i]] }, depth);
  if (whole.length <= room) return [{ text: whole, sep: '' }];
  const indent = '    '.repeat(depth);
  return node.children[i].children.flatMap((c, j) => {
    if (j && c.type === 'list') return startWith(piecesOf(c, depth + 1, room), '\n');
    const within = (r: number) => piecesOf(c as Nodes, c.type === 'list' || j ? depth + 1 : depth, r);
    return startWith(
      prefixed(within, j ? `${indent}    ` : `${indent}${markOf(node, i, depth)} `, `${indent}    `, room),
      '\n',
    );
  });
}

/**
 * Pieces made by `make`, with `first` before their first line and `rest` before every other, each within `room`:
 * the prefixes' cost depends on the lines, so the pieces are made smaller until they fit.
 */
function prefixed(make: (room: number) => Part[], first: string, rest: string, room: number): Part[] {
  for (let r = room - first.length; ; ) {
    const parts = make(r).map((p, i) => ({
      text: (i ? rest : first) + p.text.split('\n').join(`\n${rest}`),
      sep: i ? p.sep.replace(/\n(?=\n)/g, `\n${rest.trimEnd()}`) : p.sep,
    }));
    const over = Math.max(...parts.map((p) => p.text.length)) - room;
    // Past a few hundred characters the last resort (cut) takes over.
    if (over <= 0 || r - over < 200) return parts;
    r -= over;
  }
}

/** One inline run (a word, a link, a code span, a space) and the formatting markers it sits in, outermost first. */
interface Token {
  text: string;
  marks: string[];
  space: boolean;
}

function tokens(nodes: PhrasingContent[], marks: string[], out: Token[] = []): Token[] {
  const within = (m: string) => (marks.includes(m) ? marks : [...marks, m]);
  for (const n of nodes) {
    if (n.type === 'text')
      out.push(
        ...n.value
          .split(/(\s+)/)
          .filter(Boolean)
          .map((w) => ({ text: escapeSlack(w), marks, space: /^\s/.test(w) })),
      );
    else if (n.type === 'strong') tokens(n.children, within('*'), out);
    else if (n.type === 'emphasis') tokens(n.children, within('_'), out);
    else if (n.type === 'delete') tokens(n.children, within('~'), out);
    else if (n.type === 'break') out.push({ text: '\n', marks, space: true });
    else out.push({ text: phrase(n, marks.includes('*')), marks, space: false });
  }
  return out;
}

/**
 * Inline content too long for a section, cut between words and never inside a link or code span;
 * bold, italic and strike are closed before each cut and opened again after it.
 */
function words(nodes: PhrasingContent[], marks: string[], room: number): Part[] {
  const out: Part[] = [];
  let run = new Run();
  for (const t of tokens(nodes, marks)) {
    if (!t.space && !run.empty && run.lengthWith(t) > room) {
      out.push({ text: run.done(), sep: '\n' });
      run = new Run();
    }
    run.add(t);
  }
  if (!run.empty) out.push({ text: run.done(), sep: '\n' });
  return out;
}

/** Tokens written out with their markers: spaces go outside markers (Slack shows `*a *` literally), none at the start. */
class Run {
  private text = '';
  private open: string[] = [];
  private gap = '';

  get empty() {
    return !this.text;
  }

  /** The length of the run with `t` added and every marker closed. */
  lengthWith(t: Token): number {
    const [close, open] = this.change(t.marks);
    return this.text.length + close.length + this.gap.length + open.length + t.text.length + t.marks.length;
  }

  add(t: Token) {
    if (t.space) {
      if (this.text) this.gap += t.text;
      return;
    }
    const [close, open] = this.change(t.marks);
    this.text += close + this.gap + open + t.text;
    this.gap = '';
    this.open = t.marks;
  }

  done(): string {
    return this.text + [...this.open].reverse().join('');
  }

  /** The markers to close and to open to go from the open ones to `marks`. */
  private change(marks: string[]): [string, string] {
    let same = 0;
    while (same < this.open.length && this.open[same] === marks[same]) same += 1;
    return [this.open.slice(same).reverse().join(''), marks.slice(same).join('')];
  }
}

/** Text too long for `room`, cut at line ends (or spaces), never inside `<…>` or an entity; a code block is closed and reopened around each cut. */
function cut(part: string, room: number): string[] {
  const fenced = part.startsWith('```') && part.endsWith('```');
  const body = fenced ? part.slice(3, -3).replace(/^\n|\n$/g, '') : part;
  const size = room - (fenced ? 8 : 0);
  const pieces: string[] = [];
  let rest = body;
  while (rest.length > size) {
    let at = rest.lastIndexOf('\n', size);
    if (at < size / 2) at = rest.lastIndexOf(' ', size);
    if (at < size / 2) at = size;
    // Never cut inside an entity such as &amp;, nor inside a link or mention.
    const amp = rest.lastIndexOf('&', at);
    if (amp > at - 5 && !rest.slice(amp, at).includes(';')) at = amp;
    const open = rest.lastIndexOf('<', at - 1);
    if (open > 0 && open > rest.lastIndexOf('>', at - 1)) at = open;
    pieces.push(rest.slice(0, at));
    rest = rest.slice(at).replace(/^\n/, '');
  }
  pieces.push(rest);
  return fenced ? pieces.map((p) => `\`\`\`\n${p}\n\`\`\``) : pieces;
}

function block(node: Nodes, depth = 0): string {
  switch (node.type) {
    case 'paragraph':
      return inline(node.children);
    case 'heading':
      return `*${inline(node.children, true)}*`;
    case 'thematicBreak':
      return '──────────';
    case 'blockquote':
      return node.children
        .map((c) => block(c as Nodes, depth))
        .join('\n\n')
        .split('\n')
        .map((l) => `> ${l}`)
        .join('\n');
    case 'list':
      return list(node, depth);
    case 'code':
      return `\`\`\`\n${escapeSlack(node.value)}\n\`\`\``;
    case 'table':
      return table(node);
    case 'html':
      return escapeSlack(node.value);
    case 'definition':
      return '';
    case 'footnoteDefinition':
      return `[^${escapeSlack(node.identifier)}] ${node.children.map((c) => block(c as Nodes, depth)).join(' ')}`;
    default:
      return 'children' in node
        ? inline(node.children as PhrasingContent[])
        : 'value' in node
          ? escapeSlack(String(node.value))
          : '';
  }
}

function list(node: List, depth: number): string {
  const indent = '    '.repeat(depth);
  return node.children
    .map((item, i) => {
      const mark = markOf(node, i, depth);
      const [first, ...rest] = item.children;
      const head = first ? (first.type === 'list' ? list(first, depth + 1) : block(first as Nodes, depth)) : '';
      const tail = rest.map((c) =>
        c.type === 'list' ? list(c, depth + 1) : `${indent}    ${block(c as Nodes, depth + 1)}`,
      );
      return [`${indent}${mark} ${head.split('\n').join(`\n${indent}    `)}`, ...tail].join('\n');
    })
    .join('\n');
}

function markOf(node: List, i: number, depth: number): string {
  const { checked } = node.children[i];
  return checked === true
    ? '☑'
    : checked === false
      ? '☐'
      : node.ordered
        ? `${(node.start ?? 1) + i}.`
        : depth % 2
          ? '◦'
          : '•';
}

/** Slack has no tables: the cells go into a code block, in aligned columns. */
function table(node: Table): string {
  const rows = node.children.map((r) => r.children.map((c) => plain(c.children)));
  const widths = rows[0]?.map((_c, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  const line = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i]))
      .join(' | ')
      .trimEnd();
  const [head, ...body] = rows;
  return `\`\`\`\n${escapeSlack([line(head), widths.map((w) => '-'.repeat(w)).join('-+-'), ...body.map(line)].join('\n'))}\n\`\`\``;
}

/** Inline content as mrkdwn; inside a bold heading, bold adds no second pair of markers. */
function inline(nodes: PhrasingContent[], bold = false): string {
  return nodes.map((n) => phrase(n, bold)).join('');
}

function phrase(n: PhrasingContent, bold: boolean): string {
  switch (n.type) {
    case 'text':
      return escapeSlack(n.value);
    case 'strong':
      return bold ? inline(n.children, true) : wrap('*', inline(n.children, true));
    case 'emphasis':
      return wrap('_', inline(n.children, bold));
    case 'delete':
      return wrap('~', inline(n.children, bold));
    case 'inlineCode':
      return `\`${escapeSlack(n.value)}\``;
    case 'break':
      return '\n';
    case 'link':
      return link(n.url, plain(n.children));
    case 'image':
      return link(n.url, n.alt ?? '');
    case 'html':
      return escapeSlack(n.value);
    case 'footnoteReference':
      return `[^${escapeSlack(n.identifier)}]`;
    default:
      return 'children' in n ? inline(n.children as PhrasingContent[], bold) : '';
  }
}

/** Markers around text, with its edge spaces outside them (Slack shows `* x*` literally). */
function wrap(mark: string, text: string): string {
  const [, lead, core, trail] = /^(\s*)([\s\S]*?)(\s*)$/.exec(text)!;
  return core ? `${lead}${mark}${core}${mark}${trail}` : text;
}

/** `<url|label>` for web and mail links; other schemes are shown as text and never linked. */
function link(url: string, label: string): string {
  if (!WEB_LINK.test(url)) return escapeSlack(label || url);
  const target = escapeSlack(url.replace(/[|<>\s]/g, (c) => encodeURIComponent(c)));
  return !label || label === url ? `<${target}>` : `<${target}|${escapeSlack(label)}>`;
}

function plain(nodes: PhrasingContent[]): string {
  return nodes
    .map((n) =>
      'value' in n
        ? n.value
        : 'children' in n
          ? plain(n.children as PhrasingContent[])
          : n.type === 'image'
            ? (n.alt ?? '')
            : '',
    )
    .join('');
}
