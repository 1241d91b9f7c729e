/**
 * The names mentioned in a chat message: `@helper`, `@alice/builder`, `@bob`.
 * An `@` inside a word (an email address) is not a mention; a trailing dot or
 * dash that ends a sentence is not part of the name. Each name appears once.
 */
export function parseMentions(body: string): string[] {
  const out = new Set<string>();
  for (const m of body.matchAll(/(?<![\w@/.])@([a-z0-9][a-z0-9_.-]*(?:\/[a-z0-9][a-z0-9_.-]*)?)/gi)) {
    const name = m[1].replace(/[.\-_]+$/, '').toLowerCase();
    if (name) out.add(name);
  }
  return [...out];
}

/** A short single-line excerpt of a message, for thread titles and previews. */
export function excerpt(body: string, max = 80): string {
  const line = body.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1).trimEnd()}…`;
}
