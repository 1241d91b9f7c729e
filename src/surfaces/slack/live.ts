// An agent at work, Slack's way: in an assistant thread (the app's DM, opened
// from Slack's AI app surface) the status shows under the thread
// (assistant.threads.setStatus) and an answer streams in (chat.startStream,
// appendStream, stopStream). Slack shows a streamed message under the app's
// name and icon (startStream does not take the agent's, as chat.postMessage
// does), which only the app's own DM can afford: in channels the domain posts
// under the agent's name and avatar and updates the post instead, as it does
// when Slack refuses these methods for the app or the workspace.
//
// Slack ends a stream about five minutes after it began or was last added to;
// appends and stopStream are then answered message_not_in_streaming_state and
// the message shows as failed until chat.update replaces it. So a stream is
// settled before that (stopped, and its text put in with chat.update) and goes
// on as a post kept up to date; one Slack ended anyway is settled the same way.
import { DeliveryError } from '../../core/delivery/failure.ts';
import { STREAM_ENDED, type LiveDraft, type SurfaceLive } from '../../core/delivery/surface-outbound.ts';
import { qualifiedName } from '../../core/entities.ts';
import { markdownToSlack } from './format/out.ts';
import { call, MESSAGE_EVENT_TYPE, permalinkOf, reach } from './outbound.ts';
import type { SlackRuntime } from './runtime.ts';
import type { SlackThread } from './thread-id.ts';

/** Slack's answers that mean "not here, not for this app": the caller falls back rather than fails. */
const UNAVAILABLE = new Set([
  'not_allowed',
  'not_allowed_token_type',
  'method_not_supported',
  'unknown_method',
  'missing_scope',
  'feature_not_enabled',
  'invalid_thread',
]);
/** stopStream on a stream that already stopped (a retried post job, or Slack ended it): only chat.update changes it now. */
const ALREADY_STOPPED = new Set(['message_not_in_streaming_state', 'streaming_state_conflict']);

const refusedWith = (e: unknown, codes: Set<string>) =>
  e instanceof DeliveryError && e.failure.kind === 'permanent' && codes.has(e.failure.code);

/** An assistant thread: a thread in the app's DM (D… channel). Slack's status and streaming work there. */
export const isAssistantThread = (t: SlackThread): t is SlackThread & { thread_ts: string } =>
  t.channel.startsWith('D') && Boolean(t.thread_ts);

/** Runs a live call; null when Slack says the feature is unavailable here. */
async function unlessUnavailable<T>(fn: () => Promise<T>): Promise<T | null> {
  try {
    return await call(fn);
  } catch (e) {
    if (refusedWith(e, UNAVAILABLE)) return null;
    throw e;
  }
}

/** The metadata that marks a post as Switchboard's message `id` (outbound.ts finds earlier posts by it). */
const metadataOf = (id: string, sender: LiveDraft['sender']) => ({
  event_type: MESSAGE_EVENT_TYPE,
  event_payload: { switchboard_message_id: id, agent: qualifiedName(sender) },
});

export function slackLive(rt: SlackRuntime): Required<SurfaceLive> {
  /** Stops a stream (one Slack ended already is left as it is), then puts `body` in it, rendered like every post. */
  async function stopWith(
    conversation: LiveDraft['conversation'],
    ts: string,
    body: string,
    metadata: ReturnType<typeof metadataOf>,
  ) {
    const { thread, client } = await reach(rt, conversation);
    try {
      await call(() => client.chat.stopStream({ channel: thread.channel, ts, metadata }));
    } catch (e) {
      if (!refusedWith(e, ALREADY_STOPPED)) throw e;
    }
    await call(() =>
      client.chat.update({ channel: thread.channel, ts, blocks: [], ...markdownToSlack(body), metadata }),
    );
  }

  return {
    streamLimits: { ageMs: rt.settings.streamSettleMs, idleMs: rt.settings.streamSettleMs },

    async setStatus(conversation, _sender, text) {
      const { thread, client } = await reach(rt, conversation);
      if (!isAssistantThread(thread)) return false;
      // An empty status clears it; Slack also clears it by itself when the app posts in the thread.
      const done = await unlessUnavailable(() =>
        client.assistant.threads.setStatus({
          channel_id: thread.channel,
          thread_ts: thread.thread_ts,
          status: text ?? '',
        }),
      );
      return done !== null;
    },

    async startStream({ conversation, text }) {
      const { thread, client } = await reach(rt, conversation);
      if (!isAssistantThread(thread)) return null;
      const started = await unlessUnavailable(() =>
        client.chat.startStream({ channel: thread.channel, thread_ts: thread.thread_ts, markdown_text: text }),
      );
      if (!started?.ts) return null;
      return { externalId: started.ts, permalink: await permalinkOf(rt, client, thread.channel, started.ts) };
    },

    async appendStream({ conversation }, ts, delta) {
      const { thread, client } = await reach(rt, conversation);
      try {
        await call(() => client.chat.appendStream({ channel: thread.channel, ts, markdown_text: delta }));
      } catch (e) {
        if (refusedWith(e, ALREADY_STOPPED))
          throw new DeliveryError({ kind: 'permanent', code: STREAM_ENDED, reason: 'Slack ended the stream' });
        throw e;
      }
    },

    async settleStream({ id, sender, conversation, text }, ts) {
      await stopWith(conversation, ts, text, metadataOf(id, sender));
      return null;
    },

    async finishStream({ message, sender, conversation }, ts) {
      // The stored text, rendered like every post, replaces what was streamed (appends were throttled; the last ones may be missing).
      await stopWith(conversation, ts, message.body, metadataOf(message.id, sender));
      return null;
    },
  };
}
