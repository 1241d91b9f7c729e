// What people write in Teams, as the Markdown Switchboard stores and agents
// read. Teams sends a message twice: `text` (plain, with `<at>Name</at>` for
// mentions) and a `text/html` attachment with the formatting (bold, links,
// code, lists). The HTML is read when present, the text otherwise; other
// attachments (files, cards, images) are not part of the words and are left
// out. The bot's own mention is removed; people's mentions become `@Name`.
// Pure functions, and tolerant: any string, however broken or hostile, gives
// Markdown (tags it does not know keep their words, scripts and styles lose theirs).
import type {
  BlockContent,
  List,
  ListItem,
  Paragraph,
  PhrasingContent,
  Root,
  RootContent,
  Table,
  TableCell,
  TableRow,
} from 'mdast';
import { stringifyMarkdown } from '../../../core/format/markdown.ts';
import { parseMentions } from '../../../core/format/mentions.ts';
import { namedAgents } from '../text.ts';

/** An entity of an activity, as Teams sends it (mentions and clientInfo among others). */
export interface TeamsEntity {
  type?: string;
  text?: string;
  mentioned?: { id?: string; name?: string };
}

/** The parts of an activity this reads. */
export interface TeamsMessageText {
  text?: string;
  attachments?: Array<{ contentType?: string; content?: unknown }>;
  entities?: TeamsEntity[];
}

/** A Teams message as Switchboard keeps it. */
export interface TeamsMarkdown {
  /** The Markdown agents receive, the bot's own mention removed, people mentioned as `@Name`. */
  markdown: string;
  /** The agents it names (`ask reviewer …`, `@reviewer`); people mentioned the Teams way are not among them. */
  names: string[];
  /** Those of `names` written as `@name`. */
  mentioned: string[];
  /** Whether it @mentions the bot (Teams sends a bot with RSC permissions the messages that do not, too). */
  mentionsBot: boolean;
}

/** The message as Markdown without the bot's own mention, and the agent names it gives. */
export function teamsToMarkdown(activity: TeamsMessageText, botId: string | undefined): TeamsMarkdown {
  const html = activity.attachments?.find((a) => a?.contentType === 'text/html' && typeof a.content === 'string')
    ?.content as string | undefined;
  // Plain text is HTML without tags, except that its line breaks are real.
  const source = html ?? (activity.text ?? '').replace(/\r?\n/g, '<br>');
  const tree = parseHtml(source.length > MAX_INPUT ? source.slice(0, MAX_INPUT) : source);
  const mentions = (activity.entities ?? []).filter((e) => e?.type === 'mention');
  const render = (people: boolean) => stringifyMarkdown(toMarkdown(tree, { mentions, botId, people })).trim();
  const agentsOnly = render(false);
  const mentionsBot = botId !== undefined && mentions.some((e) => e.mentioned?.id === botId);
  return { markdown: render(true), names: namedAgents(agentsOnly), mentioned: parseMentions(agentsOnly), mentionsBot };
}

/** Teams refuses messages past about 28 KB, so anything much longer is not a real message: it is cut here rather than read. */
const MAX_INPUT = 40_000;
/** Deeper nesting than this is flattened: no real message needs it and it would exhaust the stack. */
const MAX_DEPTH = 64;

// ---- a tolerant HTML reader ---------------------------------------------------

interface El {
  tag: string;
  attrs: Record<string, string>;
  children: Array<El | string>;
}

