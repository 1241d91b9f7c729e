// An agent at work, Teams' way. In a personal chat Teams streams a bot's
// message: typing activities carrying `streamType` (`informative` for a status
// line, `streaming` for the text so far) and an increasing `streamSequence`,
// then a final message with `streamType: 'final'`. The first activity's id is
// the stream's id. A status and the answer that follows share one stream, as
// Teams expects. Group chats and channels have no streaming: a status there is
// a typing indicator, and a streamed answer falls back to post-then-update.
import type { Activity } from 'botbuilder';
import { DeliveryError } from '../../core/delivery/failure.ts';
import type { SurfaceLive } from '../../core/delivery/surface-outbound.ts';
import type { Conversation } from '../../core/messaging/message.ts';
import type { Agent } from '../../core/entities.ts';
import { pacedCall } from '../../core/delivery/pacer.ts';
import { addressFromRef, paceKey, type TeamsAddress } from './thread-id.ts';
import { agentMessage, compactHeader } from './cards.ts';
import { activityCalls, postActivity } from './connector.ts';
import { teamsText } from './format/out.ts';
import type { TeamsRuntime } from './runtime.ts';

type StreamType = 'informative' | 'streaming' | 'final';

/** One open stream per personal chat in this process: its id, the last sequence number sent, and when. */
interface OpenStream {
  id: string;
  sequence: number;
  at: number;
}

/**
 * A stream not updated for this long is left to end by itself (Teams closes an
 * idle stream; a status followed by a plain answer leaves one open): the next
 * update starts a new one.
 */
const STREAM_IDLE_MS = 60_000;

function addressOf(conversation: Conversation): TeamsAddress {
  const address = addressFromRef(conversation.externalRef);
  if (!address)
    throw new DeliveryError({ kind: 'permanent', code: 'no_address', reason: 'the conversation has no Teams address' });
  return address;
}

/**
 * The streaming facts, in channelData. (A `streaminfo` entity would carry the
 * same facts, but the connector client's serializer keeps only an entity's
 * type and text, so it would reach Teams empty; channelData arrives whole.)
 */
export function streamInfo(
  type: StreamType,
  streamId: string | undefined,
  sequence: number | undefined,
): Partial<Activity> {
  return {
    channelData: {
      streamType: type,
      ...(streamId ? { streamId } : {}),
      ...(sequence !== undefined ? { streamSequence: sequence } : {}),
    },
  };
}

export function teamsLive(rt: TeamsRuntime): Required<SurfaceLive> {
  const open = new Map<string, OpenStream>();

  /** Sends the next typing activity of the chat's stream, opening one when none is open; returns the stream. */
  async function streamUpdate(a: TeamsAddress, type: 'informative' | 'streaming', text: string): Promise<OpenStream> {
    const now = Date.now();
    const found = open.get(a.conversation);
    const current = found && now - found.at < STREAM_IDLE_MS ? found : undefined;
    const sequence = (current?.sequence ?? 0) + 1;
    let id: string;
    try {
      id = await activityCalls.post(rt, a, { type: 'typing', text, ...streamInfo(type, current?.id, sequence) });
    } catch (e) {
      // Teams ended the stream (finished, timed out, stopped by the person): the next update starts afresh.
      open.delete(a.conversation);
      throw e;
    }
    const stream = { id: current?.id ?? id, sequence, at: now };
    open.set(a.conversation, stream);
    return stream;
  }

  // A draft is the agent's Markdown too: made safe for Teams like any answer (no HTML, no stray <at>).
  const headed = (sender: Agent, text: string) => `${compactHeader(sender)}\n\n${teamsText(text)}`;

  return {
    async setStatus(conversation, sender, text) {
      const a = addressOf(conversation);
      // Unlike a draft's updates (LiveService paces those), a status takes the conversation's turn here.
      if (a.type !== 'personal') {
        // Teams shows a typing indicator for a few seconds; there is no status line to clear.
        if (text) await postActivity(rt, a, { type: 'typing' });
        return false;
      }
      // Clearing: Teams ends an informative line only with the stream's final message, which the answer brings.
      if (!text) return open.has(a.conversation);
      await pacedCall(rt.pacer, paceKey(a), () => streamUpdate(a, 'informative', `${sender.displayName} ${text}`));
      return true;
    },

    async startStream({ sender, conversation, text }) {
      const a = addressOf(conversation);
      if (a.type !== 'personal') return null;
      const stream = await streamUpdate(a, 'streaming', headed(sender, text));
      return { externalId: stream.id, permalink: null };
    },

    async appendStream({ sender, conversation, text }) {
      // Teams replaces the streamed text with each update, so every update carries all of it.
      await streamUpdate(addressOf(conversation), 'streaming', headed(sender, text));
    },

    async finishStream({ message, sender, conversation }, streamId) {
      const a = addressOf(conversation);
      const final = agentMessage(sender, message.body);
      const id = await activityCalls.post(rt, a, { ...final, ...streamInfo('final', streamId, undefined) });
      if (open.get(a.conversation)?.id === streamId) open.delete(a.conversation);
      return { externalId: id, permalink: null };
    },
  };
}
