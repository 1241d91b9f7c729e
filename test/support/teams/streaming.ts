// Teams' streaming rules for bots, as the stand-in applies them to activities
// sent into a conversation: only personal chats stream; the first typing
// activity (informative or streaming, sequence 1) opens a stream whose id is
// that activity's id; later ones name the stream and raise the sequence; a
// message with streamType final ends it; nothing may follow a final message.
// The refusals carry the codes and sentences Teams documents.
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
  /** Every update in order: its type and text. */
  updates: Array<{ type: StreamType; text: string }>;
}

const refusal = (status: number, code: string, message: string) => ({ status, body: { error: { code, message } } });

export class StreamRules {
  readonly streams = new Map<string, StreamState>();

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
      return facts.sequence === 1
        ? undefined
        : refusal(400, 'BadArgument', 'Invalid streamSequence: a new stream starts at 1.');
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
    if (facts.type !== 'final' && facts.sequence! <= stream.sequence)
      return refusal(400, 'BadArgument', 'Invalid streamSequence: it must increase.');
    return undefined;
  }

  /** Records an accepted streaming activity; returns the id the stored message goes under (the stream's, for every update). */
  record(conversationId: string, a: WireActivity, newId: string): string {
    const facts = streamFacts(a);
    if (!facts) return newId;
    const id = facts.id ?? newId;
    const stream = this.streams.get(id) ?? { conversationId, sequence: 0, done: false, updates: [] };
    if (facts.sequence !== undefined) stream.sequence = facts.sequence;
    if (facts.type === 'final') stream.done = true;
    stream.updates.push({ type: facts.type, text: String(a.text ?? '') });
    this.streams.set(id, stream);
    return id;
  }
}
