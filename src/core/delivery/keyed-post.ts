// Posts that are not an agent's message (approval cards, link confirmations, a
// slash command's request post), made once per key through the post record
// (SurfacePostRepo) the same way on every surface: the attempt is counted
// before the platform is called and the platform's id recorded after, waiting
// through a short database outage (only this process knows the post exists).
import type { SurfacePostRepo } from '../ports.ts';
import type { ExternalSurface } from '../surfaces/surface-ports.ts';
import { recordPatiently } from './post-delivery.ts';

/** One surface's side of a keyed post. */
export interface KeyedPost {
  /** Makes the post; returns its id as the record keeps it. Throws DeliveryError for a failed platform call. */
  post(): Promise<string>;
  /**
   * After an attempt that recorded nothing: the id of the post it made, found on the platform; null when none is
   * found or the platform cannot be searched (then it is posted again, and a duplicate is possible).
   */
  find(): Promise<string | null>;
}

/** Posts once per `key` of a surface (a retry after a recorded post returns its id); returns the post's id. */
export async function postOncePerKey(
  posts: SurfacePostRepo,
  surface: ExternalSurface,
  key: string,
  p: KeyedPost,
  signal?: AbortSignal,
): Promise<string> {
  const earlier = await posts.attempt(surface, key);
  if (earlier.externalId) return earlier.externalId;
  const id = (earlier.unknown ? await p.find() : null) ?? (await p.post());
  await recordPatiently(() => posts.record(surface, key, id), signal);
  return id;
}
