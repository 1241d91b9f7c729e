// When Teams says a place is gone: a channel deleted, a team deleted, or the
// app uninstalled from a team or a chat. Its bridges are removed through the
// core (BridgeService.outsideChannelsGone: audited, the web channel's header
// updated, and a bridge job still queued for it finds no bridge and stops) and
// its conversation references are forgotten; a deleted channel's listeners go
// too. What Switchboard stored of the messages written there stays, as history.
import type { TurnContext } from 'botbuilder';
import { addressOf } from './inbound.ts';
import type { TeamsRuntime } from './runtime.ts';

/** Why a place is gone, as the log and the audit say it. */
export type GoneReason = 'channelDeleted' | 'teamDeleted' | 'uninstalled';

/** The team an activity in a team's channel names (`channelData.team.id`); null in a chat. */
export const teamOf = (activity: Partial<TurnContext['activity']>): string | null => {
  const id = (activity.channelData as { team?: { id?: unknown } } | undefined)?.team?.id;
  return typeof id === 'string' && id ? id : null;
};

/**
 * Forgets a conversation (a channel with its reply chains, or a chat), or every
 * channel of a team, and removes the bridges to those channels. A team's channels
 * are the ones the bot has seen there (every channel activity names its team),
 * and its General channel, whose id is the team's. A bridge to a channel the bot
 * never heard from is not found here; its next post, edit or delete there, refused, removes it (mirror-out.ts
 * bridgeRefused; its listeners stay, as a refusal does not tell a deletion from an uninstall). A reference the bot stored for that channel is left to the team's
 * deletion or uninstall: only posts into that channel use it, and Teams refuses those alike.
 */
export async function placeGone(
  rt: TeamsRuntime,
  tenant: string,
  what: { conversation: string } | { team: string },
  reason: GoneReason,
): Promise<void> {
  const forgotten = await rt.references.forget(tenant, what);
  const channels = 'team' in what ? [what.team, ...forgotten] : [what.conversation];
  const removed = await rt.core.bridges.outsideChannelsGone('teams', tenant, channels, reason);
  // A deleted channel's listeners go too; an uninstall leaves them, for when the app comes back.
  const workspaceId = reason === 'uninstalled' ? null : await rt.core.tenants.workspaceOf('teams', tenant);
  const listenersRemoved = workspaceId ? await rt.core.listening.channelsGone(workspaceId, 'teams', channels) : 0;
  rt.logger.info(
    {
      tenant,
      ...what,
      reason,
      conversationsForgotten: forgotten.length,
      listenersRemoved,
      bridgesRemoved: removed.map((b) => ({ id: b.id, workspaceId: b.workspaceId, channel: b.externalChannelId })),
    },
    reason === 'channelDeleted'
      ? 'a Teams channel was deleted: its bridges and listeners removed and its conversation forgotten'
      : reason === 'teamDeleted'
        ? 'a Teams team was deleted: the bridges, listeners and conversations of its channels removed'
        : 'the Switchboard app was uninstalled in Teams: the bridges and conversations there removed',
  );
}

/** `installationUpdate` with action `remove`: the app uninstalled from a team (every channel of it) or from a chat. */
export async function uninstalled(rt: TeamsRuntime, context: TurnContext): Promise<void> {
  const { activity } = context;
  const address = addressOf(activity);
  // The SDK routes 'remove-upgrade' here too; only 'remove' is the uninstall this handles.
  if (!address || activity.action !== 'remove') return;
  const team = teamOf(activity);
  await placeGone(rt, address.tenant, team ? { team } : { conversation: address.conversation }, 'uninstalled');
}
