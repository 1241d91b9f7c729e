/** Who is asking: the operator at the CLI (trusted), or a signed-in person. */
export type Actor = { kind: 'system' } | { kind: 'person'; personId: string };

export const SYSTEM: Actor = { kind: 'system' };

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** A URL-safe slug from a human name: "Acme Corp" → "acme-corp". */
export function slugify(name: string): string {
  return name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^\w\s-]/g, '')
    .trim()
    .replace(/[\s_]+/g, '-')
    .replace(/-+/g, '-')
    .slice(0, 63);
}

export const isSlug = (s: string) => SLUG.test(s);

const HANDLE = /^[a-z0-9][a-z0-9_.-]{0,38}$/;
export const isHandle = (s: string) => HANDLE.test(s);
