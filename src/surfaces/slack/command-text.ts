// Reading slash commands: Slack's escaping and the command's first word.
// Messages are read by format-in.ts; mentions by the domain's one parser.

/** Slack escapes `&`, `<` and `>` in message text; this undoes it. */
export function unescapeSlack(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** A slash command's text split into its first word (a sub-command or an agent, unescaped) and the rest, still as Slack sent it. */
export function splitCommand(text: string): { head: string; rest: string } {
  const trimmed = text.trim();
  const space = trimmed.search(/\s/);
  if (space < 0) return { head: unescapeSlack(trimmed).toLowerCase(), rest: '' };
  return { head: unescapeSlack(trimmed.slice(0, space)).toLowerCase(), rest: trimmed.slice(space + 1).trim() };
}
