// Who reads a Slack conversation, for the core's audience rules: a DM is the
// person in it; a channel is everyone in it, read with conversations.members,
// kept in the database and changed by member_joined_channel and
// member_left_channel, and read again when the copy is older than an hour.
import type { App as BoltApp, webApi } from '@slack/bolt';
import type { SurfaceAudience } from '../../domain/linking/ports.ts';
import { cachedMembers } from '../surface-audience.ts';
import { loggable } from './errors.ts';
import type { SlackRuntime } from './runtime.ts';
import { threadFromRef } from './thread-key.ts';

export { MEMBERS_TTL_MS } from '../surface-audience.ts';

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
  return {
    locate(c) {
      const thread = threadFromRef(c.externalRef);
      if (!thread) return null;
      return thread.channel.startsWith('D') ? { kind: 'dm' } : { kind: 'channel', tenantId: thread.team, channelId: thread.channel };
    },
    members: cachedMembers({
      surface: 'slack', app: rt.app, logger: rt.logger, loggable,
      async read(teamId, channelId) {
        const creds = await rt.installations.credentials(teamId);
        if (!creds) return null;
        const bot = creds.installation.botUserId;
        return (await readMembers(rt.clients.for(creds.token), channelId)).filter((u) => u !== bot);
      },
    }),
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
