// Agents write Markdown; Slack shows mrkdwn. This renders one into the other
// (`**b**` → `*b*`, `[a](u)` → `<u|a>`, headings bold, lists with bullets,
// tables as aligned code) and escapes `&`, `<` and `>` everywhere, so an
// agent can neither break the layout nor ping `<!channel>` by writing it.
// Mrkdwn rather than Slack's `markdown` block: the same text then serves as
// the notification, the fallback and the message, in every Slack client.
import type { List, Nodes, PhrasingContent, Root, Table } from 'mdast';
import { parseMarkdown } from '../../domain/format/markdown.ts';

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

/** Markdown rendered as mrkdwn, split into sections when longer than one may hold. */
export function markdownToSlack(markdown: string): SlackText {
  const parts = (parseMarkdown(markdown) as Root).children.map((n) => block(n as Nodes)).filter(Boolean);
  const whole = parts.join('\n\n');
  if (whole.length <= SECTION_LIMIT) return { text: whole };
  const sections = pack(parts.flatMap((p) => (p.length <= SECTION_LIMIT ? [p] : cut(p))));
  const kept = sections.length > BLOCK_LIMIT ? [...sections.slice(0, BLOCK_LIMIT - 1), '_(The rest of this message is too long for Slack.)_'] : sections;
  const notice = whole.replace(/\s+/g, ' ');
  return {
    text: notice.length <= NOTIFICATION_CHARS ? notice : `${notice.slice(0, NOTIFICATION_CHARS - 1).replace(/&[a-z]*$/, '')}…`,
    blocks: kept.map((text) => ({ type: 'section', text: { type: 'mrkdwn', text } })),
  };
}

/** Consecutive parts joined into as few sections as fit. */
function pack(parts: string[]): string[] {
  const out: string[] = [];
  for (const p of parts) {
    const last = out.at(-1);
    if (last !== undefined && last.length + 2 + p.length <= SECTION_LIMIT) out[out.length - 1] = `${last}\n\n${p}`;
    else out.push(p);
  }
  return out;
}

/** One part too long for a section, cut at line ends (or spaces); a code block is closed and reopened around each cut. */
function cut(part: string): string[] {
  const fenced = part.startsWith('```') && part.endsWith('```');
  const body = fenced ? part.slice(3, -3).replace(/^\n|\n$/g, '') : part;
  const room = SECTION_LIMIT - (fenced ? 8 : 0);
  const pieces: string[] = [];
  let rest = body;
  while (rest.length > room) {
    let at = rest.lastIndexOf('\n', room);
    if (at < room / 2) at = rest.lastIndexOf(' ', room);
    if (at < room / 2) at = room;
    // Never cut inside an entity such as &amp;.
    const amp = rest.lastIndexOf('&', at);
    if (amp > at - 5 && !rest.slice(amp, at).includes(';')) at = amp;
    pieces.push(rest.slice(0, at));
    rest = rest.slice(at).replace(/^\n/, '');
  }
  pieces.push(rest);
  return fenced ? pieces.map((p) => `\`\`\`\n${p}\n\`\`\``) : pieces;
}

function block(node: Nodes, depth = 0): string {
  switch (node.type) {
    case 'paragraph': return inline(node.children);
    case 'heading': return `*${inline(node.children, true)}*`;
    case 'thematicBreak': return '──────────';
    case 'blockquote': return node.children.map((c) => block(c as Nodes, depth)).join('\n\n').split('\n').map((l) => `> ${l}`).join('\n');
    case 'list': return list(node, depth);
    case 'code': return `\`\`\`\n${escapeSlack(node.value)}\n\`\`\``;
    case 'table': return table(node);
    case 'html': return escapeSlack(node.value);
    case 'definition': return '';
    case 'footnoteDefinition': return `[^${escapeSlack(node.identifier)}] ${node.children.map((c) => block(c as Nodes, depth)).join(' ')}`;
    default: return 'children' in node ? inline(node.children as PhrasingContent[]) : 'value' in node ? escapeSlack(String(node.value)) : '';
  }
}

function list(node: List, depth: number): string {
  const indent = '    '.repeat(depth);
  return node.children.map((item, i) => {
    const mark = item.checked === true ? '☑' : item.checked === false ? '☐' : node.ordered ? `${(node.start ?? 1) + i}.` : depth % 2 ? '◦' : '•';
    const [first, ...rest] = item.children;
    const head = first ? (first.type === 'list' ? list(first, depth + 1) : block(first as Nodes, depth)) : '';
    const tail = rest.map((c) => (c.type === 'list' ? list(c, depth + 1) : `${indent}    ${block(c as Nodes, depth + 1)}`));
    return [`${indent}${mark} ${head.split('\n').join(`\n${indent}    `)}`, ...tail].join('\n');
  }).join('\n');
}

/** Slack has no tables: the cells go into a code block, in aligned columns. */
function table(node: Table): string {
  const rows = node.children.map((r) => r.children.map((c) => plain(c.children)));
  const widths = rows[0]?.map((_c, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i])).join(' | ').trimEnd();
  const [head, ...body] = rows;
  return `\`\`\`\n${escapeSlack([line(head), widths.map((w) => '-'.repeat(w)).join('-+-'), ...body.map(line)].join('\n'))}\n\`\`\``;
}

/** Inline content as mrkdwn; inside a bold heading, bold adds no second pair of markers. */
function inline(nodes: PhrasingContent[], bold = false): string {
  return nodes.map((n) => phrase(n, bold)).join('');
}

function phrase(n: PhrasingContent, bold: boolean): string {
  switch (n.type) {
    case 'text': return escapeSlack(n.value);
    case 'strong': return bold ? inline(n.children, true) : wrap('*', inline(n.children, true));
    case 'emphasis': return wrap('_', inline(n.children, bold));
    case 'delete': return wrap('~', inline(n.children, bold));
    case 'inlineCode': return `\`${escapeSlack(n.value)}\``;
    case 'break': return '\n';
    case 'link': return link(n.url, plain(n.children));
    case 'image': return link(n.url, n.alt ?? '');
    case 'html': return escapeSlack(n.value);
    case 'footnoteReference': return `[^${escapeSlack(n.identifier)}]`;
    default: return 'children' in n ? inline(n.children as PhrasingContent[], bold) : '';
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
  return nodes.map((n) => ('value' in n ? n.value : 'children' in n ? plain(n.children as PhrasingContent[]) : n.type === 'image' ? n.alt ?? '' : '')).join('');
}
