// Who reads chat channels, read from a platform and kept in the store, the
// same way for every surface: an old copy (over an hour) is answered at once
// and read again in the background, one read per list at a time, a failed read
// not retried for a while (a burst of inbox reads asks the platform once). The
// core counts the readers in the store; no list is loaded here.
//
// A channel anyone in the tenant may open (a public Slack channel) is read by
// the whole tenant, not only its members: the tenant's roster is kept the same
// way, once per tenant, under a name no channel has. Nobody waits for its
// first read (minutes for a big Slack team): the channel counts as guests until
// then. Whether a channel is open or shared with another organization is kept
// with its members, as marks no user id can be, so it is read again with them.
import type { Logger } from 'pino';
import type { ChatChannel, ListState, StoredReaders } from '../../core/linking/audience-ports.ts';
import type { ExternalSurface } from '../../core/surfaces/surface-ports.ts';
import type { SurfaceCore } from '../contract.ts';

/** Cached members are read again from the platform after this long (membership events keep them current in between). */
export const MEMBERS_TTL_MS = 60 * 60_000;
/** A failed read is not retried for this long. */
const FAILED_READ_MS = 30_000;
/** Where a tenant's roster is kept among its channels. */
export const TENANT_ROSTER = '*roster';
/** Marks a cached channel that everyone in the tenant may open. */
const OPEN = '*open';
/**
 * Marks a cached channel shared with another organization. It is passed on as a member: no identity links it, so the
 * other organization's people count as one unlinked reader.
 */
const OUTSIDE = '*outside';

/** Who reads a channel, as the platform says. */
export interface ChannelReaders {
  /** The channel's members, without the app itself. */
  members: string[];
  /** Everyone in the tenant may open it (a public channel): the tenant's roster reads it too. */
  open?: boolean;
  /** People of another organization read it (a Slack Connect channel). */
  sharedOutside?: boolean;
}

export interface MemberSource {
  surface: ExternalSurface;
  /** Where the copies are kept, and the time: the surface's core (a SurfaceCore, or anything with its audiences and clock). */
  app: Pick<SurfaceCore, 'audiences' | 'clock'>;
  logger: Logger;
  /** Who reads a channel; null when the platform cannot be asked (no token, no service URL). Throws when the platform fails. */
  read(tenantId: string, channelId: string): Promise<ChannelReaders | null>;
  /** The people who may open any open channel of the tenant (no bots, no guests); null when it cannot be asked. Needed when `read` says `open`. */
  readRoster?(tenantId: string): Promise<string[] | null>;
  /** Turns a platform error into something safe to log. */
  loggable(err: unknown): unknown;
}

/** `SurfaceAudience.members` over the store's cached copies; null when neither the platform nor the cache knows. */
export function cachedMembers(src: MemberSource): (channels: ChatChannel[]) => Promise<Array<StoredReaders | null>> {
  const { audiences, clock } = src.app;
  const failedAt = new Map<string, number>();
  const reading = new Map<string, Promise<ListState | null>>();

  const fetchAndKeep = async (
    tenantId: string,
    listId: string,
    key: string,
    read: () => Promise<string[] | null>,
  ): Promise<ListState | null> => {
    if (Date.now() - (failedAt.get(key) ?? 0) < FAILED_READ_MS) return null;
    try {
      const ids = await read();
      if (!ids) return null;
      const at = clock.now();
      await audiences.putChannelMembers(src.surface, tenantId, listId, ids, at);
      failedAt.delete(key);
      return { fetchedAt: at, marks: ids.filter((id) => id.startsWith('*')) };
    } catch (err) {
      failedAt.set(key, Date.now());
      src.logger.warn(
        { err: src.loggable(err), tenantId, channelId: listId },
        'could not read who is in a chat channel or team; its audience counts as guests',
      );
      return null;
    }
  };

  /**
   * A cached list's state (a channel's, with its marks, or the roster) from the store's copy. An old copy is answered
   * at once and read again in the background, one read per list at a time; a missing one is waited for only when
   * `wait` (a channel's members: one short read), else answered null while it is read (a whole tenant can take minutes
   * at Slack's limits).
   */
  const cached = async (
    tenantId: string,
    listId: string,
    copy: ListState | null,
    read: () => Promise<string[] | null>,
    wait: boolean,
  ): Promise<ListState | null> => {
    if (copy && clock.now().getTime() - copy.fetchedAt.getTime() < MEMBERS_TTL_MS) return copy;
    const key = `${tenantId}:${listId}`;
    let pending = reading.get(key);
    if (!pending)
      reading.set(key, (pending = fetchAndKeep(tenantId, listId, key, read).finally(() => reading.delete(key))));
    return copy ?? (wait ? pending : null);
  };

  const readChannel = async (tenantId: string, channelId: string): Promise<string[] | null> => {
    const r = await src.read(tenantId, channelId);
    return r && [...r.members, ...(r.open ? [OPEN] : []), ...(r.sharedOutside ? [OUTSIDE] : [])];
  };

  return async (channels) => {
    // Every channel's state and their tenants' rosters (no marks: it has none) in one look-up, whether or not a
    // channel turns out open: a roster is one more row, not one more statement.
    const tenants = src.readRoster ? [...new Set(channels.map((c) => c.tenantId))] : [];
    const states = await audiences.channelStates(src.surface, [
      ...channels.map((c) => ({ ...c, marks: true })),
      ...tenants.map((tenantId) => ({ tenantId, channelId: TENANT_ROSTER, marks: false })),
    ]);
    const rosters = new Map(tenants.map((tenantId, i) => [tenantId, states[channels.length + i]]));
    return Promise.all(
      channels.map(async ({ tenantId, channelId }, i) => {
        const channel = await cached(tenantId, channelId, states[i], () => readChannel(tenantId, channelId), true);
        if (!channel) return null;
        const outsiders = channel.marks.includes(OUTSIDE) ? 1 : 0;
        if (!channel.marks.includes(OPEN)) return { lists: [channelId], outsiders };
        const roster = await cached(
          tenantId,
          TENANT_ROSTER,
          rosters.get(tenantId) ?? null,
          async () => (src.readRoster ? src.readRoster(tenantId) : null),
          false,
        );
        // An open channel whose tenant is not listed (yet) has an unknown audience, counted as guests like any unread list.
        if (!roster) return null;
        return { lists: [channelId, TENANT_ROSTER], outsiders };
      }),
    );
  };
}
