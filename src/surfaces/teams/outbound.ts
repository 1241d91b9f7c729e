// Teams' side of the one delivery path (src/core/delivery): agents' messages
// posted into a Teams chat or reply chain under the agent's own name and avatar
// (in a card header, since Teams always shows the bot).
//
// What exactly-once means here: the attempt is recorded before posting and the
// activity id Teams returns after (kept in memory and recorded once the database
// is back, when it is briefly away: post-delivery.ts), so a retry after a
// recorded post never posts again. When the outcome of an attempt is unknown
// (the process died after Teams accepted the post and before its id was
// recorded), Bot Framework offers no way to look the post up: the Bot Connector
// cannot read a conversation's messages, and reading them through Microsoft
// Graph would need the ChatMessage.Read.Chat / ChannelMessage.Read.Group
// permissions Switchboard does not ask for. Such a retry posts again, so in that
// narrow window a duplicate is possible (at least once), never a loss.
import type { OutboundMessage, PostedMessage, SurfaceOutbound } from '../../core/delivery/surface-outbound.ts';
import { DeliveryError } from '../../core/delivery/failure.ts';
import type { Conversation } from '../../core/messaging/message.ts';
import { addressFromRef, messageLink, paceKey, type TeamsAddress } from './thread-id.ts';
import { parseMentions } from '../../core/format/mentions.ts';
import { agentMessage } from './cards.ts';
import type { TeamsPerson } from './format/out.ts';
import { activityCalls } from './connector.ts';
import { TEAMS, TEAMS_POST } from './topics.ts';
import type { TeamsRuntime } from './runtime.ts';

/** Most people one message mentions the Teams way; further `@handles` stay words. */
const MAX_MENTIONS = 20;

/**
 * The people an agent's message names by handle (`@bob`) who linked a Teams
 * account in this conversation's tenant: those it mentions the Teams way.
 */
async function mentionable(rt: TeamsRuntime, address: TeamsAddress, body: string): Promise<Map<string, TeamsPerson>> {
  const people = new Map<string, TeamsPerson>();
  const handles = parseMentions(body)
    .filter((n) => !n.includes('/'))
    .slice(0, MAX_MENTIONS);
  await Promise.all(
    handles.map(async (handle) => {
      const linked = await rt.core.links.linkedIn(handle, TEAMS.surface, address.tenant);
      if (linked)
        people.set(handle, {
          id: linked.identity.externalUserId,
          name: linked.identity.displayName || linked.person.displayName,
        });
    }),
  );
  return people;
}

function addressOf(conversation: Conversation): TeamsAddress {
  const address = addressFromRef(conversation.externalRef);
  if (!address)
    throw new DeliveryError({ kind: 'permanent', code: 'no_address', reason: 'the conversation has no Teams address' });
  return address;
}

export function teamsOutbound(rt: TeamsRuntime): SurfaceOutbound {
  return {
    ...TEAMS,
    postTopic: TEAMS_POST,
    pacer: rt.pacer,
    paceKey(conversation) {
      const address = addressFromRef(conversation.externalRef);
      return address ? paceKey(address) : null;
    },

    async post({ message, sender, conversation, via }: OutboundMessage): Promise<PostedMessage> {
      const address = addressOf(conversation);
      const activityId = await activityCalls.post(
        rt,
        address,
        agentMessage(sender, message.body, await mentionable(rt, address, message.body), via),
      );
      return { externalId: activityId, permalink: messageLink(address, activityId) };
    },

    // See the top of this file: Teams cannot be asked for an earlier post.
    async findPost(m: OutboundMessage): Promise<PostedMessage | null> {
      rt.logger.warn(
        { messageId: m.message.id },
        'an earlier Teams post attempt has no recorded outcome and Teams cannot be searched; posting again',
      );
      return null;
    },

    async update({ message, sender, conversation, via }, activityId) {
      const address = addressOf(conversation);
      await activityCalls.update(
        rt,
        address,
        activityId,
        agentMessage(sender, message.body, await mentionable(rt, address, message.body), via),
      );
    },

    // A channel's reply chain is its own conversation, `<channel conversation>;messageid=<root>`.
    threadAddress: (ref, root) => ({
      ...ref,
      conversation: `${ref.conversation.split(';')[0]};messageid=${root}`,
      root,
    }),

    async remove(conversation, activityId) {
      await activityCalls.remove(rt, addressOf(conversation), activityId);
    },
  };
}
