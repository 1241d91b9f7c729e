// Reading what people write to the bot in Teams, once it is Markdown
// (format-in.ts): the agents a message names (`ask reviewer to …`,
// `@reviewer`, `@alice/builder`) and one-word commands. Pure functions.
import { parseMentions } from '../../core/format/mentions.ts';

const ASK = /^(?:please\s+)?(?:ask|tell)\s+@?([a-z0-9][a-z0-9_.-]*(?:\/[a-z0-9][a-z0-9_.-]*)?)\b/i;
/** The quote a Teams reply starts with (the message replied to, as `> …` lines). */
const LEADING_QUOTE = /^(?:>[^\n]*(?:\n|$))+/;

/**
 * The agents a message names, in order, without repeats, lowercased: the one
 * after a leading `ask`/`tell` (after the quote a reply starts with), then every `@name`.
 */
export function namedAgents(text: string): string[] {
  const names: string[] = [];
  const asked = ASK.exec(text.trim().replace(LEADING_QUOTE, '').trim())?.[1]
    ?.toLowerCase()
    .replace(/[.\-_]+$/, '');
  if (asked) names.push(asked);
  for (const n of parseMentions(text)) if (!names.includes(n)) names.push(n);
  return names;
}

const COMMANDS = ['help', 'agents', 'link', 'unlink'] as const;
export type Command = (typeof COMMANDS)[number];

/** A one-word command said to the bot (`help`, `agents`, `link`, `unlink`), or null. */
export function commandOf(text: string): Command | null {
  const word = text
    .trim()
    .toLowerCase()
    .replace(/[.!?]+$/, '');
  return (COMMANDS as readonly string[]).includes(word) ? (word as Command) : null;
}

/** What follows `notices` in a `notices off` / `notices on` command (empty when nothing does); null when the text is no such command. */
export function noticesWord(text: string): string | null {
  const m = /^notices(?:\s+(\S+))?$/i.exec(text.trim().replace(/[.!?]+$/, ''));
  return m ? (m[1] ?? '') : null;
}
