// Who reads a Slack conversation, for the core's audience rules: a DM is the
// person in it; a private channel is everyone in it, read with
// conversations.members; a public channel is everyone in the team, since any of
// them can open it (users.list: people, not bots or guests, who see only the
// channels they are invited to), plus its members; a channel shared with
// another organization (Slack Connect) counts their people as guests. The
// lists are kept in the database, changed by member_joined_channel,
// member_left_channel and team_join, and read again in the background when
// older than an hour.
import type { webApi } from '@slack/bolt';
import type { SurfaceAudience } from '../../core/linking/audience-ports.ts';
import { cachedMembers, TENANT_ROSTER } from '../shared/audience.ts';
import type { SlackListeners } from './event-listeners.ts';
import { loggable } from './errors.ts';
import type { SlackRuntime } from './runtime.ts';
import { threadFromRef } from './thread-id.ts';

export { MEMBERS_TTL_MS } from '../shared/audience.ts';

/** Slackbot is not a bot user in users.list, but reads nothing for anyone. */
const SLACKBOT = 'USLACKBOT';

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

/** Whether a Slack user may open every public channel of the team: a person (not a bot), active, and not a guest. */
const opensPublicChannels = (u: {
  id?: string;
  deleted?: boolean;
  is_bot?: boolean;
  is_restricted?: boolean;
  is_ultra_restricted?: boolean;
}) => Boolean(u.id && u.id !== SLACKBOT && !u.deleted && !u.is_bot && !u.is_restricted && !u.is_ultra_restricted);

/** The team's people who may open its public channels, every page of users.list. */
async function readRoster(client: webApi.WebClient): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.users.list({ limit: 200, ...(cursor ? { cursor } : {}) });
    for (const u of page.members ?? []) if (opensPublicChannels(u)) ids.push(u.id!);
    cursor = page.response_metadata?.next_cursor || undefined;
  } while (cursor);
  return ids;
}

/** The Slack side of audiences, registered with the core's AudienceService. */
export function slackAudience(rt: SlackRuntime): SurfaceAudience {
  const clientOf = async (teamId: string) => {
    const creds = await rt.installations.credentials(teamId);
    return creds ? { client: rt.clients.for(creds.token), bot: creds.installation.botUserId } : null;
  };
  return {
    locate(c) {
      const thread = threadFromRef(c.externalRef);
      if (!thread) return null;
      return thread.channel.startsWith('D')
        ? { kind: 'dm' }
        : { kind: 'channel', tenantId: thread.team, channelId: thread.channel };
    },
    members: cachedMembers({
      surface: 'slack',
      app: rt.core,
      logger: rt.logger,
      loggable,
      async read(teamId, channelId) {
        const api = await clientOf(teamId);
        if (!api) return null;
        const members = (await readMembers(api.client, channelId)).filter((u) => u !== api.bot);
        // Private channels start with C too nowadays: only Slack's answer says which is which.
        const { channel } = await api.client.conversations.info({ channel: channelId });
        return {
          members,
          open: !channel?.is_private && !channel?.is_mpim && !channel?.is_im,
          sharedOutside: Boolean(
            channel?.is_ext_shared || channel?.is_shared || channel?.is_org_shared || channel?.is_pending_ext_shared,
          ),
        };
      },
      async readRoster(teamId) {
        const api = await clientOf(teamId);
        return api && readRoster(api.client);
      },
    }),
  };
}

/**
 * Keeps cached channel members current as people join and leave, and the team's roster as people join the team;
 * when the app itself leaves a channel, its copy is dropped.
 */
export function registerAudienceEvents(bolt: SlackListeners, rt: SlackRuntime): void {
  const changed = async (
    teamId: string | undefined,
    channel: string,
    user: string,
    joined: boolean,
    botUserId: string | undefined,
  ) => {
    if (!teamId) return;
    try {
      if (user === botUserId) {
        if (!joined) await rt.core.audiences.forgetChannel('slack', teamId, channel);
        return;
      }
      await rt.core.audiences.memberChanged('slack', teamId, channel, user, joined);
    } catch (err) {
      rt.logger.warn({ err: loggable(err), teamId, channel }, 'could not record a channel membership change');
    }
  };
  bolt.event('member_joined_channel', async ({ event, context }) =>
    changed(context.teamId ?? event.team, event.channel, event.user, true, context.botUserId),
  );
  bolt.event('member_left_channel', async ({ event, context }) =>
    changed(context.teamId ?? event.team, event.channel, event.user, false, context.botUserId),
  );
  // Someone new can open every public channel at once; people leaving the team only narrow it, which the hourly read catches.
  bolt.event('team_join', async ({ event, context }) => {
    if (opensPublicChannels(event.user))
      await changed(context.teamId ?? event.user.team_id, TENANT_ROSTER, event.user.id, true, context.botUserId);
  });
}
