// Who reads a Teams conversation, for the core's audience rules: a personal
// chat is the person in it; a group chat or a channel is its members (a
// channel's roster is its team's), read from the Bot Connector, kept in the
// database, changed by conversationUpdate events, and read again after an hour.
import type { TurnContext } from 'botbuilder';
import type { SurfaceAudience } from '../../domain/linking/ports.ts';
import { addressFromRef, type TeamsAddress } from './address.ts';
import { withConnector } from './connector.ts';
import { loggable } from './errors.ts';
import { addressOf } from './inbound.ts';
import type { TeamsRuntime } from './runtime.ts';

/** Cached members are read again from Teams after this long (events keep them current in between). */
export const MEMBERS_TTL_MS = 60 * 60_000;
/** A failed read is not retried for this long, so a burst of inbox reads asks Teams once. */
const FAILED_READ_MS = 30_000;

/** Where a conversation's audience is kept: the channel (for every reply chain in it) or the group chat. */
const audienceKey = (a: TeamsAddress) => (a.type === 'channel' ? a.channel ?? a.conversation.replace(/;messageid=\d+$/, '') : a.conversation);

/** The Teams side of audiences, registered with the core's AudienceService. Members are AAD object ids, as identities are keyed. */
export function teamsAudience(rt: TeamsRuntime): SurfaceAudience {
  const { store, clock } = rt.app;
  const failedAt = new Map<string, number>();
  const reading = new Map<string, Promise<string[] | null>>();

  const fetchAndKeep = async (tenant: string, channelId: string): Promise<string[] | null> => {
    const key = `${tenant}:${channelId}`;
    if (Date.now() - (failedAt.get(key) ?? 0) < FAILED_READ_MS) return null;
    const serviceUrl = await rt.references.serviceUrlOf(tenant);
    if (!serviceUrl) return null;
    try {
      const address: TeamsAddress = { tenant, conversation: channelId, type: 'groupChat', serviceUrl };
      const accounts = await withConnector(rt, address, (c) => c.conversations.getConversationMembers(channelId));
      const members = accounts.flatMap((m) => (m.aadObjectId && !m.id.startsWith('28:') ? [m.aadObjectId] : []));
      await store.audiences.putChannelMembers('teams', tenant, channelId, members, clock.now());
      failedAt.delete(key);
      return members;
    } catch (err) {
      failedAt.set(key, Date.now());
      rt.logger.warn({ err: loggable(err), tenant }, 'could not read the members of a Teams conversation; its audience counts as guests');
      return null;
    }
  };

  return {
    locate(c) {
      const a = addressFromRef(c.externalRef);
      if (!a) return null;
      return a.type === 'personal' ? { kind: 'dm' } : { kind: 'channel', tenantId: a.tenant, channelId: audienceKey(a) };
    },
    async members(tenant, channelId) {
      const cached = await store.audiences.channelMembers('teams', tenant, channelId);
      if (cached && clock.now().getTime() - cached.fetchedAt.getTime() < MEMBERS_TTL_MS) return cached.userIds;
      // One read per conversation at a time; a stale copy is better than none when Teams does not answer.
      const key = `${tenant}:${channelId}`;
      let pending = reading.get(key);
      if (!pending) reading.set(key, pending = fetchAndKeep(tenant, channelId).finally(() => reading.delete(key)));
      return (await pending) ?? cached?.userIds ?? null;
    },
  };
}

/** Keeps cached members current as people are added and removed; when the bot itself is removed, the copy is dropped. */
export async function membersChanged(rt: TeamsRuntime, context: TurnContext): Promise<void> {
  const a = addressOf(context.activity);
  if (!a || a.type === 'personal') return;
  const key = audienceKey(a);
  const bot = context.activity.recipient?.id;
  const audiences = rt.app.store.audiences;
  try {
    for (const m of context.activity.membersAdded ?? []) if (m.id !== bot && m.aadObjectId) await audiences.memberChanged('teams', a.tenant, key, m.aadObjectId, true);
    for (const m of context.activity.membersRemoved ?? []) {
      if (m.id === bot) await audiences.forgetChannel('teams', a.tenant, key);
      else if (m.aadObjectId) await audiences.memberChanged('teams', a.tenant, key, m.aadObjectId, false);
    }
  } catch (err) {
    rt.logger.warn({ err: loggable(err) }, 'could not record a Teams membership change; the next read of the members corrects it');
  }
}
