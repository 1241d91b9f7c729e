// Who reads a Slack conversation, for the core's audience rules: a DM is the
// person in it; a channel is everyone in it, read with conversations.members,
// kept in the database and changed by member_joined_channel and
// member_left_channel, and read again when the copy is older than an hour.
import type { App as BoltApp, webApi } from '@slack/bolt';
import type { SurfaceAudience } from '../../domain/linking/ports.ts';
import { loggable } from './errors.ts';
import type { SlackRuntime } from './runtime.ts';
import { threadFromRef } from './thread-key.ts';

/** A channel's cached members are read again from Slack after this long (events keep them current in between). */
export const MEMBERS_TTL_MS = 60 * 60_000;
/** A failed read is not retried for this long, so a burst of inbox reads asks Slack once. */
const FAILED_READ_MS = 30_000;

/** Everyone in a Slack channel (the bot too, when it is in it), every page. */
export async function readMembers(client: webApi.WebClient, channel: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.conversations.members({ channel, limit: 1000, ...(cursor ? { cursor } : {}) });
    ids.push(...(page.members ?? []));
    cursor = page.response_metadata?.next_cursor || undefined;
  } while (cursor);
  return ids;
}

/** The Slack side of audiences, registered with the core's AudienceService. */
export function slackAudience(rt: SlackRuntime): SurfaceAudience {
  const { store, clock } = rt.app;
  const failedAt = new Map<string, number>();
  const reading = new Map<string, Promise<string[] | null>>();

  const fetchAndKeep = async (teamId: string, channelId: string): Promise<string[] | null> => {
    const key = `${teamId}:${channelId}`;
    if (Date.now() - (failedAt.get(key) ?? 0) < FAILED_READ_MS) return null;
    const creds = await rt.installations.credentials(teamId);
    if (!creds) return null;
    try {
      const bot = creds.installation.botUserId;
      const members = (await readMembers(rt.clients.for(creds.token), channelId)).filter((u) => u !== bot);
      await store.audiences.putChannelMembers('slack', teamId, channelId, members, clock.now());
      failedAt.delete(key);
      return members;
    } catch (err) {
      failedAt.set(key, Date.now());
      rt.logger.warn({ err: loggable(err), teamId, channelId }, 'could not read the members of a Slack channel; its audience counts as guests');
      return null;
    }
  };

  return {
    locate(c) {
      const thread = threadFromRef(c.externalRef);
      if (!thread) return null;
      return thread.channel.startsWith('D') ? { kind: 'dm' } : { kind: 'channel', tenantId: thread.team, channelId: thread.channel };
    },
    async members(teamId, channelId) {
      const cached = await store.audiences.channelMembers('slack', teamId, channelId);
      if (cached && clock.now().getTime() - cached.fetchedAt.getTime() < MEMBERS_TTL_MS) return cached.userIds;
      // One read per channel at a time; a stale copy is better than none when Slack does not answer.
      const key = `${teamId}:${channelId}`;
      let pending = reading.get(key);
      if (!pending) {
        reading.set(key, pending = fetchAndKeep(teamId, channelId).finally(() => reading.delete(key)));
      }
      return (await pending) ?? cached?.userIds ?? null;
    },
  };
}

/** Keeps cached channel members current as people join and leave; when the app itself leaves, the copy is dropped. */
export function registerAudienceEvents(bolt: BoltApp, rt: SlackRuntime): void {
  const changed = async (teamId: string | undefined, channel: string, user: string, joined: boolean, botUserId: string | undefined) => {
    if (!teamId) return;
    try {
      if (user === botUserId) {
        if (!joined) await rt.app.store.audiences.forgetChannel('slack', teamId, channel);
        return;
      }
      await rt.app.store.audiences.memberChanged('slack', teamId, channel, user, joined);
    } catch (err) {
      rt.logger.warn({ err: loggable(err), teamId, channel }, 'could not record a channel membership change');
    }
  };
  bolt.event('member_joined_channel', async ({ event, context }) => changed(context.teamId ?? event.team, event.channel, event.user, true, context.botUserId));
  bolt.event('member_left_channel', async ({ event, context }) => changed(context.teamId ?? event.team, event.channel, event.user, false, context.botUserId));
}