const VOID = new Set([
  'br',
  'img',
  'hr',
  'input',
  'meta',
  'link',
  'wbr',
  'source',
  'col',
  'area',
  'base',
  'embed',
  'param',
  'track',
]);
const DROPPED = new Set([
  'script',
  'style',
  'template',
  'iframe',
  'object',
  'noscript',
  'head',
  'title',
  'textarea',
  'select',
  'svg',
  'math',
]);
// A tag, a comment, or a declaration; attribute values may hold `>` inside quotes.
const TOKEN = /<!--[\s\S]*?(?:-->|$)|<![^>]*>?|<(\/?)([a-zA-Z][a-zA-Z0-9:-]*)((?:"[^"]*"|'[^']*'|[^'">])*)>/g;
const ATTR = /([^\s"'=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g;

function parseHtml(html: string): El {
  const root: El = { tag: '#root', attrs: {}, children: [] };
  const open: El[] = [root];
  let last = 0;
  let skipping: string | null = null;
  for (const m of html.matchAll(TOKEN)) {
    const top = open.at(-1)!;
    if (!skipping && m.index > last) top.children.push(decodeEntities(html.slice(last, m.index)));
    last = m.index + m[0].length;
    const tag = m[2]?.toLowerCase();
    if (!tag) continue; // comments and declarations say nothing
    const closing = m[1] === '/';
    if (skipping) {
      if (closing && tag === skipping) skipping = null;
      continue;
    }
    if (closing) {
      let at = open.length - 1;
      while (at > 0 && open[at].tag !== tag) at -= 1;
      if (at > 0) open.length = at; // closes everything opened inside it too
      continue;
    }
    if (DROPPED.has(tag)) {
      if (!/\/\s*$/.test(m[3])) skipping = tag;
      continue;
    }
    const el: El = { tag, attrs: attributes(m[3]), children: [] };
    top.children.push(el);
    if (!VOID.has(tag) && !/\/\s*$/.test(m[3]) && open.length < MAX_DEPTH) open.push(el);
  }
  if (!skipping && last < html.length) open.at(-1)!.children.push(decodeEntities(html.slice(last)));
  return root;
}

function attributes(source: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const a of source.matchAll(ATTR)) out[a[1].toLowerCase()] = decodeEntities(a[2] ?? a[3] ?? a[4] ?? '');
  return out;
}

const NAMED: Record<string, string> = {
  nbsp: '\u00a0',
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  ndash: '–',
  mdash: '—',
  hellip: '…',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  bull: '•',
  middot: '·',
  copy: '©',
  reg: '®',
  trade: '™',
  euro: '€',
};

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});/gi, (whole, name: string) => {
    if (name[0] !== '#') return NAMED[name.toLowerCase()] ?? whole;
    const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    // NUL, surrogates and out-of-range code points read as the replacement character, as browsers do.
    return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : '\ufffd';
  });
}

// ---- HTML to Markdown ----------------------------------------------------------

interface Context {
  mentions: TeamsEntity[];
  botId: string | undefined;
  /** False while reading agent names: people mentioned the Teams way must not be taken for `@name`s. */
  people: boolean;
  /** How many mentions have been read so far (the n-th mention element is the n-th mention entity). */
  read: { mentions: number };
  /** The styles the content being read is already in. */
  styles?: Style[];
}

const BLOCK = new Set([
  'p',
  'div',
  'section',
  'article',
  'header',
  'footer',
  'main',
  'aside',
  'nav',
  'figure',
  'ul',
  'ol',
  'li',
  'pre',
  'blockquote',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'table',
  'hr',
  'dl',
  'dt',
  'dd',
  'address',
  'details',
  'summary',
]);
const WEB_LINK = /^(https?:|mailto:)/i;

function toMarkdown(root: El, ctx: Omit<Context, 'read'>): Root {
  return { type: 'root', children: blocks(root.children, { ...ctx, read: { mentions: 0 } }) as RootContent[] };
}

/** Block content: runs of inline content become paragraphs; block elements their Markdown blocks. */
function blocks(nodes: Array<El | string>, ctx: Context): BlockContent[] {
  const out: BlockContent[] = [];
  let run: Array<El | string> = [];
  const flush = () => {
    const p = paragraph(run, ctx);
    if (p) out.push(p);
    run = [];
  };
  for (const n of nodes) {
    if (typeof n === 'string' || !BLOCK.has(n.tag)) {
      run.push(n);
      continue;
    }
    flush();
    out.push(...block(n, ctx));
  }
  flush();
  return out;
}

