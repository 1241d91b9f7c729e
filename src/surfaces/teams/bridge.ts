// Teams' side of bridged channels: checking that the bot reaches a channel
// before it is bridged (the tenant connected to the workspace, the bot in the
// channel's team), and handing messages written there to the core's bridge
// step, edits and deletes (there or in any chat) to the core's followChange,
// and reactions there to the web copy (Teams lets no
// bot react, so nothing goes the other way). Posting into the channel is the outbound port's
// (outbound.ts): a web message starts a new post in the channel, a reply goes
// into the reply chain of its root (`<channel>;messageid=<root id>`).
//
// Teams sends a bot the channel messages that do not mention it only when the
// app holds the resource-specific permission ChannelMessage.Read.Group (the
// app package asks for it); without it only mentions are mirrored.
import type { TurnContext } from 'botbuilder';
import { z } from 'zod';
import type { BridgePort } from '../../core/bridges/bridge-port.ts';
import { isDeliveryError } from '../../core/delivery/failure.ts';
import type { SurfaceOutbound } from '../../core/delivery/surface-outbound.ts';
import { notFound, notPermitted, SwitchboardError } from '../../core/errors.ts';
import { addressRef, encodeConversationKey, type TeamsAddress } from './thread-id.ts';
import { noAgentNamed } from './cards.ts';
import { withConnector } from './connector.ts';
import { teamsToMarkdown, type TeamsMarkdown } from './format/in.ts';
import { authorOf, normalise, teamsPort } from './inbound.ts';
import type { TeamsRuntime } from './runtime.ts';
import { commandOf } from './text.ts';

/** A Teams channel's conversation id (a team's General channel has the team's id). */
const CHANNEL = /^19:[A-Za-z0-9_.-]+@thread\.(tacv2|skype)$/;

