// Slack's side of bridged channels: checking that the app reaches a channel
// before it is bridged (the team connected to the workspace, the app among the
// channel's members).
import { notFound, notPermitted, SwitchboardError } from '../../domain/errors.ts';
import type { BridgeSurface } from '../../domain/bridges/bridge-service.ts';
import { readMembers } from './audience.ts';
import { classifySlackError } from './errors.ts';
import type { SlackRuntime } from './runtime.ts';

const CHANNEL = /^[CG][A-Z0-9]{2,}$/;

export function slackBridgeSurface(rt: SlackRuntime): BridgeSurface {
  return {
    surface: 'slack',
    label: 'Slack',
    async resolveChannel(workspace, channelId) {
      if (!CHANNEL.test(channelId)) {
        throw notFound(`A Slack channel "${channelId}"`, 'Give the channel id (C… or G…), shown at the bottom of the channel\'s details in Slack.');
      }
      const [team] = await rt.installations.repo.teamsOf(workspace.id);
      const creds = team ? await rt.installations.credentials(team) : null;
      if (!team || !creds) throw notPermitted(`No Slack team is connected to ${workspace.slug}; run \`switchboard slack connect ${workspace.slug} --team-id T…\` first.`);
      let members: string[];
      try {
        members = await readMembers(rt.clients.for(creds.token), channelId);
      } catch (e) {
        const failure = classifySlackError(e);
        if ('code' in failure && failure.code === 'channel_not_found') throw notFound(`The Slack channel ${channelId} in the team ${team}`, 'Check the id, and invite the Switchboard app to the channel.');
        throw new SwitchboardError('UNAVAILABLE', `Could not ask Slack who is in ${channelId} (${failure.reason}); try again.`);
      }
      if (!members.includes(creds.installation.botUserId)) {
        throw notPermitted(`The Switchboard app is not in the Slack channel ${channelId}; invite it there (/invite @Switchboard) and try again.`);
      }
      const title = await rt.clients.for(creds.token).conversations.info({ channel: channelId })
        .then((r) => (r.channel?.name ? `#${r.channel.name}` : ''), () => '');
      return { tenantId: team, externalChannelId: channelId, externalRef: { team, channel: channelId }, title };
    },
  };
}
