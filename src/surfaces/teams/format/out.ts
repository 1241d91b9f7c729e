// Agents write Markdown; Teams shows it two ways, chosen by content. A plain
// reply (paragraphs, emphasis, links, lists, quotes, short code) is a message
// with `textFormat: 'markdown'`, which Teams renders natively and shows in
// notifications. What Teams' markdown gets wrong (tables, headings, long code)
// goes into an Adaptive Card built from RichTextBlock/TextRun (text that is
// never read as markup), Table and monospace runs. In both forms the agent's
// text can never become markup: `<`, `>` and `&` are written as entities, raw
// HTML shows as text, only web and mail links are links. `@handle` of a person
// linked in this tenant becomes a real Teams mention. Past Teams' size limit
// the message is cut at a block and says so.
import type { List, Nodes, PhrasingContent, Root, RootContent, Table } from 'mdast';
import { parseMarkdown, stringifyMarkdown } from '../../../core/format/markdown.ts';
import { mentionsIn } from '../../../core/format/mentions.ts';

export type CardElement = Record<string, unknown>;

/** A person a message may mention: their Teams (or Entra object) id and the name Teams shows. */
export interface TeamsPerson {
  id: string;
  name: string;
}

/** A mention entity, as Teams expects it next to `<at>Name</at>` in the text. */
export interface TeamsMention {
  type: 'mention';
  text: string;
  mentioned: { id: string; name: string };
}

/** What an agent's Markdown becomes: message text, or card body elements. */
export type TeamsRendering =
  | { kind: 'text'; text: string; entities: TeamsMention[]; truncated: boolean }
  | { kind: 'card'; body: CardElement[]; truncated: boolean };

/** Teams refuses a message above about 28 KB; the text or card is kept under this, leaving room for the envelope. */
export const TEAMS_LIMIT_BYTES = 24_000;
/** A code block longer than this many lines reads better in a card's monospace block than in a chat bubble. */
const LONG_CODE_LINES = 15;
const WEB_LINK = /^(https?:|mailto:)/i;
const CUT_NOTE = '(The rest of this message is too long for Teams.)';

/** Markdown as Teams shows it; `people` maps lowercased handles to those who may be mentioned. */
export function markdownToTeams(
  markdown: string,
  people: ReadonlyMap<string, TeamsPerson> = new Map(),
  limitBytes = TEAMS_LIMIT_BYTES,
): TeamsRendering {
  const tree = parseMarkdown(markdown);
  return needsCard(tree) ? toCard(tree, limitBytes) : toText(tree, people, limitBytes);
}

/** Markdown as Teams markdown text whatever it holds (for streamed drafts, which cannot be cards), made safe the same way. */
export function teamsText(markdown: string, limitBytes = TEAMS_LIMIT_BYTES): string {
  return toText(parseMarkdown(markdown), new Map(), limitBytes).text;
}

function needsCard(tree: Root): boolean {
  return tree.children.some(function rich(n: Nodes): boolean {
    if (n.type === 'table' || n.type === 'heading') return true;
    if (n.type === 'code') return n.value.split('\n').length > LONG_CODE_LINES;
    return 'children' in n && (n.children as Nodes[]).some(rich);
  });
}

// ---- markdown text ---------------------------------------------------------

const ENTITY: Record<string, string> = { '<': '&lt;', '>': '&gt;', '&': '&amp;' };
const escapeHtml = (s: string) => s.replace(/[<>&]/g, (c) => ENTITY[c]);

function toText(
  tree: Root,
  people: ReadonlyMap<string, TeamsPerson>,
  limitBytes: number,
): Extract<TeamsRendering, { kind: 'text' }> {
  const entities: TeamsMention[] = [];
  prepareText(tree, people, entities);
  const parts = tree.children.map((n) => stringifyMarkdown({ type: 'root', children: [n] }, { bracketLinks: true }));
  const { kept, cut } = fit(parts, (p) => Buffer.byteLength(p) + 2, limitBytes - 200, cutText);
  const text = [...kept, ...(cut ? [`_${CUT_NOTE}_`] : [])].join('\n\n');
  // A mention cut away with its block must not stay as an entity.
  return { kind: 'text', text, entities: entities.filter((e) => text.includes(e.text)), truncated: cut };
}

