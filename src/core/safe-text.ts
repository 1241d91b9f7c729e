/**
 * Rules for text that arrives from outside (web forms, JSON bodies, tool
 * arguments, platform payloads) and for URLs that may become links.
 */

/** What a refusal of a NUL character says, wherever it is refused. */
export const NUL_REFUSAL = 'Text may not contain the NUL character (U+0000); remove it and send again.';

/** What a refusal of a lone UTF-16 surrogate says, wherever it is refused. */
export const SURROGATE_REFUSAL =
  'Text may not contain a lone UTF-16 surrogate (half of a character, such as \\ud800 without its pair); send it as valid Unicode.';

/** What PostgreSQL cannot store in text or JSON: the NUL character, and a lone UTF-16 surrogate (no UTF-8 text holds one). */
export type Unstorable = 'nul' | 'surrogate';

/** Why a string cannot be stored as it is; null when it can. */
export function unstorableIn(s: string): Unstorable | null {
  if (s.includes('\u0000')) return 'nul';
  return s.isWellFormed() ? null : 'surrogate';
}

/** The refusal sentence for what `unstorableIn` found. */
export const refusalFor = (what: Unstorable) => (what === 'nul' ? NUL_REFUSAL : SURROGATE_REFUSAL);

/**
 * The first string (or key) of a parsed body that cannot be stored, and where it sits (`body`, `items[2].title`,
 * `the text` for a bare string, `… (a key)` for a key); null when there is none. Refused at the edge rather than
 * failing deep inside.
 */
export function findUnstorable(value: unknown, where = '', depth = 0): { where: string; what: Unstorable } | null {
  if (typeof value === 'string') {
    const what = unstorableIn(value);
    return what && { where: where || 'the text', what };
  }
  if (depth > 32 || value === null || typeof value !== 'object') return null;
  const isArray = Array.isArray(value);
  for (const [key, inner] of Object.entries(value)) {
    const at = isArray ? `${where}[${key}]` : where ? `${where}.${key}` : key;
    const inKey = isArray ? null : unstorableIn(key);
    if (inKey) return { where: where ? `${where} (a key)` : 'a key', what: inKey };
    const found = findUnstorable(inner, at, depth + 1);
    if (found) return found;
  }
  return null;
}

/**
 * A copy of a platform's payload that PostgreSQL can store: each NUL character and lone surrogate becomes U+FFFD.
 * What a person typed on Slack or Teams is kept rather than refused (the platform would only send it again).
 */
export function storableCopy<T>(value: T): T {
  const clean = (v: unknown): unknown => {
    if (typeof v === 'string') return unstorableIn(v) ? v.replaceAll('\u0000', '\uFFFD').toWellFormed() : v;
    if (Array.isArray(v)) return v.map(clean);
    if (v && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [clean(k) as string, clean(x)]));
    return v;
  };
  return clean(value) as T;
}

/**
 * `value` as JSON that PostgreSQL's jsonb accepts: JSON.stringify writes a NUL as \u0000 and a lone surrogate as a
 * \udXXX escape (a well-formed pair as itself), so only JSON showing one of those is made again from `storableCopy`.
 */
export function storableJson(value: unknown): string {
  const json = JSON.stringify(value);
  return jsonbRefuses(json) ? JSON.stringify(storableCopy(value)) : json;
}

/** True when JSON text made by JSON.stringify holds an escape jsonb refuses (a NUL, a lone surrogate); may say true of a harmless `\\ud` text. */
export const jsonbRefuses = (json: string) => json.includes('\\u0000') || json.includes('\\ud');

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
