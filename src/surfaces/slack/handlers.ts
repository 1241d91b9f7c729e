// Bolt listeners for what people do in Slack: mention the app in a channel,
// DM it, edit or delete what they wrote, add the app to a channel, delete or
// archive a channel, uninstall the app (removals.ts). They run in the
// inbound.slack job, after the request was stored and acknowledged
// (receiver.ts), once per request.
import type { webApi } from '@slack/bolt';
import type { SlackListeners } from './event-listeners.ts';
import { registerAssistantThreads } from './assistant.ts';
import { isBridged, mirrorBridged, type SlackMessageEvent } from './bridge.ts';
import { registerCommand } from './commands.ts';
import { pickerBlocks, registerHome } from './home.ts';
import { normalise, slackPort, type SlackInbound } from './inbound.ts';
import type { SlackMessageText } from './format/in.ts';
import { registerReactions } from './reactions.ts';
import { readSlackMessage } from './read-message.ts';
import { registerRemovals } from './removals.ts';
import { agentList, introText, noAgentNamed, notConnected } from './replies.ts';
import { fromABot, guard, isPersonsMessage, tell, type Where } from './respond.ts';
import type { SlackRuntime } from './runtime.ts';
import { encodeThreadKey } from './thread-id.ts';

export function registerListeners(bolt: SlackListeners, rt: SlackRuntime) {
  bolt.event('app_mention', async ({ event, context, client }) => {
    // In a bridged channel the message event carries it (bridge.ts), mentions included.
    if (fromABot(event, context.botUserId) || (await isBridged(rt, context.teamId, event.channel))) return;
    const threadTs = event.thread_ts ?? event.ts;
    const where = { channel: event.channel, user: event.user!, thread_ts: threadTs };
    await guard(rt, client, where, async () =>
      receive(rt, client, where, context.botUserId, {
        teamId: context.teamId!,
        channel: event.channel,
        userId: event.user!,
        ...(await bodyOf(rt, client, context.teamId!, event, context.botUserId)),
        ts: event.ts,
        threadTs,
        place: 'channel',
        addressed: true,
      }),
    );
  });

  // DMs with the app, replies in threads of channels and group DMs (mentions there arrive as app_mention too),
  // and channel messages when agents listen to the channel.
  bolt.message(async ({ message, context, client }) => {
    if (await followChange(rt, client, message, context)) return;
    if (await mirrorBridged(rt, client, message, context)) return;
    if (!isPersonsMessage(message) || fromABot(message, context.botUserId)) return;
    const dm = message.channel_type === 'im';
    const isReply = Boolean(message.thread_ts) && message.thread_ts !== message.ts;
    const mentionsMe = Boolean(context.botUserId) && (message.text ?? '').includes(`<@${context.botUserId}>`);
    if (!dm && mentionsMe) return;
    // A channel message that starts no thread matters only to agents listening there (it may start a thread later).
    const overheard = !dm && !isReply;
    if (
      overheard &&
      !(
        message.channel_type !== 'mpim' &&
        (await rt.core.listening.anyListens({ surface: 'slack', channelId: message.channel }))
      )
    )
      return;
    const threadTs = message.thread_ts ?? (overheard ? message.ts : undefined);
    const where = { channel: message.channel, user: message.user, ...(threadTs ? { thread_ts: threadTs } : {}) };
    await guard(rt, client, where, async () =>
      receive(rt, client, where, context.botUserId, {
        teamId: context.teamId!,
        channel: message.channel,
        userId: message.user,
        ...(await bodyOf(rt, client, context.teamId!, message, context.botUserId)),
        ts: message.ts,
        threadTs,
        place: dm ? 'dm' : message.channel_type === 'mpim' ? 'group' : 'channel',
        addressed: dm,
      }),
    );
  });

  bolt.event('member_joined_channel', async ({ event, context, client }) => {
    if (event.user !== context.botUserId) return;
    await guard(rt, client, null, async () => {
      await client.chat.postMessage({ channel: event.channel, text: introText(rt.settings.command) });
    });
  });

  registerReactions(bolt, rt);
  registerRemovals(bolt, rt);
  registerAssistantThreads(bolt, rt);
  registerHome(bolt, rt);
  registerCommand(bolt, rt);
}

/** Hands a Slack message to the core and tells the person what it decided, where needed. */
async function receive(
  rt: SlackRuntime,
  client: webApi.WebClient,
  where: Where,
  botUserId: string | undefined,
  m: SlackInbound,
): Promise<void> {
  const outcome = await rt.core.inbound.receive(slackPort(rt, client, m.teamId, m.channel, m.threadTs), normalise(m));
  switch (outcome.kind) {
    case 'ignored':
      return;
    case 'not-connected':
      return tell(client, where, notConnected(m.teamId));
    case 'name-an-agent':
      return tell(client, where, noAgentNamed(outcome.directory, botUserId));
    case 'choose-agent':
      await client.chat.postMessage({
        channel: m.channel,
        text: `Choose the agent to talk to first. Agents here:\n${agentList(outcome.directory)}`,
        blocks: pickerBlocks(outcome.directory, null, 'Choose the agent your messages to me go to, then write again.'),
      });
      return;
    case 'handled':
      if (outcome.notices.length) await tell(client, where, outcome.notices.join('\n'));
  }
}

/**
 * An edit (message_changed) or a delete (message_deleted) of a person's message, applied to what Switchboard
 * stored of it (a bridged channel's web copy, or the message agents got); true when the event is one of those.
 */
async function followChange(
  rt: SlackRuntime,
  client: webApi.WebClient,
  event: unknown,
  context: { teamId?: string; botUserId?: string },
): Promise<boolean> {
  const m = event as SlackMessageEvent;
  if (m.subtype !== 'message_changed' && m.subtype !== 'message_deleted') return false;
  const teamId = context.teamId;
  const now = m.subtype === 'message_deleted' ? m.previous_message : m.message;
  const ts = m.subtype === 'message_deleted' ? m.deleted_ts : now?.ts;
  if (!teamId || !ts) return true;
  // Stored in the conversation of its thread (a channel message starts its own), or of the whole DM.
  const keys = [{ thread_ts: now?.thread_ts ?? ts }, {}].map((t) =>
    encodeThreadKey({ team: teamId, channel: m.channel, ...t }),
  );
  const change = { tenantId: teamId, channelId: m.channel, messageId: ts, conversationKeys: keys };
  const port = slackPort(rt, client, teamId, m.channel);
  // A deleted thread root with replies stays as a tombstone ("This message was deleted.") and comes as a change, not a delete.
  if (m.subtype === 'message_deleted' || now?.subtype === 'tombstone') {
    await rt.core.inbound.followChange(port, { ...change, kind: 'delete' });
    return true;
  }
  // Our own posts change too (when we edit a post or a mirror); those are never read back. A change Slack made
  // itself (a link's preview added, every message with a link gets one) carries no `edited`: nothing to look up.
  if (!now || fromABot(now, context.botUserId) || !(now as { edited?: unknown }).edited) return true;
  const text = async () =>
    (await readSlackMessage(rt, client, teamId, now as SlackMessageText, context.botUserId)).markdown;
  await rt.core.inbound.followChange(port, { ...change, kind: 'edit', text });
  return true;
}

/** The message as Markdown for the agents, and the agents it names. */
async function bodyOf(
  rt: SlackRuntime,
  client: webApi.WebClient,
  teamId: string,
  m: SlackMessageText,
  botUserId: string | undefined,
) {
  const { markdown, names } = await readSlackMessage(rt, client, teamId, m, botUserId);
  return { body: markdown, names };
}