/** The start of a block of Markdown text within `room` bytes, cut at a line end or space; a code fence is closed again. */
function cutText(part: string, room: number): string | null {
  const fence = /^(`{3,}|~{3,})/.exec(part)?.[1];
  let head = Buffer.from(part)
    .subarray(0, Math.max(0, room - 8))
    .toString()
    .replace(/\ufffd$/, '');
  const at = Math.max(head.lastIndexOf('\n'), head.lastIndexOf(' '));
  if (at > head.length / 2) head = head.slice(0, at);
  // An entity such as &amp; is never cut in half.
  head = head.replace(/&[a-z#0-9]*$/i, '');
  if (head.length < 20) return null;
  return fence ? `${head.trimEnd()}\n${fence}` : `${head.trimEnd()} …`;
}

/** Nodes whose children are blocks: raw HTML there becomes a paragraph of text. */
const BLOCK_PARENTS = new Set(['root', 'blockquote', 'listItem', 'footnoteDefinition']);

/** Text made safe for Teams' HTML-aware markdown: entities for `<>&`, raw HTML as text, mentions, web links only. */
function prepareText(node: Nodes, people: ReadonlyMap<string, TeamsPerson>, entities: TeamsMention[]): void {
  if (!('children' in node)) return;
  const blockLevel = BLOCK_PARENTS.has(node.type);
  node.children = (node.children as Nodes[]).flatMap((child): Nodes[] => {
    if (child.type === 'html' && blockLevel)
      return [{ type: 'paragraph', children: textWithMentions(child.value, people, entities) as PhrasingContent[] }];
    if (child.type === 'text' || child.type === 'html') return textWithMentions(child.value, people, entities);
    if (child.type === 'image')
      return safeLink(
        { type: 'link', url: child.url, children: [{ type: 'text', value: child.alt || child.url }] },
        people,
        entities,
      );
    if (child.type === 'link') return safeLink(child, people, entities);
    prepareText(child, people, entities);
    return [child];
  }) as typeof node.children;
}

function safeLink(
  link: Extract<Nodes, { type: 'link' }>,
  people: ReadonlyMap<string, TeamsPerson>,
  entities: TeamsMention[],
): Nodes[] {
  prepareText(link, people, entities);
  return WEB_LINK.test(link.url) ? [link] : link.children;
}

/** Plain text as text and raw-HTML pieces: `<>&` as entities and `@handle`s of linked people as `<at>` mentions. */
function textWithMentions(value: string, people: ReadonlyMap<string, TeamsPerson>, entities: TeamsMention[]): Nodes[] {
  const out: Nodes[] = [];
  let last = 0;
  const plain = (s: string) => {
    for (const piece of s.split(/([<>&])/)) {
      if (!piece) continue;
      out.push(ENTITY[piece] ? { type: 'html', value: ENTITY[piece] } : { type: 'text', value: piece });
    }
  };
  for (const m of mentionsIn(value)) {
    const person = people.get(m.name);
    if (!person) continue;
    plain(value.slice(last, m.index));
    const text = `<at>${escapeHtml(person.name)}</at>`;
    out.push({ type: 'html', value: text });
    if (!entities.some((e) => e.text === text))
      entities.push({ type: 'mention', text, mentioned: { id: person.id, name: person.name } });
    last = m.index + m.text.length;
  }
  plain(value.slice(last));
  return out;
}

/** One line of Teams markdown: `bold` in bold, then `rest`, both shown exactly as written. */
export function teamsLine(bold: string, rest: string): string {
  const line: Root = {
    type: 'root',
    children: [
      {
        type: 'paragraph',
        children: [
          { type: 'strong', children: [{ type: 'text', value: bold }] },
          { type: 'text', value: rest },
        ],
      },
    ],
  };
  prepareText(line, new Map(), []);
  return stringifyMarkdown(line, { bracketLinks: true });
}

// ---- Adaptive Card ------------------------------------------------------------

interface RunStyle {
  weight?: 'Bolder';
  italic?: boolean;
  strikethrough?: boolean;
  fontType?: 'Monospace';
  url?: string;
}

function toCard(tree: Root, limitBytes: number): TeamsRendering {
  const elements: CardElement[] = [];
  let separate = false;
  for (const n of tree.children) {
    if (n.type === 'thematicBreak') {
      separate = true;
      continue;
    }
    for (const e of cardBlock(n as RootContent, 0)) {
      elements.push(separate ? { ...e, separator: true } : e);
      separate = false;
    }
  }
  const { kept, cut, stopped } = fit(elements, cardBytes, limitBytes - 300, cutElement);
  return { kind: 'card', body: stopped ? [...kept, note(CUT_NOTE)] : kept, truncated: cut };
}

const cardBytes = (e: CardElement) => Buffer.byteLength(JSON.stringify(e)) + 1;
const note = (text: string): CardElement => ({ type: 'TextBlock', text, wrap: true, isSubtle: true, size: 'Small' });

/**
 * A table too long for the room: its header and the rows that fit, then a note of how many were left out, leaving
 * room for what follows it when that is short. Null when not even one row fits.
 */
function cutTable(t: CardElement, room: number, after: CardElement[]): CardElement[] | null {
  const rows = t.rows as CardElement[];
  const rest = after.reduce((sum, e) => sum + cardBytes(e), 0);
  let left =
    room -
    (rest <= room / 2 ? rest : 0) -
    cardBytes(note(`(${rows.length} more rows of this table are too long for Teams.)`)) -
    cardBytes({ ...t, rows: [] });
  let k = 0;
  while (k < rows.length && (left -= cardBytes(rows[k]!)) >= 0) k += 1;
  if (k < 2) return null;
  return [
    { ...t, rows: rows.slice(0, k) },
    note(`(${rows.length - k} more rows of this table are too long for Teams.)`),
  ];
}

/** The start of a card element within `room` bytes: a table's first rows, else its longest text run shortened (a long code block, usually). */
function cutElement(e: CardElement, room: number, after: CardElement[]): CardElement | CardElement[] | null {
  if (e.type === 'Table') return cutTable(e, room, after);
  const copy = structuredClone(e);
  const texts: Array<{ text: string }> = [];
  (function collect(v: unknown) {
    if (Array.isArray(v)) v.forEach(collect);
    else if (v && typeof v === 'object') {
      if ((v as CardElement).type === 'TextRun') texts.push(v as { text: string });
      Object.values(v).forEach(collect);
    }
  })(copy);
  const longest = texts.sort((a, b) => b.text.length - a.text.length)[0];
  if (!longest) return null;
  const whole = longest.text;
  let keep = Math.floor(whole.length * (room / Buffer.byteLength(JSON.stringify(copy))));
  // JSON escaping makes the size uneven; shrink until it fits.
  for (let tries = 0; tries < 20 && keep >= 20; tries += 1, keep = Math.floor(keep * 0.9)) {
    const head = whole.slice(0, keep);
    longest.text = `${head.slice(0, Math.max(head.lastIndexOf('\n'), Math.floor(keep / 2)))}\n…`;
    if (Buffer.byteLength(JSON.stringify(copy)) <= room) return copy;
  }
  return null;
}

function rich(inlines: CardElement[], extra: CardElement = {}): CardElement {
  return { type: 'RichTextBlock', inlines, ...extra };
}

function cardBlock(n: RootContent, depth: number): CardElement[] {
  switch (n.type) {
    case 'paragraph':
      return [rich(runs(n.children, {}))];
    case 'heading': {
      const size = n.depth === 1 ? 'Large' : n.depth === 2 ? 'Medium' : 'Default';
      return [
        rich(
          runs(n.children, { weight: 'Bolder' }).map((r) => ({ ...r, size })),
          { spacing: 'Medium' },
        ),
      ];
    }
    case 'code':
      return [
        {
          type: 'Container',
          style: 'emphasis',
          items: [rich([{ type: 'TextRun', text: n.value || ' ', fontType: 'Monospace' }])],
        },
      ];
    case 'blockquote':
      return [
        { type: 'Container', style: 'emphasis', items: n.children.flatMap((c) => cardBlock(c as RootContent, depth)) },
      ];
    case 'list':
      return [rich(listRuns(n, 0))];
    case 'table':
      return [table(n)];
    case 'html':
      return [rich([{ type: 'TextRun', text: n.value }])];
    case 'footnoteDefinition':
      return n.children.flatMap((c) => cardBlock(c as RootContent, depth));
    default:
      return [];
  }
}

/** A list as lines of one RichTextBlock: bullets or numbers, nested lists indented. */
function listRuns(list: List, depth: number): CardElement[] {
  const out: CardElement[] = [];
  const indent = '\u00a0\u00a0\u00a0\u00a0'.repeat(depth);
  list.children.forEach((item, i) => {
    const mark =
      item.checked === true
        ? '☑'
        : item.checked === false
          ? '☐'
          : list.ordered
            ? `${(list.start ?? 1) + i}.`
            : depth % 2
              ? '◦'
              : '•';
    item.children.forEach((c, j) => {
      if (out.length) out.push({ type: 'TextRun', text: '\n' });
      if (c.type === 'list') return void out.push(...listRuns(c, depth + 1));
      out.push({ type: 'TextRun', text: j === 0 ? `${indent}${mark} ` : `${indent}\u00a0\u00a0\u00a0` });
      out.push(
        ...(c.type === 'paragraph' || c.type === 'heading'
          ? runs(c.children, {})
          : c.type === 'code'
            ? [{ type: 'TextRun', text: c.value, fontType: 'Monospace' }]
            : [{ type: 'TextRun', text: plainOf(c as Nodes) }]),
      );
    });
  });
  return out;
}

function table(node: Table): CardElement {
  const width = Math.max(1, ...node.children.map((r) => r.children.length));
  return {
    type: 'Table',
    firstRowAsHeader: true,
    showGridLines: true,
    gridStyle: 'accent',
    columns: Array.from({ length: width }, () => ({ width: 1 })),
    rows: node.children.map((row, i) => ({
      type: 'TableRow',
      ...(i === 0 ? { style: 'accent' } : {}),
      cells: Array.from({ length: width }, (_x, c) => ({
        type: 'TableCell',
        items: [rich(runs(row.children[c]?.children ?? [], i === 0 ? { weight: 'Bolder' } : {}))],
      })),
    })),
  };
}

/** Inline Markdown as TextRuns, which Teams shows exactly as given (no markup is read in them). */
function runs(nodes: PhrasingContent[], style: RunStyle): CardElement[] {
  const out: CardElement[] = [];
  for (const n of nodes) {
    switch (n.type) {
      case 'text':
        out.push(run(n.value, style));
        break;
      case 'html':
        out.push(run(n.value, style));
        break;
      case 'inlineCode':
        out.push(run(n.value, { ...style, fontType: 'Monospace' }));
        break;
      case 'break':
        out.push(run('\n', {}));
        break;
      case 'strong':
        out.push(...runs(n.children, { ...style, weight: 'Bolder' }));
        break;
      case 'emphasis':
        out.push(...runs(n.children, { ...style, italic: true }));
        break;
      case 'delete':
        out.push(...runs(n.children, { ...style, strikethrough: true }));
        break;
      case 'link':
        out.push(...runs(n.children, WEB_LINK.test(n.url) ? { ...style, url: n.url } : style));
        break;
      case 'image':
        out.push(run(n.alt || n.url, WEB_LINK.test(n.url) ? { ...style, url: n.url } : style));
        break;
      case 'footnoteReference':
        out.push(run(`[${n.identifier}]`, style));
        break;
      default:
        if ('children' in n) out.push(...runs(n.children as PhrasingContent[], style));
    }
  }
  // Neighbouring runs styled alike become one.
  const merged: CardElement[] = [];
  for (const r of out) {
    const prev = merged.at(-1);
    if (r.text === '') continue;
    if (prev && sameLook(prev, r)) prev.text = `${String(prev.text)}${String(r.text)}`;
    else merged.push({ ...r });
  }
  return merged;
}

function sameLook(a: CardElement, b: CardElement): boolean {
  const { text: _a, ...lookA } = a;
  const { text: _b, ...lookB } = b;
  return JSON.stringify(lookA) === JSON.stringify(lookB);
}

function run(text: string, s: RunStyle): CardElement {
  const { url, ...look } = s;
  return {
    type: 'TextRun',
    text,
    ...look,
    ...(url ? { color: 'Accent', underline: true, selectAction: { type: 'Action.OpenUrl', url } } : {}),
  };
}

function plainOf(n: Nodes): string {
  return 'value' in n ? n.value : 'children' in n ? (n.children as Nodes[]).map(plainOf).join(' ') : '';
}

/**
 * The items that fit in `limit`, in order. The first that does not is shortened by `shorten` if it can be, and the
 * rest left out (`stopped`); when `shorten` gives a list instead (a table's first rows and a note), fitting goes on after it.
 */
function fit<T>(
  items: T[],
  size: (item: T) => number,
  limit: number,
  shorten: (item: T, room: number, after: T[]) => T | T[] | null,
): { kept: T[]; cut: boolean; stopped: boolean } {
  const kept: T[] = [];
  let used = 0;
  let cut = false;
  for (const [i, item] of items.entries()) {
    const bytes = size(item);
    if (used + bytes <= limit) {
      kept.push(item);
      used += bytes;
      continue;
    }
    const short = shorten(item, limit - used, items.slice(i + 1));
    if (Array.isArray(short)) {
      kept.push(...short);
      used += short.reduce((sum, s) => sum + size(s), 0);
      cut = true;
      continue;
    }
    if (short !== null) kept.push(short);
    return { kept, cut: true, stopped: true };
  }
  return { kept, cut, stopped: false };
}
