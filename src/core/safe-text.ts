/**
 * Rules for text that arrives from outside (web forms, JSON bodies, tool
 * arguments, platform payloads) and for URLs that may become links.
 */

/** What a refusal of a NUL character says, wherever it is refused. */
export const NUL_REFUSAL = 'Text may not contain the NUL character (U+0000); remove it and send again.';

/**
 * Where the first string containing U+0000 sits in a parsed body (`body`,
 * `items.2.title`), or null when there is none. PostgreSQL cannot store the
 * character, so it is refused at the edge rather than failing deep inside.
 */
export function findNul(value: unknown, where = '', depth = 0): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? where || 'the text' : null;
  if (depth > 32 || value === null || typeof value !== 'object') return null;
  for (const [key, inner] of Object.entries(value)) {
    if (key.includes('\u0000')) return where ? `${where} (a key)` : 'a key';
    const found = findNul(inner, where ? `${where}.${key}` : key, depth + 1);
    if (found) return found;
  }
  return null;
}

/**
 * `url` when it is an absolute http(s) URL, null otherwise. Anything shown as
 * a link (permalinks from platform APIs included) goes through this first, so
 * a `javascript:` or `data:` URL never becomes clickable.
 */
export function httpUrlOrNull(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}
