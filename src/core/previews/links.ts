// Switchboard's own links, as people paste them into chat apps: an approval, an
// intake item or a conversation in the web chat (`PUBLIC_URL/#/w/<ws>/…`), or a
// document page (`PUBLIC_URL/docs/<ws>/d/<identifier>`). Pure functions: read a
// link back into what it names, and write the link of an item.
import { z } from 'zod';
import type { Conversation } from '../messaging/message.ts';

export const LINK_KINDS = ['approval', 'intake', 'document', 'conversation'] as const;
export type LinkKind = (typeof LINK_KINDS)[number];

/** What a Switchboard link names. */
export interface SwitchboardLink {
  /** The link as it was written. */
  url: string;
  /** The workspace's slug. */
  workspace: string;
  kind: LinkKind;
  /** The item's id (a document's identifier, such as SPEC-12). */
  id: string;
}

const uuid = z.string().uuid();
const slug = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/i);
const identifier = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/);

const decode = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
};

/** The path segments of a web chat route (`#/w/eng/c/…` → ['w', 'eng', 'c', …]); null when one is not decodable. */
const segments = (path: string) => {
  const parts = path.split('/').filter(Boolean).map(decode);
  return parts.every((p): p is string => p !== null) ? parts : null;
};

/** What a web chat route names (`w/<ws>/c/<id>[/t/<thread>]`, `w/<ws>/approvals/<id>`, `w/<ws>/intake/<id>`). */
function ofWebRoute(p: string[]): Omit<SwitchboardLink, 'url'> | null {
  if (p[0] !== 'w' || !slug.safeParse(p[1]).success) return null;
  const workspace = p[1]!;
  if (p[2] === 'c' && (p.length === 4 || (p.length === 6 && p[4] === 't'))) {
    const id = p[5] ?? p[3]!;
    return uuid.safeParse(id).success ? { workspace, kind: 'conversation', id } : null;
  }
  if (p.length === 4 && (p[2] === 'approvals' || p[2] === 'intake') && uuid.safeParse(p[3]).success)
    return { workspace, kind: p[2] === 'approvals' ? 'approval' : 'intake', id: p[3]! };
  return null;
}

/**
 * What a link names, when it is a link to one item on this Switchboard (the host and path of `publicUrl`); null for
 * any other link: another host, a page that is not one item (the chat's front page, the intake list), an id that is
 * no such thing.
 */
export function parseLink(url: string, publicUrl: string): SwitchboardLink | null {
  let u: URL;
  let base: URL;
  try {
    u = new URL(url);
    base = new URL(publicUrl);
  } catch {
    return null;
  }
  if ((u.protocol !== 'https:' && u.protocol !== 'http:') || u.host !== base.host) return null;
  const prefix = base.pathname.replace(/\/+$/, '');
  if (u.pathname !== prefix && !u.pathname.startsWith(`${prefix}/`)) return null;
  const path = u.pathname.slice(prefix.length);
  const found = (named: Omit<SwitchboardLink, 'url'> | null) => (named ? { url, ...named } : null);
  const doc = /^\/docs\/([^/]+)\/d\/([^/]+)\/?$/.exec(path);
  if (doc) {
    const [workspace, id] = [decode(doc[1]!), decode(doc[2]!)];
    return found(
      workspace && id && slug.safeParse(workspace).success && identifier.safeParse(id).success
        ? { workspace, kind: 'document', id }
        : null,
    );
  }
  if (path !== '' && path !== '/') return null;
  const route = segments(u.hash.replace(/^#/, '').split('?')[0]!);
  return found(route && ofWebRoute(route));
}

/** Where the web chat opens a conversation (a thread beside its channel), from PUBLIC_URL. */
export function conversationLink(
  publicUrl: string,
  ws: { slug: string },
  c: Pick<Conversation, 'id' | 'kind' | 'parentId'>,
): string {
  return `${publicUrl}/${conversationRoute(ws, c)}`;
}

/** The web chat's own route to a conversation (`#/w/<ws>/c/<id>`; a thread opens beside its channel). */
export function conversationRoute(ws: { slug: string }, c: Pick<Conversation, 'id' | 'kind' | 'parentId'>): string {
  const place = c.kind === 'thread' && c.parentId ? `/c/${c.parentId}/t/${c.id}` : `/c/${c.id}`;
  return `#/w/${encodeURIComponent(ws.slug)}${place}`;
}

/** The link of an approval, an intake item or a document (a conversation's is `conversationLink`). */
export function itemLink(publicUrl: string, ws: { slug: string }, kind: Exclude<LinkKind, 'conversation'>, id: string) {
  const w = encodeURIComponent(ws.slug);
  if (kind === 'document') return `${publicUrl}/docs/${w}/d/${encodeURIComponent(id)}`;
  return `${publicUrl}/#/w/${w}/${kind === 'approval' ? 'approvals' : 'intake'}/${id}`;
}
