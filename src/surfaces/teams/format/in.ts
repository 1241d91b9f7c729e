// What people write in Teams, as the Markdown Switchboard stores and agents
// read. Teams sends a message twice: `text` (plain, with `<at>Name</at>` for
// mentions) and a `text/html` attachment with the formatting (bold, links,
// code, lists). The HTML is read when present, the text otherwise; other
// attachments (files, cards, images) are not part of the words and are left
// out. The bot's own mention is removed; people's mentions become `@Name`.
// The HTML is read as a browser reads it (rehype-parse: every entity, broken
// markup) and turned into Markdown by hast-util-to-mdast, with Teams' own
// elements (mentions, emoji) and what must not reach agents as markup (links
// that are not web links, pictures, scripts, forms) handled here. Pure, and
// tolerant: any string, however broken or hostile, gives Markdown.
import type { Element, Nodes as HastNodes, Root as HastRoot } from 'hast';
import { type Handle, toMdast } from 'hast-util-to-mdast';
import type { Nodes, Parents, Root } from 'mdast';
import rehypeParse from 'rehype-parse';
import { unified } from 'unified';
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

/** Teams refuses messages past about 28 KB, so anything much longer is not a real message: it is cut here rather than read. */
const MAX_INPUT = 40_000;
/** Deeper nesting than this is flattened to its words: no real message needs it, and converters walk trees recursively. */
const MAX_DEPTH = 64;

const html = unified().use(rehypeParse, { fragment: true }).freeze();

/** The message as Markdown without the bot's own mention, and the agent names it gives. */
export function teamsToMarkdown(activity: TeamsMessageText, botId: string | undefined): TeamsMarkdown {
  const attached = activity.attachments?.find((a) => a?.contentType === 'text/html' && typeof a.content === 'string')
    ?.content as string | undefined;
  // Plain text is HTML without tags, except that its line breaks are real.
  const source = attached ?? (activity.text ?? '').replace(/\r?\n/g, '<br>');
  const tree = readable(parse(source.length > MAX_INPUT ? source.slice(0, MAX_INPUT) : source));
  const mentions = (activity.entities ?? []).filter((e) => e?.type === 'mention');
  const render = (people: boolean) =>
    stringifyMarkdown(tidy(toMdast(tree, { handlers: handlers({ mentions, botId, people }) }) as Root)).trim();
  const agentsOnly = render(false);
  const mentionsBot = botId !== undefined && mentions.some((e) => e.mentioned?.id === botId);
  return { markdown: render(true), names: namedAgents(agentsOnly), mentioned: parseMentions(agentsOnly), mentionsBot };
}

/**
 * The HTML as a tree. Markup nested thousands deep (no real message) overflows the stack of the parser's converter;
 * such a message is read again with only its first opening tags, the rest as words.
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

// ---- HTML to Markdown: Teams' elements ------------------------------------------

interface Context {
  mentions: TeamsEntity[];
  botId: string | undefined;
  /** False while reading agent names: people mentioned the Teams way must not be taken for `@name`s. */
  people: boolean;
}

const ignore: Handle = () => undefined;
/** Elements whose content is not words of the message (forms, embedded pages and objects, what only runs without scripts). */
const SILENT = ['iframe', 'object', 'noscript', 'input', 'select', 'textarea'];
const WEB_LINK = /^(https?:|mailto:)/i;

function handlers(ctx: Context): Record<string, Handle> {
  // The n-th mention element is the n-th mention entity, unless it names its index (itemid).
  let read = 0;
  const mention: Handle = (_state, node) => {
    const name = textOf(node).replace(/\s+/g, ' ').trim();
    const itemId = String(node.properties.itemId ?? '');
    const index = /^\d+$/.test(itemId) ? Number(itemId) : read;
    read = index + 1;
    const entity = ctx.mentions[index];
    const bot =
      ctx.botId !== undefined &&
      (entity
        ? entity.mentioned?.id === ctx.botId
        : ctx.mentions.some(
            (e) => e.mentioned?.id === ctx.botId && (e.mentioned?.name === name || e.text === `<at>${name}</at>`),
          ));
    return { type: 'text', value: bot || !ctx.people || !name ? ' ' : `@${name}` };
  };
  return {
    ...Object.fromEntries(SILENT.map((tag) => [tag, ignore])),
    at: mention,
    span: (state, node, parent) =>
      (/schema\.skype\.com\/Mention/i.test(String(node.properties.itemType)) ? mention : all)(state, node, parent),
    // A line break inside a paragraph, as people write one (Markdown's hard break would add a backslash).
    br: () => ({ type: 'text', value: '\n' }),
    // An emoji is an image with the character as its text; other pictures are attachments, not words.
    img: (_state, node) => {
      const { alt, itemType, className } = node.properties;
      return alt && /emoji/i.test(`${itemType ?? ''} ${className ?? ''}`)
        ? { type: 'text', value: String(alt) }
        : undefined;
    },
  };
}

const all: Handle = (state, node) => state.all(node);

const textOf = (node: HastNodes): string =>
  node.type === 'text' ? node.value : 'children' in node ? node.children.map(textOf).join('') : '';

/**
 * The parsed HTML, ready to convert: no-break spaces are spaces (HTML's whitespace rules then apply to them), and an
 * element nested deeper than MAX_DEPTH keeps only its words. Iterative, so no nesting exhausts the stack.
 */
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
 * HTML or empty code, a style inside the same style adding nothing, spaces where a mention was removed closed up, and
 * a style's edge spaces outside its markers, where Markdown needs them.
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
    // Lists as people write them in Teams: one item a line.
    if (child.type === 'list' || child.type === 'listItem') child.spread = false;
    // Teams' tables have no header cells: their first row heads them, not an empty one the converter adds.
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
