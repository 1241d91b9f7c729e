// An agent at work, Teams' way. In a personal chat Teams streams a bot's
// message: typing activities carrying `streamType` (`informative` for a status
// line, `streaming` for the text so far) and an increasing `streamSequence`,
// then a final message with `streamType: 'final'`. The first activity's id is
// the stream's id. A status and the answer that follows share one stream, as
// Teams expects. Group chats and channels have no streaming: a status there is
// a typing indicator, and a streamed answer falls back to post-then-update.
//
// Teams streams one response per chat at a time: a second answer while another
// streams (another agent's, or another of the same agent) is posted and
// updated. And it ends a stream two minutes after it began, refusing even its
// final message then: so a stream is ended with its final message before that
// (the domain then goes on updating that message), and one Teams ended anyway
// (past its time, or stopped by the person) gets its text by an update of the
// streamed message, or, when Teams keeps that one as it is, in a new message.
import type { Activity } from 'botbuilder';
import { DeliveryError, isDeliveryError } from '../../core/delivery/failure.ts';
import { STREAM_ENDED, type PostedMessage, type SurfaceLive } from '../../core/delivery/surface-outbound.ts';
import type { Conversation } from '../../core/messaging/message.ts';
import type { Agent } from '../../core/entities.ts';
import { pacedCall } from '../../core/delivery/pacer.ts';
import { addressFromRef, messageLink, paceKey, type TeamsAddress } from './thread-id.ts';
import { agentMessage, compactHeader } from './cards.ts';
import { activityCalls, postActivity } from './connector.ts';
import { teamsText } from './format/out.ts';
import type { TeamsRuntime } from './runtime.ts';

type StreamType = 'informative' | 'streaming' | 'final';

/** The one open stream of a personal chat in this process. */
interface OpenStream {
  id: string;
  /** The last sequence number sent, and when (epoch ms); when the stream began. */
  sequence: number;
  at: number;
  since: number;
  /** Whose it is: the agent showing a status in it, and the draft streaming in it once one does. */
  agentId: string;
  draftId: string | null;
}

/**
 * A stream not updated for this long is left to end by itself (Teams closes an
 * idle stream; a status followed by a plain answer leaves one open): the next
 * update starts a new one.
 */
const STREAM_IDLE_MS = 60_000;
/** Teams ends a stream this long after it began. */
const STREAM_MAX_MS = 120_000;

function addressOf(conversation: Conversation): TeamsAddress {
  const address = addressFromRef(conversation.externalRef);
  if (!address)
    throw new DeliveryError({ kind: 'permanent', code: 'no_address', reason: 'the conversation has no Teams address' });
  return address;
}

const refused = (e: unknown, code: string) =>
  isDeliveryError(e) && e.failure.kind === 'permanent' && e.failure.code === code;

/**
 * The streaming facts, merged into the activity's channelData. (A `streaminfo`
 * entity would carry the same facts, but the connector client's serializer
 * keeps only an entity's type and text, so it would reach Teams empty;
 * channelData arrives whole.)
 */
export function streamInfo(
  type: StreamType,
  streamId: string | undefined,
  sequence: number | undefined,
  activity: Partial<Activity> = {},
): Partial<Activity> {
  return {
    ...activity,
    channelData: {
      ...(activity.channelData as Record<string, unknown> | undefined),
      streamType: type,
      ...(streamId ? { streamId } : {}),
      ...(sequence !== undefined ? { streamSequence: sequence } : {}),
    },
  };
}