function block(el: El, ctx: Context): BlockContent[] {
  switch (el.tag) {
    case 'ul':
    case 'ol':
      return [list(el, ctx)];
    case 'li':
      return [list({ tag: 'ul', attrs: {}, children: [el] }, ctx)];
    case 'pre': {
      const value = textContent(el).replace(/^\n|\n$/g, '');
      return value ? [{ type: 'code', value }] : [];
    }
    case 'blockquote': {
      const children = blocks(el.children, ctx);
      return children.length ? [{ type: 'blockquote', children }] : [];
    }
    case 'h1':
    case 'h2':
    case 'h3':
    case 'h4':
    case 'h5':
    case 'h6': {
      const children = inline(el.children, ctx);
      return trim(children).length
        ? [{ type: 'heading', depth: Number(el.tag[1]) as 1, children: trim(children) }]
        : [];
    }
    case 'hr':
      return [{ type: 'thematicBreak' }];
    case 'table':
      return table(el, ctx);
    default:
      return blocks(el.children, ctx);
  }
}

function list(el: El, ctx: Context): List {
  const items = el.children.filter((c): c is El => typeof c !== 'string' && c.tag === 'li');
  const start = Number(el.attrs.start);
  return {
    type: 'list',
    ordered: el.tag === 'ol',
    spread: false,
    ...(el.tag === 'ol' && start > 1 ? { start } : {}),
    children: items.map((li): ListItem => ({ type: 'listItem', spread: false, children: blocks(li.children, ctx) })),
  };
}

function table(el: El, ctx: Context): BlockContent[] {
  const rows: El[] = [];
  const collect = (e: El) => {
    for (const c of e.children)
      if (typeof c !== 'string')
        c.tag === 'tr' ? rows.push(c) : ['thead', 'tbody', 'tfoot'].includes(c.tag) && collect(c);
  };
  collect(el);
  const cells = rows.map((r) =>
    r.children.filter((c): c is El => typeof c !== 'string' && (c.tag === 'td' || c.tag === 'th')),
  );
  const width = Math.max(0, ...cells.map((r) => r.length));
  if (!width) return [];
  const toRow = (r: El[]): TableRow => ({
    type: 'tableRow',
    children: Array.from(
      { length: width },
      (_x, i): TableCell => ({ type: 'tableCell', children: trim(inline(r[i]?.children ?? [], ctx)) }),
    ),
  });
  return [{ type: 'table', children: cells.map(toRow) } satisfies Table];
}

function paragraph(nodes: Array<El | string>, ctx: Context): Paragraph | null {
  const children = trim(inline(nodes, ctx));
  return children.length ? { type: 'paragraph', children } : null;
}

/** Inline content: text with HTML's whitespace rules, styling, links, line breaks and mentions. */
function inline(nodes: Array<El | string>, ctx: Context): PhrasingContent[] {
  const out: PhrasingContent[] = [];
  for (const n of nodes) {
    if (typeof n === 'string') {
      const value = n.replace(/[\s\u00a0]+/g, ' ');
      if (value) out.push({ type: 'text', value });
      continue;
    }
    if (isMention(n)) {
      out.push(...mention(n, ctx));
      continue;
    }
    switch (n.tag) {
      case 'br':
        out.push({ type: 'text', value: '\n' });
        break;
      case 'b':
      case 'strong':
        out.push(...styled('strong', n, ctx));
        break;
      case 'i':
      case 'em':
        out.push(...styled('emphasis', n, ctx));
        break;
      case 's':
      case 'strike':
      case 'del':
        out.push(...styled('delete', n, ctx));
        break;
      case 'code':
      case 'kbd':
      case 'samp':
      case 'tt': {
        const value = textContent(n).replace(/\s+/g, ' ');
        if (value.trim()) out.push({ type: 'inlineCode', value });
        break;
      }
      case 'a': {
        const children = inline(n.children, ctx);
        const href = n.attrs.href ?? '';
        if (WEB_LINK.test(href) && children.length) out.push({ type: 'link', url: href, children: trim(children) });
        else out.push(...children);
        break;
      }
      // An emoji is an image with the character as its text; other pictures are attachments, not words.
      case 'img':
        if (n.attrs.alt && /emoji/i.test(`${n.attrs.itemtype ?? ''} ${n.attrs.class ?? ''}`))
          out.push({ type: 'text', value: n.attrs.alt });
        break;
      default:
        out.push(...inline(n.children, ctx));
    }
  }
  return merge(out);
}

