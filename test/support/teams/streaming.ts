// Teams' streaming rules for bots, as the stand-in applies them to activities
// sent into a conversation: only personal chats stream; the first typing
// activity (informative or streaming, sequence 1) opens a stream whose id is
// that activity's id; later ones name the stream and raise the sequence; a
// message with streamType final ends it; nothing may follow a final message.
// A chat streams one response at a time; a stream ends two minutes after it
// began (`maxMs`) and when the person presses Stop (`cancel`), after which
// Teams refuses its updates and its final message, and, once the person
// stopped it, any change to what it showed. The refusals carry the codes and
// sentences Teams documents; a second stream while one is open in the chat is
// refused like streaming that is not allowed (Teams documents the limit, not
// its error).
import type { WireActivity } from './connector.ts';

export type StreamType = 'informative' | 'streaming' | 'final';

/** The streaming facts of an activity (channelData, or the streaminfo entity); undefined when it does not stream. */
export function streamFacts(a: WireActivity): { type: StreamType; id?: string; sequence?: number } | undefined {
  const entity = (a.entities as Array<Record<string, unknown>> | undefined)?.find((e) => e.type === 'streaminfo');
  const data = (a.channelData ?? {}) as Record<string, unknown>;
  const type = (entity?.streamType ?? data.streamType) as StreamType | undefined;
  if (!type) return undefined;
  const id = (entity?.streamId ?? data.streamId) as string | undefined;
  const sequence = (entity?.streamSequence ?? data.streamSequence) as number | undefined;
  return { type, ...(id ? { id } : {}), ...(sequence !== undefined ? { sequence } : {}) };
}

export interface StreamState {
  conversationId: string;
  sequence: number;
  done: boolean;
  /** When it began, on the rules' clock (epoch ms). */
  startedAt: number;
  /** Why Teams ended it before its final message: past its time, or stopped by the person. */
  ended?: 'timed out' | 'cancelled';
  /** Every update in order: its type and text. */
  updates: Array<{ type: StreamType; text: string }>;
}

const refusal = (status: number, code: string, message: string) => ({ status, body: { error: { code, message } } });

const NOT_ALLOWED = refusal(403, 'ContentStreamNotAllowed', 'Content stream is not allowed.');
const TIMED_OUT = refusal(403, 'ContentStreamNotAllowed', 'Content stream finished due to exceeded streaming time.');
const CANCELLED = refusal(403, 'ContentStreamNotAllowed', 'Content stream was cancelled by user.');

export class StreamRules {
  readonly streams = new Map<string, StreamState>();
  /** How long after it began Teams ends a stream. */
  maxMs = 120_000;

  constructor(private readonly now: () => number = Date.now) {}

  /** The person pressed Stop on a stream. */
  cancel(streamId: string): void {
    const stream = this.streams.get(streamId);
    if (stream && !stream.done) stream.ended = 'cancelled';
  }

  /** A refusal for a streaming activity that breaks the rules; undefined when it may be stored. */
  check(conversationId: string, a: WireActivity): { status: number; body: unknown } | undefined {
    const facts = streamFacts(a);
    if (!facts) return undefined;
    if (!conversationId.startsWith('a:'))
      return refusal(403, 'ContentStreamNotAllowed', 'Content stream is not allowed in a group chat or a channel.');
    if (facts.type === 'final') {
      if (a.type !== 'message') return refusal(400, 'BadArgument', 'A final streaming activity must be a message.');
    } else {
      if (a.type !== 'typing')
        return refusal(400, 'BadArgument', 'Informative and streaming updates must be typing activities.');
      if (typeof facts.sequence !== 'number') return refusal(400, 'BadArgument', 'streamSequence is required.');
    }
    if (!facts.id) {
      if (facts.type === 'final') return refusal(400, 'BadArgument', 'streamId is required for a final message.');
      if (facts.sequence !== 1) return refusal(400, 'BadArgument', 'Invalid streamSequence: a new stream starts at 1.');
      return this.openIn(conversationId) ? NOT_ALLOWED : undefined;
    }
    const stream = this.streams.get(facts.id);
    if (!stream || stream.conversationId !== conversationId)
      return refusal(404, 'NotFound', 'The stream does not exist in this conversation.');
    if (stream.done)
      return refusal(
        403,
        'ContentStreamNotAllowed',
        'Content stream is not allowed on an already completed streamed message.',
      );
    this.expire(stream);
    if (stream.ended === 'timed out') return TIMED_OUT;
    if (stream.ended === 'cancelled') return CANCELLED;
    if (facts.type !== 'final' && facts.sequence! <= stream.sequence)
      return refusal(400, 'BadArgument', 'Invalid streamSequence: it must increase.');
    return undefined;
  }

  /** A refusal for updating the message a stream made: once the person stopped it, what it showed stays. */
  checkUpdate(activityId: string): { status: number; body: unknown } | undefined {
    return this.streams.get(activityId)?.ended === 'cancelled' ? CANCELLED : undefined;
  }

  /** Records an accepted streaming activity; returns the id the stored message goes under (the stream's, for every update). */
  record(conversationId: string, a: WireActivity, newId: string): string {
    const facts = streamFacts(a);
    if (!facts) return newId;
    const id = facts.id ?? newId;
    const stream = this.streams.get(id) ?? {
      conversationId,
      sequence: 0,
      done: false,
      startedAt: this.now(),
      updates: [],
    };
    if (facts.sequence !== undefined) stream.sequence = facts.sequence;
    if (facts.type === 'final') stream.done = true;
    stream.updates.push({ type: facts.type, text: String(a.text ?? '') });
    this.streams.set(id, stream);
    return id;
  }

  /** Ends a stream past its time. */
  private expire(stream: StreamState): void {
    if (!stream.done && !stream.ended && this.now() - stream.startedAt >= this.maxMs) stream.ended = 'timed out';
  }

  /** Whether a stream is still open in the chat (not finished, not ended by Teams). */
  private openIn(conversationId: string): boolean {
    return [...this.streams.values()].some((s) => {
      if (s.conversationId !== conversationId || s.done) return false;
      this.expire(s);
      return !s.ended;
    });
  }
}
