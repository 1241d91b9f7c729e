// The members of chat channels, read from a platform and kept in the store,
// the same way for every surface: read again when the copy is older than an
// hour, one read per channel at a time, a failed read not retried for a
// while (a burst of inbox reads asks the platform once), and a stale copy
// preferred to none when the platform does not answer.
import type { Logger } from 'pino';
import type { App } from '../app-types.ts';
import type { ExternalSurface } from '../domain/surfaces/ports.ts';

/** Cached members are read again from the platform after this long (membership events keep them current in between). */
export const MEMBERS_TTL_MS = 60 * 60_000;
/** A failed read is not retried for this long. */
const FAILED_READ_MS = 30_000;

export interface MemberSource {
  surface: ExternalSurface;
  app: App;
  logger: Logger;
  /** The platform's members of a channel; null when it cannot be asked (no token, no service URL). Throws when the platform fails. */
  read(tenantId: string, channelId: string): Promise<string[] | null>;
  /** Turns a platform error into something safe to log. */
  loggable(err: unknown): unknown;
}

/** `SurfaceAudience.members` over the store's cached copy; null when neither the platform nor the cache knows. */
export function cachedMembers(src: MemberSource): (tenantId: string, channelId: string) => Promise<string[] | null> {
  const { store, clock } = src.app;
  const failedAt = new Map<string, number>();
  const reading = new Map<string, Promise<string[] | null>>();

  const fetchAndKeep = async (tenantId: string, channelId: string, key: string): Promise<string[] | null> => {
    if (Date.now() - (failedAt.get(key) ?? 0) < FAILED_READ_MS) return null;
    try {
      const members = await src.read(tenantId, channelId);
      if (!members) return null;
      await store.audiences.putChannelMembers(src.surface, tenantId, channelId, members, clock.now());
      failedAt.delete(key);
      return members;
    } catch (err) {
      failedAt.set(key, Date.now());
      src.logger.warn({ err: src.loggable(err), tenantId, channelId }, 'could not read the members of a chat channel; its audience counts as guests');
      return null;
    }
  };

  return async (tenantId, channelId) => {
    const cached = await store.audiences.channelMembers(src.surface, tenantId, channelId);
    if (cached && clock.now().getTime() - cached.fetchedAt.getTime() < MEMBERS_TTL_MS) return cached.userIds;
    const key = `${tenantId}:${channelId}`;
    let pending = reading.get(key);
    if (!pending) reading.set(key, pending = fetchAndKeep(tenantId, channelId, key).finally(() => reading.delete(key)));
    return (await pending) ?? cached?.userIds ?? null;
  };
}
