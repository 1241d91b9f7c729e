// Who reads a Teams conversation, for the core's audience rules: a personal
// chat is the person in it; a group chat or a channel is its members, read
// from the Bot Connector, kept in the database, changed by conversationUpdate
// events, and read again after an hour. The connector already answers with
// who may read: a standard channel's roster is its whole team's, a private or
// shared channel's its own members.
import type { TurnContext } from 'botbuilder';
import type { ChatPlace, SurfaceAudience } from '../../core/linking/audience-ports.ts';
import { addressFromRef, type TeamsAddress } from './thread-id.ts';
import { withConnector } from './connector.ts';
import { cachedMembers } from '../shared/audience.ts';
import { loggable } from './errors.ts';
import { addressOf } from './inbound.ts';
import type { TeamsRuntime } from './runtime.ts';

export { MEMBERS_TTL_MS } from '../shared/audience.ts';

/** Where a conversation's audience is kept: the channel (for every reply chain in it) or the group chat. */
const audienceKey = (a: TeamsAddress) =>
  a.type === 'channel' ? (a.channel ?? a.conversation.replace(/;messageid=\d+$/, '')) : a.conversation;

/** Where a Teams conversation's readers are: a personal chat is a DM; a channel (every reply chain in it) or a group chat has members. */
export const placeOf = (a: TeamsAddress): ChatPlace =>
  a.type === 'personal' ? { kind: 'dm' } : { kind: 'channel', tenantId: a.tenant, channelId: audienceKey(a) };

/** The Teams side of audiences, registered with the core's AudienceService. Members are AAD object ids, as identities are keyed. */
export function teamsAudience(rt: TeamsRuntime): SurfaceAudience {
  return {
    locate(c) {
      const a = addressFromRef(c.externalRef);
      return a && placeOf(a);
    },
    members: cachedMembers({
      surface: 'teams',
      app: rt.core,
      logger: rt.logger,
      loggable,
      async read(tenant, channelId) {
        const serviceUrl = await rt.references.serviceUrlOf(tenant);
        if (!serviceUrl) return null;
        const address: TeamsAddress = { tenant, conversation: channelId, type: 'groupChat', serviceUrl };
        const accounts = await withConnector(rt, address, (c) => c.conversations.getConversationMembers(channelId));
        return { members: accounts.flatMap((m) => (m.aadObjectId && !m.id.startsWith('28:') ? [m.aadObjectId] : [])) };
      },
    }),
  };
}

/**
 * Keeps cached members current as people are added and removed; when the bot itself is removed, the copy is dropped.
 * A team-level event (`teamMemberAdded`/`teamMemberRemoved`: the team in channelData, no channel) changes every
 * channel of the team, but names only the team (General's id): the cache does not keep which team a channel is in,
 * so every Teams list of the tenant is dropped and read again on its next use.
 */
export async function membersChanged(rt: TeamsRuntime, context: TurnContext): Promise<void> {
  const a = addressOf(context.activity);
  if (!a || a.type === 'personal') return;
  const key = audienceKey(a);
  const bot = context.activity.recipient?.id;
  const audiences = rt.core.audiences;
  const team = (context.activity.channelData as { team?: { id?: string } } | undefined)?.team?.id;
  // Not swallowed: a stale list would stand for an hour, so a failure fails the turn and the inbound job retries it.
  if (team && !a.channel) return audiences.forgetTenantChannels('teams', a.tenant);
  try {
    for (const m of context.activity.membersAdded ?? [])
      if (m.id !== bot && m.aadObjectId) await audiences.memberChanged('teams', a.tenant, key, m.aadObjectId, true);
    for (const m of context.activity.membersRemoved ?? []) {
      if (m.id === bot) await audiences.forgetChannel('teams', a.tenant, key);
      else if (m.aadObjectId) await audiences.memberChanged('teams', a.tenant, key, m.aadObjectId, false);
    }
  } catch (err) {
    rt.logger.warn(
      { err: loggable(err) },
      'could not record a Teams membership change; the next read of the members corrects it',
    );
  }
}
