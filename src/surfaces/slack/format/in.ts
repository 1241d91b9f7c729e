// What people write in Slack, as the Markdown Switchboard stores and agents
// read. A message's `rich_text` blocks say exactly what was typed and how it
// was styled, so they are read when present; the mrkdwn `text` is the
// fallback. User, channel and group references become names, links become
// Markdown links, broadcasts become words. A message shared into it (its
// `is_share` attachment) follows as a quote, so the agent reads what was
// shared too. Pure functions: the caller looks the names up first (see `referencedIds`).
import type { BlockContent, Link, List, ListItem, Paragraph, PhrasingContent, Root } from 'mdast';
import { z } from 'zod';
import { stringifyMarkdown } from '../../../core/format/markdown.ts';
import { parseMentions } from '../../../core/format/mentions.ts';

/** The parts of a Slack message event this reads. */
export interface SlackMessageText {
  text?: string;
  blocks?: unknown[];
  /** Shared messages arrive here; other attachments (link previews) are not read. */
  attachments?: unknown[];
}

/** Names for the ids a message references; an id missing here shows as itself. */
export interface SlackNames {
  users: ReadonlyMap<string, string>;
  channels: ReadonlyMap<string, string>;
}

/** A Slack message as Switchboard keeps it. */
export interface SlackMarkdown {
  /** The Markdown agents receive, the app's own mention removed. */
  markdown: string;
  /** The agents it names with `@name`; people mentioned the Slack way (`<@U…>`) are not among them. */
  names: string[];
}

const style = z
  .object({
    bold: z.boolean().optional(),
    italic: z.boolean().optional(),
    strike: z.boolean().optional(),
    code: z.boolean().optional(),
  })
  .partial()
  .optional();
const inline = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string(), style }),
  z.object({ type: z.literal('link'), url: z.string(), text: z.string().optional(), style }),
  z.object({ type: z.literal('user'), user_id: z.string() }),
  z.object({ type: z.literal('usergroup'), usergroup_id: z.string() }),
  z.object({ type: z.literal('channel'), channel_id: z.string() }),
  z.object({ type: z.literal('emoji'), name: z.string(), unicode: z.string().optional() }),
  z.object({ type: z.literal('broadcast'), range: z.string() }),
  z.object({ type: z.literal('date'), timestamp: z.number(), fallback: z.string().optional() }),
  z.object({ type: z.literal('team'), team_id: z.string() }),
  z.object({ type: z.literal('color'), value: z.string() }),
]);
type Inline = z.infer<typeof inline>;
const section = z.object({ type: z.literal('rich_text_section'), elements: z.array(inline) });
const container = z.discriminatedUnion('type', [
  section,
  z.object({ type: z.literal('rich_text_preformatted'), elements: z.array(inline) }),
  z.object({ type: z.literal('rich_text_quote'), elements: z.array(inline) }),
  z.object({
    type: z.literal('rich_text_list'),
    style: z.enum(['bullet', 'ordered']),
    indent: z.number().int().min(0).optional(),
    elements: z.array(section),
  }),
]);
type Container = z.infer<typeof container>;
const richText = z.object({ type: z.literal('rich_text'), elements: z.array(container) });
/** A message shared (or forwarded) into this one: its mrkdwn `text`, its blocks in `message_blocks`, who wrote it. */
const sharedMessage = z.object({
  is_share: z.boolean().optional(),
  author_name: z.string().optional(),
  author_id: z.string().optional(),
  text: z.string().optional(),
  message_blocks: z.array(z.object({ message: z.object({ blocks: z.array(z.unknown()).optional() }) })).optional(),
});

