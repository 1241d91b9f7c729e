// Slack posts that are not an agent's message (approval cards, the link
// confirmation, a slash command's request post), made once per key even when
// the process dies between chat.postMessage and recording its ts: the attempt
// is counted first (src/core/delivery/keyed-post.ts), the post carries its key
// in its metadata, and a retry after an attempt that recorded nothing reads the
// thread or DM for it.
import type { webApi } from '@slack/bolt';
import { postOncePerKey } from '../../core/delivery/keyed-post.ts';
import { call, findInHistory } from './outbound.ts';
import type { SlackRuntime } from './runtime.ts';

/** The metadata field that carries the post's key. */
const KEY_FIELD = 'switchboard_post';

/** What chat.postMessage gets, with the fields postOnce needs typed. */
export interface OncePost extends Record<string, unknown> {
  /** A channel, or a user id for their DM with the app. */
  channel: string;
  thread_ts?: string;
  text: string;
  metadata?: { event_type: string; event_payload: Record<string, unknown> };
}

export interface PostedOnce {
  channel: string;
  ts: string;
}

const encode = (p: PostedOnce) => `${p.channel}/${p.ts}`;
const decode = (id: string): PostedOnce => {
  const cut = id.indexOf('/');
  return { channel: id.slice(0, cut), ts: id.slice(cut + 1) };
};

/**
 * Posts `post` unless a post was already made for `key`; returns where it is. After an attempt that recorded
 * nothing, the thread or DM is read for the post carrying the key first (keyed-post.ts does the rest).
 * Slack failures come back as DeliveryError (outbound.ts), database ones as the store's.
 */
export async function postOnce(
  rt: SlackRuntime,
  client: webApi.WebClient,
  key: string,
  post: OncePost,
  signal?: AbortSignal,
): Promise<PostedOnce> {
  const id = await postOncePerKey(
    rt.core.posts,
    'slack',
    key,
    {
      async find() {
        // A user id posts into their DM, whose channel id history needs.
        const channel = /^[UW]/.test(post.channel)
          ? ((await call(() => client.conversations.open({ users: post.channel }))).channel?.id ?? post.channel)
          : post.channel;
        const ts = await findInHistory(
          client,
          { channel, ...(post.thread_ts ? { thread_ts: post.thread_ts } : {}) },
          (m) => m.metadata?.event_payload?.[KEY_FIELD] === key,
        );
        if (!ts) return null;
        rt.logger.info({ key, channel }, 'found the post an earlier attempt made; not posting again');
        return encode({ channel, ts });
      },
      async post() {
        const metadata = {
          event_type: post.metadata?.event_type ?? 'switchboard_post',
          event_payload: { ...post.metadata?.event_payload, [KEY_FIELD]: key },
        };
        const posted = await call(() =>
          client.chat.postMessage({ ...post, metadata } as webApi.ChatPostMessageArguments),
        );
        return encode({ channel: posted.channel ?? post.channel, ts: posted.ts! });
      },
    },
    signal,
  );
  return decode(id);
}
