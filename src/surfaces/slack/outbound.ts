// Slack's side of the one delivery path (src/core/delivery): agents' messages
// posted into a Slack thread under the agent's own name and avatar, with the
// Switchboard message id in the message's metadata so that a retry after an
// unknown outcome can find the earlier post (conversations.replies/history
// with include_all_metadata) instead of posting twice.
import type { webApi } from '@slack/bolt';
import { DeliveryError } from '../../core/delivery/failure.ts';
import type { OutboundMessage, PostedMessage, SurfaceOutbound } from '../../core/delivery/surface-outbound.ts';
import type { Conversation } from '../../core/messaging/message.ts';
import { qualifiedName } from '../../core/entities.ts';
import { classifySlackError, loggable, notInstalled } from './errors.ts';
import { markdownToSlack } from './format/out.ts';
import { SLACK, type SlackRuntime } from './runtime.ts';
import { threadFromRef, type SlackThread } from './thread-id.ts';
import { SLACK_POST } from './topics.ts';

/** The metadata event type that marks Switchboard's own posts (so the app never answers itself). */
export const MESSAGE_EVENT_TYPE = 'switchboard_message';

/**
 * Pages a lookup reads at most. History comes newest first, so a recent post is
 * on the first page; a thread comes oldest first, 200 replies a page. No time
 * window is used: Slack's clock and ours need not agree.
 */
const MAX_PAGES = 5;

/** Runs a Web API call; its failure comes back as a DeliveryError, never as the SDK's error (which carries the token). */
export async function call<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw new DeliveryError(classifySlackError(e));
  }
}

/** A history read; null when the thread itself is gone (then there is no earlier post to find, and posting says why). */
async function lookup<T>(fn: () => Promise<T>): Promise<T | null> {
  try {
    return await call(fn);
  } catch (e) {
    if (e instanceof DeliveryError && e.failure.kind === 'permanent' && e.failure.code === 'thread_not_found')
      return null;
    throw e;
  }
}

/** The thread and a client for its team; a permanent failure when the app is no longer installed there. */
export async function reach(
  rt: SlackRuntime,
  conversation: Conversation,
): Promise<{ thread: SlackThread; client: webApi.WebClient }> {
  const thread = threadFromRef(conversation.externalRef);
  if (!thread)
    throw new DeliveryError({ kind: 'permanent', code: 'no_address', reason: 'the conversation has no Slack address' });
  const creds = await rt.installations.credentials(thread.team);
  if (!creds) throw notInstalled(thread.team);
  return { thread, client: rt.clients.for(creds.token) };
}

/** The message's permalink; null when Slack would not give one (the post stands either way). */
export async function permalinkOf(
  rt: SlackRuntime,
  client: webApi.WebClient,
  channel: string,
  ts: string,
): Promise<string | null> {
  return client.chat.getPermalink({ channel, message_ts: ts }).then(
    (r) => r.permalink ?? null,
    (err: unknown) => {
      rt.logger.warn({ err: loggable(err), channel }, 'could not get the permalink of a post');
      return null;
    },
  );
}

/** Whether a message from history is Switchboard's post of `messageId` (older posts named it `message_id`). */
function carries(m: HistoryMessage, messageId: string): boolean {
  const payload = m.metadata?.event_type === MESSAGE_EVENT_TYPE ? m.metadata.event_payload : undefined;
  return payload?.switchboard_message_id === messageId || payload?.message_id === messageId;
}

/** A message as history returns it, with its metadata (asked for with include_all_metadata). */
export type HistoryMessage = {
  ts?: string;
  metadata?: { event_type?: string; event_payload?: Record<string, unknown> };
};

/**
 * The ts of the first message that `matches` in a thread (`thread_ts`) or in a
 * channel's or DM's recent history; null when none is found, or the thread is gone.
 */
export async function findInHistory(
  client: webApi.WebClient,
  where: { channel: string; thread_ts?: string },
  matches: (m: HistoryMessage) => boolean,
): Promise<string | null> {
  // Slack returns metadata in history only when asked (include_all_metadata).
  const window = { channel: where.channel, include_all_metadata: true, limit: 200 };
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const res = await lookup(() =>
      where.thread_ts
        ? client.conversations.replies({ ...window, ts: where.thread_ts, ...(cursor ? { cursor } : {}) })
        : client.conversations.history({ ...window, ...(cursor ? { cursor } : {}) }),
    );
    if (!res) return null;
    const found = (res.messages ?? []).find((m) => matches(m as HistoryMessage));
    if (found?.ts) return found.ts;
    cursor = res.response_metadata?.next_cursor || undefined;
    if (!res.has_more || !cursor) return null;
  }
  return null;
}

export function slackOutbound(rt: SlackRuntime): SurfaceOutbound {
  return {
    ...SLACK,
    postTopic: SLACK_POST,
    pacer: rt.pacer,
    paceKey(conversation) {
      const thread = threadFromRef(conversation.externalRef);
      return thread ? `${thread.team}:${thread.channel}` : null;
    },

    async post({ message, sender, conversation, via }): Promise<PostedMessage> {
      const { thread, client } = await reach(rt, conversation);
      const posted = await call(() =>
        client.chat.postMessage({
          channel: thread.channel,
          ...markdownToSlack(message.body),
          ...(thread.thread_ts ? { thread_ts: thread.thread_ts } : {}),
          username: (via ? `${sender.displayName} (via ${via})` : sender.displayName).slice(0, 80),
          ...(sender.avatarUrl ? { icon_url: sender.avatarUrl } : {}),
          metadata: {
            event_type: MESSAGE_EVENT_TYPE,
            event_payload: { switchboard_message_id: message.id, agent: qualifiedName(sender) },
          },
          unfurl_links: false,
        }),
      );
      return { externalId: posted.ts!, permalink: await permalinkOf(rt, client, thread.channel, posted.ts!) };
    },

    async findPost({ message, conversation }: OutboundMessage): Promise<PostedMessage | null> {
      const { thread, client } = await reach(rt, conversation);
      const ts = await findInHistory(client, thread, (m) => carries(m, message.id));
      if (!ts) return null;
      rt.logger.info(
        { messageId: message.id, channel: thread.channel },
        'found the post an earlier attempt made; not posting again',
      );
      return { externalId: ts, permalink: await permalinkOf(rt, client, thread.channel, ts) };
    },

    async update({ message, conversation }, ts) {
      const { thread, client } = await reach(rt, conversation);
      // Without blocks, Slack would keep those of a long earlier version.
      await call(() =>
        client.chat.update({ channel: thread.channel, ts, blocks: [], ...markdownToSlack(message.body) }),
      );
    },

    threadAddress: (ref, rootTs) => ({ ...ref, thread_ts: rootTs }),

    async remove(conversation, ts) {
      const { thread, client } = await reach(rt, conversation);
      await call(() => client.chat.delete({ channel: thread.channel, ts }));
    },
  };
}
