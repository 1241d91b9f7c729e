// Reading what people write in Slack: the app's own mention, the agents they
// name (`@reviewer`, `@alice/builder`), and Slack's escaping. Pure functions.

const NAMED = /(^|[\s(,;:])@([a-z0-9][a-z0-9_.-]*(?:\/[a-z0-9][a-z0-9_.-]*)?)/gi;
const SLACK_SPECIAL = new Set(['here', 'channel', 'everyone']);

/** Slack escapes `&`, `<` and `>` in message text; this undoes it. */
export function unescapeSlack(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** The message without the app's own `<@BOT>` mentions, unescaped and trimmed: what the agent receives. */
export function withoutBotMention(text: string, botUserId: string | undefined): string {
  const stripped = botUserId ? text.split(`<@${botUserId}>`).join(' ') : text;
  return unescapeSlack(stripped).replace(/[ \t]{2,}/g, ' ').trim();
}

/**
 * The agents a message names, in order and without repeats: `@name` and
 * `@owner/name`, lowercased. Slack's own user mentions (`<@U…>`), `@here`
 * and e-mail addresses are not names.
 */
export function namedAgents(text: string): string[] {
  const plain = unescapeSlack(text).replace(/<[@#!][^>]*>/g, ' ');
  const names: string[] = [];
  for (const m of plain.matchAll(NAMED)) {
    const name = m[2].toLowerCase().replace(/[.\-_]+$/, '');
    if (!name || SLACK_SPECIAL.has(name) || names.includes(name)) continue;
    names.push(name);
  }
  return names;
}

/** A slash command's text split into its first word (a sub-command or an agent) and the rest. */
export function splitCommand(text: string): { head: string; rest: string } {
  const trimmed = unescapeSlack(text).trim();
  const space = trimmed.search(/\s/);
  if (space < 0) return { head: trimmed.toLowerCase(), rest: '' };
  return { head: trimmed.slice(0, space).toLowerCase(), rest: trimmed.slice(space + 1).trim() };
}
