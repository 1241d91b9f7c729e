// How listening names Teams channels: `teams:19:…@thread.tacv2` (the channel
// id Bot Framework gives in channelData; older `@thread.skype`), the channel a
// stored Teams conversation is in (a reply chain of it; never a group or
// personal chat), and where the note that an agent listens goes: a new post
// in the channel, through the tenant connected to the workspace.
import type { ListenChannels } from '../../core/listening/listen-ports.ts';
import { addressRef, encodeConversationKey, type TeamsAddress } from './thread-id.ts';
import { TEAMS } from './topics.ts';
import type { TeamsRuntime } from './runtime.ts';

const CHANNEL = /^19:[^\s;]+@thread\.(tacv2|skype)$/;

export function teamsListenChannels(rt: TeamsRuntime): ListenChannels {
  return {
    ...TEAMS,
    example: 'teams:19:…@thread.tacv2',
    parseChannel: (id) => (CHANNEL.test(id) ? id : null),
    channelOf: (ref) => (ref.type === 'channel' && ref.channel && CHANNEL.test(ref.channel) ? ref.channel : null),
    async noteAddress(ws, channel) {
      // Posting needs the Bot Connector address Teams gave the bot in that tenant; a tenant it never heard from has none yet.
      for (const tenant of await rt.core.tenants.tenantsOf('teams', ws.id)) {
        const serviceUrl = await rt.references.serviceUrlOf(tenant);
        if (!serviceUrl) continue;
        const address: TeamsAddress = { tenant, conversation: channel, type: 'channel', serviceUrl, channel };
        return {
          key: encodeConversationKey(address),
          externalRef: addressRef(address),
          title: `Teams channel ${channel}`,
        };
      }
      return null;
    },
  };
}