/** The user and channel ids a message refers to, so the caller can look their names up before converting. */
export function referencedIds(m: SlackMessageText): { users: string[]; channels: string[] } {
  const users = new Set<string>();
  const channels = new Set<string>();
  for (const one of [m, ...sharedMessages(m).map((s) => s.message)]) {
    for (const r of (one.text ?? '').matchAll(/<([@#])([A-Z0-9]+)(?:\|[^<>]*)?>/g))
      (r[1] === '@' ? users : channels).add(r[2]);
    for (const block of richBlocks(one) ?? []) {
      for (const c of block.elements) {
        const items = c.type === 'rich_text_list' ? c.elements.flatMap((s) => s.elements) : c.elements;
        for (const e of items) {
          if (e.type === 'user') users.add(e.user_id);
          if (e.type === 'channel') channels.add(e.channel_id);
        }
      }
    }
  }
  for (const s of sharedMessages(m)) if (!s.author && s.authorId) users.add(s.authorId);
  return { users: [...users], channels: [...channels] };
}

/** The labels Slack wrote into the text itself (`<#C1|general>`, `<@U1|ana>`): names that need no lookup. */
export function labelsInText(text: string | undefined): SlackNames {
  const users = new Map<string, string>();
  const channels = new Map<string, string>();
  for (const r of (text ?? '').matchAll(/<([@#])([A-Z0-9]+)\|([^<>]+)>/g))
    (r[1] === '@' ? users : channels).set(r[2], decode(r[3]));
  return { users, channels };
}

/**
 * The message as Markdown, without the app's own mention, and the agent names it mentions. Shared messages
 * follow it as quotes; the agents they name are not among the names (quoting is not addressing).
 */
export function slackToMarkdown(m: SlackMessageText, names: SlackNames, botUserId?: string): SlackMarkdown {
  const shared = sharedMessages(m);
  // User groups have no lookup here: their handles are the labels Slack wrote into the texts.
  const groups = new Map(
    [m, ...shared.map((s) => s.message)].flatMap((one) =>
      [...(one.text ?? '').matchAll(/<!subteam\^([A-Z0-9]+)\|([^<>]+)>/g)].map((r) => [r[1], decode(r[2])] as const),
    ),
  );
  const render = (one: SlackMessageText, people: boolean) => {
    const blocks = richBlocks(one);
    const ctx = { names, groups, botUserId, people };
    return (blocks ? fromBlocks(blocks, ctx) : fromText(one.text ?? '', ctx)).trim();
  };
  const quotes = shared.map((s) =>
    quote(render(s.message, true), s.author ?? (s.authorId && names.users.get(s.authorId))),
  );
  return {
    markdown: [render(m, true), ...quotes].filter(Boolean).join('\n\n'),
    names: parseMentions(render(m, false)),
  };
}

interface Context {
  names: SlackNames;
  /** User group handles by id. */
  groups: ReadonlyMap<string, string>;
  botUserId?: string;
  /** False while reading agent names: people mentioned the Slack way must not be taken for `@name`s. */
  people: boolean;
}

interface Shared {
  message: SlackMessageText;
  author?: string;
  authorId?: string;
}

/** The messages shared into this one (`is_share`, or carrying the message in `message_blocks`); link previews are left out. */
function sharedMessages(m: SlackMessageText): Shared[] {
  return (m.attachments ?? [])
    .map((a) => sharedMessage.safeParse(a))
    .flatMap((r) => {
      if (!r.success || !(r.data.is_share || r.data.message_blocks?.length)) return [];
      const a = r.data;
      return [
        {
          message: { text: a.text, blocks: a.message_blocks?.flatMap((b) => b.message.blocks ?? []) },
          author: a.author_name || undefined,
          authorId: a.author_id,
        },
      ];
    });
}

/** A shared message as a Markdown quote, under who wrote it when known. */
function quote(markdown: string, author: string | undefined): string {
  const head = author
    ? stringifyMarkdown({
        type: 'root',
        children: [
          {
            type: 'paragraph',
            children: [
              { type: 'strong', children: [{ type: 'text', value: author }] },
              { type: 'text', value: ' wrote:' },
            ],
          },
        ],
      })
    : '';
  const text = [head, markdown].filter(Boolean).join('\n\n');
  return (
    text &&
    text
      .split('\n')
      .map((line) => (line ? `> ${line}` : '>'))
      .join('\n')
  );
}

function richBlocks(m: SlackMessageText) {
  const blocks = (m.blocks ?? [])
    .map((b) => richText.safeParse(b))
    .filter((r) => r.success)
    .map((r) => r.data);
  // A block with an element this does not know falls back to the text, which Slack always sends too.
  const unknown = (m.blocks ?? []).some(
    (b) => (b as { type?: string })?.type === 'rich_text' && !richText.safeParse(b).success,
  );
  return blocks.length && !unknown ? blocks : null;
}

// ---- rich_text blocks -------------------------------------------------------

function fromBlocks(blocks: Array<z.infer<typeof richText>>, ctx: Context): string {
  const children: BlockContent[] = [];
  for (const block of blocks) {
    let lists: Array<{ list: List; indent: number }> = [];
    for (const c of block.elements) {
      if (c.type !== 'rich_text_list') lists = [];
      if (c.type === 'rich_text_list') lists = addList(children, lists, c, ctx);
      else if (c.type === 'rich_text_preformatted')
        children.push({
          type: 'code',
          value: c.elements
            .map((e) => plain(e, ctx))
            .join('')
            .replace(/\n$/, ''),
        });
      else if (c.type === 'rich_text_quote')
        children.push({ type: 'blockquote', children: [paragraph(c.elements, ctx)] });
      else if (c.elements.length) children.push(paragraph(c.elements, ctx));
    }
  }
  return stringifyMarkdown({ type: 'root', children } satisfies Root);
}

/** Slack sends a nested list as a separate list with a larger `indent`; it belongs under the last item of the one before. */
function addList(
  out: BlockContent[],
  open: Array<{ list: List; indent: number }>,
  c: Extract<Container, { type: 'rich_text_list' }>,
  ctx: Context,
) {
  const indent = c.indent ?? 0;
  const list: List = {
    type: 'list',
    ordered: c.style === 'ordered',
    spread: false,
    children: c.elements.map(
      (s): ListItem => ({ type: 'listItem', spread: false, children: [paragraph(s.elements, ctx)] }),
    ),
  };
  const stack = open.filter((o) => o.indent < indent);
  const parent = stack.at(-1);
  if (parent) parent.list.children.at(-1)!.children.push(list);
  else out.push(list);
  return [...stack, { list, indent }];
}

function paragraph(elements: Inline[], ctx: Context): Paragraph {
  const children: PhrasingContent[] = [];
  for (const e of elements) {
    if (e.type === 'text') children.push(...styled(e.text, e.style));
    else if (e.type === 'link') children.push(...styled(e.text || e.url, e.style, e.url));
    else children.push({ type: 'text', value: plain(e, ctx) });
  }
  return { type: 'paragraph', children: trimEdges(merge(children)) };
}

/** Spaces left where a mention was removed would be written as `&#x20;` at a paragraph's edges. */
function trimEdges(nodes: PhrasingContent[]): PhrasingContent[] {
  for (const n of nodes) if (n.type === 'text') n.value = n.value.replace(/[ \t]{2,}/g, ' ');
  const first = nodes[0];
  if (first?.type === 'text') first.value = first.value.replace(/^\s+/, '');
  const last = nodes.at(-1);
  if (last?.type === 'text') last.value = last.value.replace(/\s+$/, '');
  return nodes.filter((n) => n.type !== 'text' || n.value);
}

/** A styled run; spaces at its edges stay outside the markers, where Markdown needs them. */
function styled(text: string, s: z.infer<typeof style>, url?: string): PhrasingContent[] {
  const [, lead, core, trail] = /^(\s*)([\s\S]*?)(\s*)$/.exec(text)!;
  if (!core) return text ? [{ type: 'text', value: text }] : [];
  let node: PhrasingContent = s?.code ? { type: 'inlineCode', value: core } : { type: 'text', value: core };
  if (url) node = { type: 'link', url, children: [node] } satisfies Link;
  if (s?.strike) node = { type: 'delete', children: [node] };
  if (s?.italic) node = { type: 'emphasis', children: [node] };
  if (s?.bold) node = { type: 'strong', children: [node] };
  return [
    ...(lead ? [{ type: 'text' as const, value: lead }] : []),
    node,
    ...(trail ? [{ type: 'text' as const, value: trail }] : []),
  ];
}

/** Neighbouring runs with the same styling become one, so `**a****b**` never appears. */
function merge(nodes: PhrasingContent[]): PhrasingContent[] {
  const out: PhrasingContent[] = [];
  for (const n of nodes) {
    const prev = out.at(-1);
    if (
      prev &&
      prev.type === n.type &&
      (n.type === 'text' || n.type === 'strong' || n.type === 'emphasis' || n.type === 'delete')
    ) {
      if (prev.type === 'text' && n.type === 'text') prev.value += n.value;
      else if ('children' in prev && 'children' in n)
        prev.children = merge([...prev.children, ...n.children] as PhrasingContent[]) as typeof prev.children;
      continue;
    }
    out.push(n);
  }
  return out;
}

/** What a reference reads as in plain words. */
function plain(e: Inline, ctx: Context): string {
  switch (e.type) {
    case 'text':
      return e.text;
    case 'link':
      return e.text && e.text !== e.url ? `${e.text} (${e.url})` : e.url;
    case 'user':
      return e.user_id === ctx.botUserId || !ctx.people ? ' ' : `@${ctx.names.users.get(e.user_id) ?? e.user_id}`;
    case 'usergroup':
      return ctx.people ? group(e.usergroup_id, ctx.groups.get(e.usergroup_id)) : ' ';
    case 'channel':
      return `#${ctx.names.channels.get(e.channel_id) ?? e.channel_id}`;
    case 'emoji':
      return e.unicode ? emoji(e.unicode) : `:${e.name}:`;
    case 'broadcast':
      return ctx.people ? `@${e.range}` : ' ';
    case 'date':
      return e.fallback ?? new Date(e.timestamp * 1000).toISOString();
    case 'team':
      return '';
    case 'color':
      return e.value;
  }
}

const emoji = (codes: string) => String.fromCodePoint(...codes.split('-').map((c) => parseInt(c, 16)));

// ---- mrkdwn text -----------------------------------------------------------

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>' };
const decode = (s: string) => s.replace(/&(amp|lt|gt);/g, (_m, e: string) => ENTITIES[e]);

/**
 * mrkdwn to Markdown. Code (``` blocks and `spans`) is kept as written; outside it,
 * `*bold*` becomes `**bold**` and `~strike~` `~~strike~~` (`_italic_` is the same in both),
 * references become names and links, and entities are decoded.
 */
function fromText(text: string, ctx: Context): string {
  return text
    .split(/(```[\s\S]*?```)/g)
    .map((part, i) => {
      if (i % 2) return `\n\`\`\`\n${decode(part.slice(3, -3)).replace(/^\n|\n$/g, '')}\n\`\`\`\n`;
      return part
        .split(/(`[^`\n]+`)/g)
        .map((piece, j) => (j % 2 ? decode(piece) : prose(piece, ctx)))
        .join('');
    })
    .join('')
    .replace(/\n{3,}/g, '\n\n');
}

function prose(text: string, ctx: Context): string {
  return (
    text
      .replace(/(^|[\s([{"'])\*(?=\S)([^*\n]*?\S)\*(?=$|[\s)\]}.,;:!?"'])/g, '$1**$2**')
      .replace(/(^|[\s([{"'])~(?=\S)([^~\n]*?\S)~(?=$|[\s)\]}.,;:!?"'])/g, '$1~~$2~~')
      .replace(/^&gt;[ \t]?/gm, '> ')
      .replace(/<([^<>\n]*)>|&(amp|lt|gt);/g, (_m, ref: string | undefined, entity: string) =>
        ref === undefined ? ENTITIES[entity] : reference(ref, ctx),
      )
      // Where a mention was taken out, the spaces around it close up.
      .replace(/(\S)[ \t]{2,}/g, '$1 ')
      .replace(/[ \t]+(?=\n)/g, '')
  );
}

/** One `<…>` reference of mrkdwn. */
function reference(ref: string, ctx: Context): string {
  const [target, label] = splitOnce(ref, '|');
  const l = label === undefined ? undefined : decode(label);
  if (target.startsWith('@')) {
    const id = target.slice(1);
    if (id === ctx.botUserId || !ctx.people) return ' ';
    return `@${ctx.names.users.get(id) ?? l ?? id}`;
  }
  if (target.startsWith('#')) {
    const id = target.slice(1);
    return `#${ctx.names.channels.get(id) || l || id}`;
  }
  if (target.startsWith('!')) {
    if (!ctx.people) return ' ';
    const [kind] = splitOnce(target.slice(1), '^');
    if (kind === 'here' || kind === 'channel' || kind === 'everyone') return `@${kind}`;
    if (kind === 'subteam') return group(splitOnce(target, '^')[1] ?? '', l);
    if (kind === 'date') return l ?? '';
    return l ?? '';
  }
  const url = decode(target);
  if (!l || l === url || `mailto:${l}` === url) return url.startsWith('mailto:') ? url.slice(7) : url;
  return `[${l.replace(/([[\]\\])/g, '\\$1')}](${url.replace(/([()\s])/g, (c) => encodeURIComponent(c))})`;
}

/** A user group by its handle (`@oncall`), or by its id when Slack gave no handle. */
function group(id: string, handle: string | undefined): string {
  if (handle) return handle.startsWith('@') ? handle : `@${handle}`;
  return `@group(${id})`;
}

function splitOnce(s: string, sep: string): [string, string | undefined] {
  const i = s.indexOf(sep);
  return i < 0 ? [s, undefined] : [s.slice(0, i), s.slice(i + 1)];
}
