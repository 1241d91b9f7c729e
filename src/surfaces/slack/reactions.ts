// Reactions in bridged Slack channels: `reaction_added`/`reaction_removed` on a
// message the bridge knows become its web copy's reactions (as that Slack
// user's), and the app's own reaction follows the web side (reactions.add /
// reactions.remove, `reactions:write`). The app's own reactions never come back.
import type { webApi } from '@slack/bolt';
import { EMOJI_NAME } from '../../core/channels/emoji.ts';
import { DeliveryError } from '../../core/delivery/failure.ts';
import type { BridgePort } from '../../core/bridges/bridge-port.ts';
import type { SlackListeners } from './event-listeners.ts';
import { slackPort } from './inbound.ts';
import { notInstalled } from './errors.ts';
import { call } from './outbound.ts';
import { guard } from './respond.ts';
import type { SlackRuntime } from './runtime.ts';

/** Slack's names for what the web chat calls otherwise (Slack sends `+1` for thumbsup). */
const FROM_SLACK: Record<string, string> = { '+1': 'thumbsup', '-1': 'thumbsdown' };

/** A Slack reaction name as the web chat keeps it: canonical, without a skin tone; null when it is not a short name. */
export function emojiFromSlack(name: string): string | null {
  const bare = name.replace(/::skin-tone-\d$/, '');
  const emoji = FROM_SLACK[bare] ?? bare;
  return EMOJI_NAME.test(emoji) ? emoji : null;
}

/** BridgePort.react: the app's reaction on a message of a bridged channel; already there (or already gone) is no failure. */
export function slackReact(rt: SlackRuntime): NonNullable<BridgePort['react']> {
  return async (ref, ts, emoji, on) => {
    const creds = ref.team ? await rt.installations.credentials(ref.team) : null;
    if (!creds || !ref.channel) throw notInstalled(ref.team);
    const client = rt.clients.for(creds.token);
    const args = { channel: ref.channel, timestamp: ts, name: emoji };
    try {
      await call(() => (on ? client.reactions.add(args) : client.reactions.remove(args)));
    } catch (e) {
      const settled =
        e instanceof DeliveryError &&
        e.failure.kind === 'permanent' &&
        (e.failure.code === 'already_reacted' || e.failure.code === 'no_reaction');
      if (!settled) throw e;
    }
  };
}

/** A reaction event as Slack sends it. */
interface SlackReactionEvent {
  user: string;
  reaction: string;
  item: { type: string; channel?: string; ts?: string };
}

async function mirrorReaction(
  rt: SlackRuntime,
  client: webApi.WebClient,
  e: SlackReactionEvent,
  context: { teamId?: string; botUserId?: string },
  on: boolean,
) {
  const emoji = emojiFromSlack(e.reaction);
  // Our own reactions (the web side's, mirrored) never come back; files and other items are not messages.
  if (
    !context.teamId ||
    !emoji ||
    e.user === context.botUserId ||
    e.item.type !== 'message' ||
    !e.item.channel ||
    !e.item.ts
  )
    return;
  const { channel, ts } = e.item;
  await guard(rt, client, null, async () => {
    await rt.core.inbound.mirrorBridgedReaction(slackPort(rt, client, context.teamId!, channel), {
      tenantId: context.teamId!,
      channelId: channel,
      messageId: ts,
      userId: e.user,
      emoji,
      on,
    });
  });
}

export function registerReactions(bolt: SlackListeners, rt: SlackRuntime) {
  bolt.event('reaction_added', async ({ event, context, client }) =>
    mirrorReaction(rt, client, event as SlackReactionEvent, context, true),
  );
  bolt.event('reaction_removed', async ({ event, context, client }) =>
    mirrorReaction(rt, client, event as SlackReactionEvent, context, false),
  );
}