/** The channel id in what an owner gives: the id itself, or the link Teams' "Get link to channel" copies. */
export function teamsChannelId(input: string): string | null {
  const given = input.trim();
  if (CHANNEL.test(given)) return given;
  const encoded = /^https:\/\/teams\.microsoft\.com\/l\/channel\/([^/?#]+)/.exec(given)?.[1];
  let id: string | null = null;
  try {
    id = encoded ? decodeURIComponent(encoded) : null;
  } catch {
    return null;
  }
  return id && CHANNEL.test(id) ? id : null;
}

/** Teams' bridge port: its outbound port (posts under the author's name, edits, deletes, reply chains) and the channel check. */
export function teamsBridgePort(rt: TeamsRuntime, outbound: SurfaceOutbound): BridgePort {
  return {
    ...outbound,
    channelExample: '19:…@thread.tacv2',
    async resolveChannel(workspace, input) {
      const channel = teamsChannelId(input);
      if (!channel) {
        throw notFound(
          `A Teams channel "${input}"`,
          'Give the channel\'s id (19:…@thread.tacv2), or paste the link from "Get link to channel" in Teams.',
        );
      }
      const tenants = await rt.core.tenants.tenantsOf('teams', workspace.id);
      if (!tenants.length)
        throw notPermitted(
          `No Microsoft Teams tenant is connected to ${workspace.slug}; run \`switchboard teams connect ${workspace.slug} --tenant-id …\` first.`,
        );
      for (const tenant of tenants) {
        // Known once the bot has received anything in the tenant (being added to a team is enough).
        const serviceUrl = await rt.references.serviceUrlOf(tenant);
        if (!serviceUrl) continue;
        const address: TeamsAddress = { tenant, conversation: channel, type: 'channel', serviceUrl, channel };
        try {
          // The roster is readable only by a bot of the channel's team.
          await withConnector(rt, address, (c) => c.conversations.getConversationMembers(channel));
          return { tenantId: tenant, externalChannelId: channel, externalRef: addressRef(address), title: '' };
        } catch (e) {
          if (isDeliveryError(e) && e.failure.kind === 'permanent') continue;
          const reason = isDeliveryError(e) ? e.failure.reason : String(e);
          throw new SwitchboardError(
            'UNAVAILABLE',
            `Could not ask Teams whether the bot is in ${channel} (${reason}); try again.`,
          );
        }
      }
      throw notPermitted(
        `The Switchboard bot is not in the team of the Teams channel ${channel}; add the Switchboard app to that team in Teams, then try again.`,
      );
    },
  };
}

/** The bridge of the channel a Teams activity came from; null when it is not a bridged channel. */
async function bridgeOf(rt: TeamsRuntime, a: TeamsAddress) {
  return a.type === 'channel' && a.channel ? rt.core.bridges.byExternal('teams', a.tenant, a.channel) : null;
}

/** Posts by bots (ours included: `28:` ids) never come back into the bridge. */
const fromABot = (context: TurnContext) => {
  const from = context.activity.from?.id ?? '';
  return from === context.activity.recipient?.id || from.startsWith('28:');
};

/**
 * A message in a bridged channel, handed to the core's bridge step; false when
 * the channel is not bridged (ordinary handling applies). Agents are named
 * with `@name`, or as usual after mentioning the bot (`ask reviewer …`).
 * Otherwise the sentences for the person (unknown names, refusals).
 */
export async function mirrorBridged(
  rt: TeamsRuntime,
  context: TurnContext,
  address: TeamsAddress,
  read: TeamsMarkdown,
): Promise<string[] | false> {
  if (!(await bridgeOf(rt, address))) return false;
  if (fromABot(context)) return [];
  const addressed = read.mentionsBot;
  // `@Switchboard help` and the like are answered, not mirrored.
  if (addressed && commandOf(read.markdown)) return false;
  const msg = {
    ...normalise(context.activity, address, read, addressed),
    names: addressed ? read.names : read.mentioned,
  };
  const outcome = await rt.core.inbound.mirrorBridged(teamsPort(rt, context, address), msg);
  if (outcome?.kind === 'name-an-agent') return [noAgentNamed(outcome.directory)];
  return outcome?.kind === 'handled' ? outcome.notices : [];
}

/**
 * An edit (`editMessage`) or a soft delete (`softDeleteMessage`) of a person's message, applied to what
 * Switchboard stored of it: a bridged channel's web copy, or the message agents got in a chat or reply chain.
 */
export async function followChange(
  rt: TeamsRuntime,
  context: TurnContext,
  address: TeamsAddress,
  kind: 'edit' | 'delete',
): Promise<void> {
  const { activity } = context;
  if (!activity.id || fromABot(context)) return;
  // Stored under the conversation it came in (a channel post: its reply chain, `…;messageid=<root>`).
  const keys = [encodeConversationKey(address)];
  if (address.channel)
    keys.push(
      encodeConversationKey({
        ...address,
        conversation: `${address.channel};messageid=${address.root ?? activity.id}`,
      }),
    );
  const change = {
    tenantId: address.tenant,
    channelId: address.channel ?? address.conversation,
    messageId: activity.id,
    conversationKeys: keys,
  };
  const port = teamsPort(rt, context, address);
  if (kind === 'delete') await rt.core.inbound.followChange(port, { ...change, kind: 'delete' });
  else
    await rt.core.inbound.followChange(port, {
      ...change,
      kind: 'edit',
      text: async () => teamsToMarkdown(activity, activity.recipient?.id).markdown,
    });
}

/** Teams' reaction types, as the web chat names them (Slack's short names). */
const FROM_TEAMS = new Map(
  Object.entries({
    like: 'thumbsup',
    heart: 'heart',
    laugh: 'laughing',
    surprised: 'open_mouth',
    sad: 'cry',
    angry: 'angry',
  }),
);

/** `reactionsAdded` / `reactionsRemoved` as the activity carries them. */
const Reactions = z.array(z.object({ type: z.string().max(64) }).passthrough()).max(64);

/**
 * A `messageReaction` on a message of a bridged channel (`replyToId`), its
 * reactions given (`on`) or taken back applied to the web copy as that Teams
 * user's, and from there to the other bridged sides. Types other than Teams'
 * six, bots' reactions and messages the bridge does not know are ignored.
 */
export async function followReactions(
  rt: TeamsRuntime,
  context: TurnContext,
  address: TeamsAddress,
  reactions: unknown,
  on: boolean,
): Promise<void> {
  const { activity } = context;
  const messageId = activity.replyToId;
  if (!messageId || !address.channel || fromABot(context) || !(await bridgeOf(rt, address))) return;
  const given = Reactions.safeParse(reactions ?? []);
  if (!given.success)
    return void rt.logger.debug(
      { issue: given.error.issues[0]?.message },
      'ignored a Teams reaction activity with malformed reactions',
    );
  const port = teamsPort(rt, context, address);
  for (const emoji of new Set(given.data.map((r) => FROM_TEAMS.get(r.type)))) {
    if (!emoji) continue;
    await rt.core.inbound.mirrorBridgedReaction(port, {
      tenantId: address.tenant,
      channelId: address.channel,
      messageId,
      userId: authorOf(activity),
      emoji,
      on,
    });
  }
}