function isMention(el: El): boolean {
  return el.tag === 'at' || (el.tag === 'span' && /schema\.skype\.com\/Mention/i.test(el.attrs.itemtype ?? ''));
}

/** A mention: the bot's own is removed; a person's becomes `@Name` (nothing while reading agent names). */
function mention(el: El, ctx: Context): PhrasingContent[] {
  const name = textContent(el).replace(/\s+/g, ' ').trim();
  const index = /^\d+$/.test(el.attrs.itemid ?? '') ? Number(el.attrs.itemid) : ctx.read.mentions;
  ctx.read.mentions = index + 1;
  const entity = ctx.mentions[index];
  const bot =
    ctx.botId !== undefined &&
    (entity
      ? entity.mentioned?.id === ctx.botId
      : ctx.mentions.some(
          (e) => e.mentioned?.id === ctx.botId && (e.mentioned?.name === name || e.text === `<at>${name}</at>`),
        ));
  if (bot || !ctx.people || !name) return [{ type: 'text', value: ' ' }];
  return [{ type: 'text', value: `@${name}` }];
}

type Style = 'strong' | 'emphasis' | 'delete';

/** Styled content; a style inside the same style adds nothing (`**a **b** c**` would read as two runs). */
function styled(type: Style, el: El, ctx: Context): PhrasingContent[] {
  if (ctx.styles?.includes(type)) return inline(el.children, ctx);
  const children = inline(el.children, { ...ctx, styles: [...(ctx.styles ?? []), type] });
  // Edge spaces stay outside the markers, where Markdown needs them.
  const lead = children[0]?.type === 'text' && /^\s/.test(children[0].value);
  const tail = children.at(-1)?.type === 'text' && /\s$/.test((children.at(-1) as { value: string }).value);
  const core = trim(children);
  if (!core.length) return children.length ? [{ type: 'text', value: ' ' }] : [];
  return [
    ...(lead ? [{ type: 'text' as const, value: ' ' }] : []),
    { type, children: core } as PhrasingContent,
    ...(tail ? [{ type: 'text' as const, value: ' ' }] : []),
  ];
}

/** Neighbouring text runs become one; spaces where a mention was removed close up. */
function merge(nodes: PhrasingContent[]): PhrasingContent[] {
  const out: PhrasingContent[] = [];
  for (const n of nodes) {
    const prev = out.at(-1);
    if (prev?.type === 'text' && n.type === 'text') prev.value += n.value;
    else out.push(n.type === 'text' ? { ...n } : n);
  }
  for (const n of out) if (n.type === 'text') n.value = n.value.replace(/ {2,}/g, ' ').replace(/ *\n */g, '\n');
  return out.filter((n) => n.type !== 'text' || n.value);
}

/** Inline content without the spaces and line breaks at its edges. */
function trim(nodes: PhrasingContent[]): PhrasingContent[] {
  const out = [...nodes];
  const first = out[0];
  if (first?.type === 'text') out[0] = { type: 'text', value: first.value.replace(/^\s+/, '') };
  const last = out.at(-1);
  if (last?.type === 'text') out[out.length - 1] = { type: 'text', value: last.value.replace(/\s+$/, '') };
  return out.filter((n) => n.type !== 'text' || n.value);
}

/** The words of an element, line breaks included (for code, where markup is not formatting). */
function textContent(el: El): string {
  return el.children
    .map((c) =>
      typeof c === 'string'
        ? c
        : c.tag === 'br'
          ? '\n'
          : BLOCK.has(c.tag) && c.tag !== 'pre'
            ? `${textContent(c)}\n`
            : textContent(c),
    )
    .join('')
    .replace(/\u00a0/g, ' ');
}
