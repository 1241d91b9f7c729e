// HTML people wrote (a Teams message, an email) as the Markdown Switchboard
// stores and agents read. The HTML is read as a browser reads it (rehype-parse:
// every entity, broken markup) and turned into Markdown by hast-util-to-mdast;
// what must not reach agents as markup (links that are not web links,
// pictures, scripts, forms, raw HTML) is left out here. A surface adds handlers
// for its own elements (Teams' mentions). Pure, and tolerant: any string,
// however broken or hostile, gives Markdown.
import type { Element, Nodes as HastNodes, Root as HastRoot } from 'hast';
import { type Handle, toMdast } from 'hast-util-to-mdast';
import type { Nodes, Parents, Root } from 'mdast';
import rehypeParse from 'rehype-parse';
import { unified } from 'unified';
import { stringifyMarkdown } from '../../core/format/markdown.ts';

/** Deeper nesting than this is flattened to its words: no real message needs it, and converters walk trees recursively. */
const MAX_DEPTH = 64;
export const WEB_LINK = /^(https?:|mailto:)/i;

const html = unified().use(rehypeParse, { fragment: true }).freeze();

/**
 * The HTML as a tree, its first `maxInput` characters: no-break spaces are spaces (HTML's whitespace rules then apply
 * to them), and an element nested deeper than any message needs keeps only its words.
 */
export function parseHtml(source: string, maxInput: number): HastRoot {
  return readable(parse(source.length > maxInput ? source.slice(0, maxInput) : source));
}

/** The tree as Markdown agents may read, `handlers` converting a surface's own elements (see hast-util-to-mdast). */
export function hastToMarkdown(tree: HastRoot, handlers: Record<string, Handle> = {}): string {
  return stringifyMarkdown(tidy(toMdast(tree, { handlers: { ...BASE, ...handlers } }) as Root)).trim();
}

/** The words of a node, as they stand in the markup. */
export const textOf = (node: HastNodes): string =>
  node.type === 'text' ? node.value : 'children' in node ? node.children.map(textOf).join('') : '';

/**
 * Markup nested thousands deep (no real message) overflows the stack of the parser's converter; such a text is read
 * again with only its first opening tags, the rest as words.
 */
function parse(source: string): HastRoot {
  try {
    return html.parse(source);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    let tags = 0;
    return html.parse(source.replace(/<[a-z][^>]*>/gi, (tag) => (++tags <= MAX_DEPTH ? tag : '')));
  }
}

const ignore: Handle = () => undefined;
/** Elements whose content is not words of the message (forms, embedded pages and objects, what only runs without scripts). */
const SILENT = ['iframe', 'object', 'noscript', 'input', 'select', 'textarea'];

const BASE: Record<string, Handle> = {
  ...Object.fromEntries(SILENT.map((tag) => [tag, ignore])),
  // A line break inside a paragraph, as people write one (Markdown's hard break would add a backslash).
  br: () => ({ type: 'text', value: '\n' }),
  // An emoji is an image with the character as its text; other pictures are attachments, not words.
  img: (_state, node) => {
    const { alt, itemType, className, dataEmoji } = node.properties;
    return alt && (dataEmoji || /emoji/i.test(`${itemType ?? ''} ${className ?? ''}`))
      ? { type: 'text', value: String(alt) }
      : undefined;
  },
};

