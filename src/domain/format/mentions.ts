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
    if (name && !BROADCAST.has(name.toLowerCase())) out.push({ index: m.index, text: `@${name}`, name: name.toLowerCase() });
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
  const names: string[] = [];
  walk(parseMarkdown(markdown), (node: Nodes) => {
    if (node.type === 'code' || node.type === 'inlineCode' || node.type === 'html') return false;
    if (node.type !== 'text') return;
    for (const { name } of mentionsIn(node.value)) if (!names.includes(name)) names.push(name);
  });
  return names;
}
