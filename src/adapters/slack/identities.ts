import type { webApi } from '@slack/bolt';
import type { WorkspaceAgent } from '../../domain/agents/agent-service.ts';
import type { ExternalIdentity, ExternalProfile } from '../../domain/surfaces/ports.ts';
import type { Agent } from '../../domain/types.ts';
import { loggable } from './errors.ts';
import type { SlackRuntime } from './runtime.ts';

/** Who wrote a Slack message, and which Switchboard agent speaks for them. */
export interface SlackAsker {
  identity: ExternalIdentity;
  /** Their person agent when linked and in the workspace; otherwise the guest agent. */
  sender: Agent;
  asGuest: boolean;
}

/** A users.info profile as Switchboard keeps it. */
export async function readProfile(client: webApi.WebClient, userId: string, now: Date): Promise<ExternalProfile> {
  const { user } = await client.users.info({ user: userId });
  const p = user?.profile ?? {};
  return {
    displayName: p.display_name || p.real_name || user?.real_name || user?.name || userId,
    email: p.email ?? null,
    avatarUrl: p.image_72 ?? null,
    details: {
      name: user?.name, real_name: user?.real_name, tz: user?.tz, is_bot: user?.is_bot ?? false, deleted: user?.deleted ?? false,
      is_restricted: user?.is_restricted ?? false, is_ultra_restricted: user?.is_ultra_restricted ?? false,
    },
    fetchedAt: now,
  };
}

/**
 * The external identity of a Slack user (created on first sight, its profile
 * refreshed from users.info when older than the TTL), and the sender for their
 * messages: a linked person who can reach the workspace writes as their person
 * agent; anyone else as the guest, with no access of their own.
 */
export async function resolveAsker(rt: SlackRuntime, client: webApi.WebClient, teamId: string, userId: string, directory: WorkspaceAgent[]): Promise<SlackAsker> {
  const key = { surface: 'slack' as const, tenantId: teamId, externalUserId: userId };
  const now = rt.app.clock.now();
  let identity = await rt.identities.find(key);
  if (!identity?.profileFetchedAt || now.getTime() - identity.profileFetchedAt.getTime() > rt.settings.profileTtlMs) {
    // A profile Slack will not give right now must not stop the message: the identity is still recorded.
    const profile = await readProfile(client, userId, now).catch((err: unknown) => {
      rt.logger.warn({ err: loggable(err), teamId, userId }, 'could not read the Slack profile; keeping what is stored');
      return undefined;
    });
    identity = await rt.identities.upsert(key, profile);
  }
  if (identity.personId) {
    const entry = directory.find((d) => d.agent.kind === 'person' && d.agent.ownerId === identity!.personId);
    if (entry) return { identity, sender: entry.agent, asGuest: false };
  }
  return { identity, sender: await rt.guest(), asGuest: true };
}
