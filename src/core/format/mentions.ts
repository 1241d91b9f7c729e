// The one reading of `@mentions` every surface shares (web chat, Slack, Teams,
// MCP). Mentions are read from the Markdown tree, so nothing inside code
// spans, code blocks, raw HTML or link addresses counts as one.
import type { Nodes } from 'mdast';
import { parseMarkdown, walk } from './markdown.ts';

// `@name` or `@owner/name`; an `@` right after a word character, `@`, `/` or `.` is part of
// an address or a path (ops@example.com, /docs/@latest), not a mention.
/** Broadcast words on chat platforms; never the name of an agent or a person. */
const BROADCAST = new Set(['here', 'channel', 'everyone']);
const MENTION = /(?<![\w@/.])@([a-z0-9][a-z0-9_.-]*(?:\/[a-z0-9][a-z0-9_.-]*)?)/gi;

/** Where the mentions are in a run of plain text: each `@name` (without trailing punctuation) and its offset. */
export function mentionsIn(text: string): Array<{ index: number; text: string; name: string }> {
  const out: Array<{ index: number; text: string; name: string }> = [];
  for (const m of text.matchAll(MENTION)) {
    const name = m[1].replace(/[.\-_]+$/, '');
    if (name && !BROADCAST.has(name.toLowerCase()))
      out.push({ index: m.index, text: `@${name}`, name: name.toLowerCase() });
  }
  return out;
}

/**
 * The names a message mentions, lowercased, in order, each once: `@helper`,
 * `@alice/builder`, `@bob`. A trailing dot, dash or underscore ends the
 * sentence, not the name; `@here`, `@channel` and `@everyone` are not names.
 */
export function parseMentions(markdown: string): string[] {
  if (!markdown.includes('@')) return [];
  // Parsing is most of what reading a message costs (0.1–0.3 ms); a text without these has nothing it would change.
  return MARKUP.test(markdown) ? mentionsInTree(markdown) : names(mentionsIn(markdown));
}

/**
 * What Markdown could hide a mention in (code, raw HTML, a link's address) or split one by (emphasis, escapes,
 * entities, an email address GFM turns into a link): backticks, angle brackets opening HTML, brackets, backslashes,
 * ampersands, underscores, asterisks, tildes, tabs, an `@` right after a character an email address may have there
 * (`@ann@x.test` is `@` and a link), a web or mail address (GFM makes one a link wherever it starts: `@ops-www.x.test`
 * is a mention of `ops` and a link), a line indented four spaces and a run of five spaces anywhere (code, also after
 * a quote's `>` or a list item's marker: `-     @bob` is code). In a text without any, every `@name` and the
 * character before it stand in the tree's text as written: block markers (`#`, `>`, `-`, `1.`) and a few spaces
 * around them are all the parser removes, and none is part of a name or decides one.
 */
const MARKUP = /[`<[\]\\&_*~\t]|[\w.+-]@|www\.|:\/\/|mailto:|xmpp:|^ {4}| {5}/im;

/** The same, read from the Markdown tree. */
export function mentionsInTree(markdown: string): string[] {
  const found: Array<{ name: string }> = [];
  walk(parseMarkdown(markdown), (node: Nodes) => {
    if (node.type === 'code' || node.type === 'inlineCode' || node.type === 'html') return false;
    if (node.type === 'text') found.push(...mentionsIn(node.value));
  });
  return names(found);
}

/** Each name once, in order. */
const names = (found: Array<{ name: string }>) => [...new Set(found.map((m) => m.name))];
