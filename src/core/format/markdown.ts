// Markdown (CommonMark + GFM) is the one stored and agent-facing message
// format; every surface converts into it on the way in and out of it on the
// way out. This module holds the one parser configuration they all share.
import type { Nodes, Root } from 'mdast';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import remarkStringify from 'remark-stringify';
import { unified } from 'unified';

const parser = unified().use(remarkParse).use(remarkGfm).freeze();
// `-` bullets and `*` emphasis are what agents and people write most; fences keep code unambiguous.
const WRITE = { bullet: '-', emphasis: '_', strong: '*', fences: true, rule: '-' } as const;
const writer = unified().use(remarkGfm).use(remarkStringify, WRITE).freeze();
// A link whose words are its URL is otherwise written `<url>`, which an HTML-reading surface (Teams) takes for a tag.
const bracketWriter = unified()
  .use(remarkGfm)
  .use(remarkStringify, { ...WRITE, resourceLink: true })
  .freeze();

/** Deeper nesting than this is no real message; every converter walks trees recursively, so such a text is kept as plain words. */
const MAX_DEPTH = 100;
/** A line opening 20 containers (`> - 1. …`) or indented past 120 columns: nesting no real message has. */
const DEEP_LINE = /^(?:[ \t]*(?:>|[*+-]|\d{1,9}[.)])(?=[ \t]|$)){20}|^[ \t]{120}/m;

/**
 * The syntax tree of a message body. A body nested deeper than any message
 * needs (`> > > …` or `- - - …` many times over, which would take the parser
 * minutes or exhaust the stack of a converter) is one paragraph of its literal text.
 */
export function parseMarkdown(markdown: string): Root {
  // The parser's time grows much faster than the text with container nesting: a few KB of `- - - …` took minutes.
  if (DEEP_LINE.test(markdown)) return literal(markdown);
  let tree: Root;
  try {
    tree = parser.parse(markdown);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    return literal(markdown);
  }
  return depthOf(tree) > MAX_DEPTH ? literal(markdown) : tree;
}

function literal(markdown: string): Root {
  return { type: 'root', children: [{ type: 'paragraph', children: [{ type: 'text', value: markdown }] }] };
}

/** How deep a tree is, without recursion (the point is not to overflow the stack on a deep one). */
function depthOf(tree: Root): number {
  let deepest = 0;
  const stack: Array<[Nodes, number]> = [[tree, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    deepest = Math.max(deepest, depth);
    if ('children' in node) for (const child of node.children) stack.push([child as Nodes, depth + 1]);
  }
  return deepest;
}

/** Markdown text for a tree, escaping only what would otherwise be read as syntax; `bracketLinks`: every link as `[words](url)`, never `<url>`. */
export function stringifyMarkdown(tree: Root, { bracketLinks = false } = {}): string {
  return (bracketLinks ? bracketWriter : writer).stringify(tree).replace(/\n+$/, '');
}

/** The words of a message without its Markdown syntax (for titles, previews and notifications). */
export function plainText(markdown: string): string {
  return textOf(parseMarkdown(markdown)).trim();
}

// Blocks whose children are separate lines or cells, so their words must not run together.
const STACKED = new Set(['root', 'blockquote', 'list', 'listItem', 'table', 'footnoteDefinition']);

function textOf(node: Nodes): string {
  if ('value' in node) return node.value;
  if (!('children' in node)) return node.type === 'break' ? '\n' : '';
  const parts = (node.children as Nodes[]).map(textOf);
  if (node.type === 'tableRow') return parts.join(' ');
  return parts.join(STACKED.has(node.type) ? '\n' : '');
}

/** A short single-line plain-text excerpt of a message, for thread titles and previews. */
export function excerpt(markdown: string, max = 80): string {
  const line = plainText(markdown).replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1).trimEnd()}…`;
}

/** Calls `visit` on every node of a tree, parents before children; returning false skips a node's children. */
export function walk(
  node: Nodes,
  visit: (node: Nodes, parent: Nodes | null) => boolean | void,
  parent: Nodes | null = null,
): void {
  if (visit(node, parent) === false) return;
  if ('children' in node) for (const child of node.children) walk(child as Nodes, visit, node);
}

/** What the search marks its hits with: characters no message contains, so they never meet the message's own `**`. */
export const HIT_START = '\uE000';
export const HIT_END = '\uE001';

/**
 * A search snippet for people and agents: the words around the hits with the
 * message's own emphasis, code and link syntax taken out, each hit in `**`
 * (so `**bold**` in a message never shows as `****bold****`). The database
 * cuts snippets anywhere, so this reads the fragment leniently instead of parsing it.
 */
export function markedSnippet(raw: string): string {
  return raw
    .replace(/!?\[([^\]\n]*)\]\([^)\s]*\)?/g, '$1') // whole links keep their label
    .replace(/\]\([^)\s]*\)?|(^|\s)\[(?=\S)/g, '$1') // and halves of links cut by the snippet lose their syntax
    .replace(/\*{2,}|_{2,}|~~|`+/g, '')
    .replace(/(^|\n)\s*(#{1,6}|>)\s+/g, '$1')
    .replace(/\s+/g, ' ')
    .trim()
    .replaceAll(HIT_START, '**')
    .replaceAll(HIT_END, '**');
}
