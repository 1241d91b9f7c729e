// How listening names Slack channels: `slack:C0123ABCD` (public C…, private
// G…; DMs D… have no listeners), the channel a stored Slack conversation is
// in, and where the note that an agent listens goes (the channel itself, in
// the team connected to the workspace).
import type { ListenChannels } from '../../core/listening/listen-ports.ts';
import { SLACK, type SlackRuntime } from './runtime.ts';
import { encodeThreadKey, threadRef } from './thread-id.ts';

const CHANNEL = /^[CG][A-Z0-9]{2,}$/;

export function slackListenChannels(rt: SlackRuntime): ListenChannels {
  return {
    ...SLACK,
    example: 'slack:C0123ABCD',
    parseChannel: (id) => (CHANNEL.test(id) ? id : null),
    channelOf: (ref) => (ref.channel && CHANNEL.test(ref.channel) ? ref.channel : null),
    async noteAddress(ws, channel) {
      const [team] = await rt.installations.repo.teamsOf(ws.id);
      if (!team) return null;
      return {
        key: encodeThreadKey({ team, channel }),
        externalRef: threadRef({ team, channel }),
        title: `Slack channel ${channel}`,
      };
    },
  };
}
