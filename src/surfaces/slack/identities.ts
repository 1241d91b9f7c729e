import type { webApi } from '@slack/bolt';
import type { ExternalProfile } from '../../core/surfaces/surface-ports.ts';

/** A users.info profile as Switchboard keeps it. */
export async function readProfile(client: webApi.WebClient, userId: string, now: Date): Promise<ExternalProfile> {
  const { user } = await client.users.info({ user: userId });
  const p = user?.profile ?? {};
  return {
    displayName: p.display_name || p.real_name || user?.real_name || user?.name || userId,
    email: p.email ?? null,
    avatarUrl: p.image_72 ?? null,
    details: {
      name: user?.name,
      real_name: user?.real_name,
      tz: user?.tz,
      is_bot: user?.is_bot ?? false,
      deleted: user?.deleted ?? false,
      is_restricted: user?.is_restricted ?? false,
      is_ultra_restricted: user?.is_ultra_restricted ?? false,
    },
    fetchedAt: now,
  };
}