export function teamsLive(rt: TeamsRuntime): Required<SurfaceLive> {
  const open = new Map<string, OpenStream>();

  /** The chat's open stream, unless Teams has ended it by now. */
  function current(a: TeamsAddress): OpenStream | undefined {
    const now = Date.now();
    const found = open.get(a.conversation);
    if (found && now - found.at < STREAM_IDLE_MS && now - found.since < STREAM_MAX_MS) return found;
    open.delete(a.conversation);
    return undefined;
  }

  /** Sends the next typing activity of `stream` (a new stream when undefined); returns the stream. */
  async function streamUpdate(
    a: TeamsAddress,
    stream: OpenStream | undefined,
    owner: Pick<OpenStream, 'agentId' | 'draftId'>,
    type: 'informative' | 'streaming',
    text: string,
  ): Promise<OpenStream> {
    const now = Date.now();
    const sequence = (stream?.sequence ?? 0) + 1;
    let id: string;
    try {
      id = await activityCalls.post(rt, a, streamInfo(type, stream?.id, sequence, { type: 'typing', text }));
    } catch (e) {
      // Teams ended the stream (finished, timed out, stopped by the person): the next update starts afresh.
      if (open.get(a.conversation)?.id === stream?.id) open.delete(a.conversation);
      throw e;
    }
    const next = { ...owner, id: stream?.id ?? id, sequence, at: now, since: stream?.since ?? now };
    open.set(a.conversation, next);
    return next;
  }

  /**
   * Ends stream `streamId` with `final`. When Teams has ended it already, the streamed message is updated to
   * `final` instead, or, when Teams keeps it as it is (the person stopped it), `final` is posted anew. Returns
   * where the message is when that is not the stream's own id.
   */
  async function finishWith(
    a: TeamsAddress,
    streamId: string,
    final: Partial<Activity>,
  ): Promise<PostedMessage | null> {
    try {
      const id = await activityCalls.post(rt, a, streamInfo('final', streamId, undefined, final));
      return id === streamId ? null : { externalId: id, permalink: messageLink(a, id) };
    } catch (e) {
      if (!refused(e, STREAM_ENDED)) throw e;
    } finally {
      if (open.get(a.conversation)?.id === streamId) open.delete(a.conversation);
    }
    try {
      await activityCalls.update(rt, a, streamId, final);
      return null;
    } catch (e) {
      if (!isDeliveryError(e) || e.failure.kind !== 'permanent') throw e;
    }
    const id = await activityCalls.post(rt, a, final);
    return { externalId: id, permalink: messageLink(a, id) };
  }

  // A draft is the agent's Markdown too: made safe for Teams like any answer (no HTML, no stray <at>).
  const headed = (sender: Agent, text: string) => `${compactHeader(sender)}\n\n${teamsText(text)}`;

  return {
    streamLimits: { ageMs: rt.settings.streamSettleMs },

    async setStatus(conversation, sender, text) {
      const a = addressOf(conversation);
      const stream = a.type === 'personal' ? current(a) : undefined;
      // Another answer streams in this chat (Teams streams one at a time): a typing indicator says the agent works.
      const mine = !stream || (stream.agentId === sender.id && stream.draftId === null);
      // Unlike a draft's updates (LiveService paces those), a status takes the conversation's turn here.
      if (a.type !== 'personal' || !mine) {
        // Teams shows a typing indicator for a few seconds; there is no status line to clear.
        if (text) await postActivity(rt, a, { type: 'typing' });
        return false;
      }
      // Clearing: Teams ends an informative line only with the stream's final message, which the answer brings.
      if (!text) return stream !== undefined;
      await pacedCall(rt.pacer, paceKey(a), () =>
        streamUpdate(a, stream, { agentId: sender.id, draftId: null }, 'informative', `${sender.displayName} ${text}`),
      );
      return true;
    },

    async startStream({ id, sender, conversation, text }) {
      const a = addressOf(conversation);
      if (a.type !== 'personal') return null;
      const stream = current(a);
      // A stream of another answer is open: this one is posted and updated (Teams streams one per chat at a time).
      if (stream && (stream.draftId !== null || stream.agentId !== sender.id)) return null;
      try {
        const started = await streamUpdate(
          a,
          stream,
          { agentId: sender.id, draftId: id },
          'streaming',
          headed(sender, text),
        );
        return { externalId: started.id, permalink: null, startedAt: new Date(started.since) };
      } catch (e) {
        // Teams refused to stream here (a stream another process opened, or streaming turned off for the bot).
        if (refused(e, 'ContentStreamNotAllowed')) return null;
        throw e;
      }
    },

    async appendStream({ id, sender, conversation, text }, streamId) {
      const a = addressOf(conversation);
      const stream = current(a);
      if (stream?.id !== streamId || stream.draftId !== id)
        throw new DeliveryError({ kind: 'permanent', code: STREAM_ENDED, reason: 'the Teams stream has ended' });
      // Teams replaces the streamed text with each update, so every update carries all of it.
      await streamUpdate(a, stream, stream, 'streaming', headed(sender, text));
    },

    async settleStream({ sender, conversation, text }, streamId) {
      return finishWith(addressOf(conversation), streamId, agentMessage(sender, text));
    },

    async finishStream({ message, sender, conversation }, streamId) {
      const moved = await finishWith(addressOf(conversation), streamId, agentMessage(sender, message.body));
      return moved ?? { externalId: streamId, permalink: null };
    },
  };
}
