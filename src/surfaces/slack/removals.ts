// When Slack says a place is gone: a channel deleted or archived (an archived
// channel refuses posts with `is_archived`), or the app uninstalled from a team
// (`app_uninstalled`, or `tokens_revoked` naming the bot's token). Bridges go
// through the core (BridgeService.outsideChannelsGone, as for Teams: audited,
// the web channel's header updated); a gone channel's listeners go too; an
// uninstalled team's install, its sealed bot token with it, is forgotten, so
// whatever is still queued for that team fails for good saying how to connect
// it again (errors.ts notInstalled) instead of retrying. Unarchiving needs
// nothing: an owner bridges the channel again. Stored messages stay, as history.
import type { SlackListeners } from './event-listeners.ts';
import type { SlackRuntime } from './runtime.ts';

/** Why a channel or a team is gone, as the log and the audit say it. */
export type GoneReason = 'channelDeleted' | 'channelArchived' | 'uninstalled';

/** Removes the bridge and the listeners of a Slack channel that was deleted or archived. */
export async function channelGone(
  rt: SlackRuntime,
  teamId: string,
  channel: string,
  reason: GoneReason,
): Promise<void> {
  const { tenants, bridges, listening } = rt.core;
  const removed = await bridges.outsideChannelsGone('slack', teamId, [channel], reason);
  const workspaceId = await tenants.workspaceOf('slack', teamId);
  const listenersRemoved = workspaceId ? await listening.channelsGone(workspaceId, 'slack', [channel]) : 0;
  rt.logger.info(
    {
      teamId,
      channel,
      reason,
      listenersRemoved,
      bridgesRemoved: removed.map((b) => ({ id: b.id, workspaceId: b.workspaceId })),
    },
    reason === 'channelDeleted'
      ? 'a Slack channel was deleted: its bridge and listeners removed'
      : 'a Slack channel was archived: its bridge and listeners removed',
  );
}

/**
 * The app uninstalled from a team (or its bot token revoked): that team's bridges removed and its install forgotten.
 * `eventTime` is Slack's (event_time, whole seconds): the inbound job may run late (retried, resumed after a restart),
 * and an install made or updated after that second (the admin installed the app or connected the team again) stays,
 * with its bridges. The delete itself is conditional too, and the bridges go only after it, so a reinstall landing
 * meanwhile keeps both.
 */
export async function teamUninstalled(rt: SlackRuntime, teamId: string, eventTime: number): Promise<void> {
  const { tenants, bridges } = rt.core;
  const before = new Date((eventTime + 1) * 1000);
  const kept = () =>
    rt.logger.info(
      { teamId, eventTime },
      'a Slack uninstall was handled after the app was installed in that team again: the new install is kept',
    );
  // Read past the credentials cache: another process may have stored the reinstall.
  const installed = await rt.installations.repo.get(teamId);
  if (installed && installed.updatedAt >= before) return kept();
  // The workspace is read before the install goes (its removal unlinks the team); the bridges go only once it went.
  const workspaceId = await tenants.workspaceOf('slack', teamId);
  if (!(await rt.installations.remove(teamId, before))) return kept();
  const ours = workspaceId ? await bridges.ofTenant(workspaceId, 'slack', teamId) : [];
  const removed = await bridges.outsideChannelsGone(
    'slack',
    teamId,
    ours.map((b) => b.externalChannelId),
    'uninstalled',
  );
  rt.logger.info(
    { teamId, workspaceId, bridgesRemoved: removed.map((b) => ({ id: b.id, channel: b.externalChannelId })) },
    'the Switchboard app was uninstalled from a Slack team: its bridges removed and its install and bot token forgotten',
  );
}

export function registerRemovals(bolt: SlackListeners, rt: SlackRuntime): void {
  for (const type of ['channel_deleted', 'group_deleted'] as const) {
    bolt.event(type, async ({ event, context }) => {
      if (context.teamId) await channelGone(rt, context.teamId, event.channel, 'channelDeleted');
    });
  }
  for (const type of ['channel_archive', 'group_archive'] as const) {
    bolt.event(type, async ({ event, context }) => {
      if (context.teamId) await channelGone(rt, context.teamId, event.channel, 'channelArchived');
    });
  }
  // Bolt runs these two without authorizing (the token is gone already); the team comes from the envelope.
  bolt.event('app_uninstalled', async ({ body, context }) => {
    if (context.teamId) await teamUninstalled(rt, context.teamId, body.event_time);
  });
  bolt.event('tokens_revoked', async ({ body, event, context }) => {
    // Only the bot's token matters: Switchboard keeps no user tokens.
    if (context.teamId && event.tokens.bot?.length) await teamUninstalled(rt, context.teamId, body.event_time);
  });
}