/** The parsed HTML with its no-break spaces as spaces and nothing nested past MAX_DEPTH; iterative, so no nesting exhausts the stack. */
function readable(tree: HastRoot): HastRoot {
  const stack: Array<[HastNodes, number]> = [[tree, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (node.type === 'text') node.value = node.value.replace(/\u00a0/g, ' ');
    if (!('children' in node)) continue;
    if (depth === MAX_DEPTH && node.type === 'element') {
      node.children = [{ type: 'text', value: wordsOf(node).replace(/\u00a0/g, ' ') }];
      continue;
    }
    for (const child of node.children) stack.push([child, depth + 1]);
  }
  return tree;
}

/** The words of an element, without recursion. */
function wordsOf(el: Element): string {
  const out: string[] = [];
  const stack: HastNodes[] = [el];
  while (stack.length) {
    const node = stack.pop()!;
    if (node.type === 'text') out.push(node.value);
    else if ('children' in node) for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
  return out.join('');
}

// ---- Markdown: what must not reach agents as markup -----------------------------

type Style = 'strong' | 'emphasis' | 'delete';
const STYLES = new Set<string>(['strong', 'emphasis', 'delete']);

/**
 * The converted tree as agents may read it: only web links (others keep their words, titles go), no pictures, raw
 * HTML or empty code, a style inside the same style adding nothing, spaces where an element was removed closed up,
 * and a style's edge spaces outside its markers, where Markdown needs them.
 */
function tidy<T extends Nodes>(node: T, styles: Style[] = []): T {
  if (!('children' in node)) return node;
  const out: Nodes[] = [];
  for (const child of node.children as Nodes[]) {
    if (child.type === 'image' || child.type === 'imageReference' || child.type === 'html') continue;
    if (child.type === 'inlineCode' && !child.value.trim()) continue;
    if (child.type === 'text') {
      child.value = child.value.replace(/ {2,}/g, ' ').replace(/ *\n */g, '\n');
      if (child.value) out.push(child);
      continue;
    }
    if (child.type === 'link' && !WEB_LINK.test(child.url)) {
      out.push(...(tidy(child, styles).children as Nodes[]));
      continue;
    }
    if (child.type === 'link') child.title = null;
    // Lists as people write them in a chat: one item a line.
    if (child.type === 'list' || child.type === 'listItem') child.spread = false;
    // A table without header cells (as Teams and mail programs write them) is headed by its first row, not an empty one the converter adds.
    if (
      child.type === 'table' &&
      child.children.length > 1 &&
      child.children[0].children.every((c) => !c.children.length)
    )
      child.children.shift();
    if (STYLES.has(child.type) && styles.includes(child.type as Style)) {
      out.push(...(tidy(child as Parents, styles).children as Nodes[]));
      continue;
    }
    const inner = STYLES.has(child.type) ? [...styles, child.type as Style] : styles;
    const tidied = tidy(child, inner);
    if (STYLES.has(child.type)) out.push(...edgeSpacesOutside(tidied as Parents));
    else if (!('children' in tidied) || tidied.children.length || tidied.type === 'tableCell') out.push(tidied);
  }
  const children = merge(out);
  (node as Parents).children = (TRIMMED.has(node.type) ? trim(children) : children) as Parents['children'];
  return node;
}

/** Where text starts and ends with words: a leading or trailing space there would be written `&#x20;`. */
const TRIMMED = new Set<string>(['paragraph', 'heading', 'tableCell', 'link']);

/** A style with its edge spaces moved outside it; nothing but a space when it holds only spaces. */
function edgeSpacesOutside(el: Parents): Nodes[] {
  const first = el.children[0];
  const last = el.children.at(-1);
  const lead = first?.type === 'text' && /^\s/.test(first.value);
  const tail = last?.type === 'text' && /\s$/.test(last.value);
  el.children = trim(el.children) as Parents['children'];
  const space = (): Nodes => ({ type: 'text', value: ' ' });
  if (!el.children.length) return lead || tail ? [space()] : [];
  return [...(lead ? [space()] : []), el, ...(tail ? [space()] : [])];
}

/** Inline content without the whitespace at its edges. */
function trim(nodes: Nodes[]): Nodes[] {
  const first = nodes[0];
  const last = nodes.at(-1);
  if (first?.type === 'text') first.value = first.value.replace(/^\s+/, '');
  if (last?.type === 'text') last.value = last.value.replace(/\s+$/, '');
  return nodes.filter((n) => n.type !== 'text' || n.value);
}

/** Neighbouring text runs as one, double spaces closed up. */
function merge(nodes: Nodes[]): Nodes[] {
  const out: Nodes[] = [];
  for (const n of nodes) {
    const prev = out.at(-1);
    if (prev?.type === 'text' && n.type === 'text') prev.value = `${prev.value}${n.value}`.replace(/ {2,}/g, ' ');
    else out.push(n);
  }
  return out;
}
