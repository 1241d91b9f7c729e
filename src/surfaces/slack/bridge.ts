// Slack's side of bridged channels: checking that the app reaches a channel
// before it is bridged (the team connected to the workspace, the app among the
// channel's members), and handing messages written there to the core's bridge
// step. Posting into the channel is the outbound port's (outbound.ts).
import type { webApi } from '@slack/bolt';
import { notFound, notPermitted, SwitchboardError } from '../../core/errors.ts';
import type { BridgePort } from '../../core/bridges/bridge-port.ts';
import type { SurfaceOutbound } from '../../core/delivery/surface-outbound.ts';
import type { InboundOutcome } from '../../core/surfaces/inbound.ts';
import { readMembers } from './audience.ts';
import { classifySlackError } from './errors.ts';
import type { SlackMessageText } from './format/in.ts';
import { normalise, slackPort } from './inbound.ts';
import { slackReact } from './reactions.ts';
import { readSlackMessage } from './read-message.ts';
import { noAgentNamed } from './replies.ts';
import { fromABot, guard, isPersonsMessage, tell } from './respond.ts';
import type { SlackRuntime } from './runtime.ts';

const CHANNEL = /^[CG][A-Z0-9]{2,}$/;

/** Slack's bridge port: its outbound port (posts as the author, edits, deletes, thread replies) and the channel check. */
export function slackBridgePort(rt: SlackRuntime, outbound: SurfaceOutbound): BridgePort {
  return {
    ...outbound,
    channelExample: 'C0123ABCD',
    react: slackReact(rt),
    async resolveChannel(workspace, channelId) {
      if (!CHANNEL.test(channelId)) {
        throw notFound(
          `A Slack channel "${channelId}"`,
          "Give the channel id (C… or G…), shown at the bottom of the channel's details in Slack.",
        );
      }
      const [team] = await rt.installations.repo.teamsOf(workspace.id);
      const creds = team ? await rt.installations.credentials(team) : null;
      if (!team || !creds)
        throw notPermitted(
          `No Slack team is connected to ${workspace.slug}; run \`switchboard slack connect ${workspace.slug} --team-id T…\` first.`,
        );
      let members: string[];
      try {
        members = await readMembers(rt.clients.for(creds.token), channelId);
      } catch (e) {
        const failure = classifySlackError(e);
        if ('code' in failure && failure.code === 'channel_not_found')
          throw notFound(
            `The Slack channel ${channelId} in the team ${team}`,
            'Check the id, and invite the Switchboard app to the channel.',
          );
        throw new SwitchboardError(
          'UNAVAILABLE',
          `Could not ask Slack who is in ${channelId} (${failure.reason}); try again.`,
        );
      }
      if (!members.includes(creds.installation.botUserId)) {
        throw notPermitted(
          `The Switchboard app is not in the Slack channel ${channelId}; invite it there (/invite @Switchboard) and try again.`,
        );
      }
      const title = await rt.clients
        .for(creds.token)
        .conversations.info({ channel: channelId })
        .then(
          (r) => (r.channel?.name ? `#${r.channel.name}` : ''),
          () => '',
        );
      return { tenantId: team, externalChannelId: channelId, externalRef: { team, channel: channelId }, title };
    },
  };
}

/** Whether a Slack channel is bridged to a web channel. */
export async function isBridged(rt: SlackRuntime, teamId: string | undefined, channel: string): Promise<boolean> {
  return Boolean(teamId) && Boolean(await rt.core.bridges.byExternal('slack', teamId!, channel));
}

/** A Slack message event as the bridge (and the listeners, for edits and deletes) read it. */
export interface SlackMessageEvent {
  channel: string;
  channel_type?: string;
  subtype?: string;
  user?: string;
  bot_id?: string;
  ts: string;
  thread_ts?: string;
  text?: string;
  metadata?: { event_type?: string };
  /** message_changed: the message as it is now. */
  message?: Omit<SlackMessageEvent, 'channel' | 'message'>;
  /** message_deleted: the ts of the message that went. */
  deleted_ts?: string;
  /** message_changed and message_deleted: the message as it was. */
  previous_message?: Omit<SlackMessageEvent, 'channel' | 'message'>;
}

/**
 * A message event in a bridged channel, handed to the core's bridge step; true
 * when the channel is bridged (the event is then handled here, or ignored:
 * our own mirrors and other bots' posts never loop back). Edits and deletes
 * are the listeners' (followChange), bridged or not.
 */
export async function mirrorBridged(
  rt: SlackRuntime,
  client: webApi.WebClient,
  event: unknown,
  context: { teamId?: string; botUserId?: string },
): Promise<boolean> {
  const m = event as SlackMessageEvent;
  if ((m.channel_type !== 'channel' && m.channel_type !== 'group') || !(await isBridged(rt, context.teamId, m.channel)))
    return false;
  const teamId = context.teamId!;
  if (!isPersonsMessage(m) || fromABot(m, context.botUserId)) return true;
  const where = { channel: m.channel, user: m.user!, thread_ts: m.thread_ts ?? m.ts };
  await guard(rt, client, where, async () => {
    const { markdown, names } = await readSlackMessage(rt, client, teamId, m as SlackMessageText, context.botUserId);
    const mentionsMe = Boolean(context.botUserId) && (m.text ?? '').includes(`<@${context.botUserId}>`);
    const outcome = await rt.core.inbound.mirrorBridged(
      slackPort(rt, client, teamId, m.channel),
      normalise({
        teamId,
        channel: m.channel,
        userId: m.user!,
        body: markdown,
        names,
        ts: m.ts,
        threadTs: m.thread_ts,
        place: 'channel',
        addressed: mentionsMe,
      }),
    );
    const reply = bridgedReply(outcome, context.botUserId);
    if (reply) await tell(client, where, reply);
  });
  return true;
}

/** What the bridge step's outcome tells the writer, if anything: how to name an agent, or its notices (unknown names, refusals). */
export function bridgedReply(outcome: InboundOutcome | null, botUserId: string | undefined): string | null {
  if (outcome?.kind === 'name-an-agent') return noAgentNamed(outcome.directory, botUserId);
  return outcome?.kind === 'handled' && outcome.notices.length ? outcome.notices.join('\n') : null;
}
