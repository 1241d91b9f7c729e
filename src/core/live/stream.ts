// A streamed message as the live service holds it while it is written, and
// the draft a platform port is handed of it.
import type { LiveDraft, OutboundMessage, SurfaceOutbound } from '../delivery/surface-outbound.ts';
import type { SendInput } from '../messaging/messaging-service.ts';
import type { Conversation, LivePost, Message } from '../messaging/message.ts';

export interface StartInput extends Omit<SendInput, 'body' | 'id' | 'livePost'> {
  /** The first words, if the agent has them already. */
  text?: string;
}

export interface Stream {
  id: string;
  input: StartInput;
  conversation: Conversation;
  /** Checks again what can change while the stream is open: send permission, recipients' rules, audience (MessagingService.preview's `recheck`). */
  recheck: () => Promise<void>;
  text: string;
  /** Characters of `text` already on the platform. */
  sent: number;
  sequence: number;
  port: SurfaceOutbound | null;
  post: LivePost | null;
  /** When the platform's stream began and when text last reached it (epoch ms), for its time limits. */
  streamSince: number;
  lastSent: number;
  /** Settles the platform's stream before its limits (SurfaceOutbound.streamLimits). */
  settleTimer: ReturnType<typeof setTimeout> | null;
  /** What was last kept in the store (text length and post), so an unchanged draft is not written again. */
  kept: string;
  /** The platform refused for good; the post job posts the final message instead. */
  broken: boolean;
  lastFlush: number;
  /** An update is waiting its turn in `chain`. */
  flushPending: boolean;
  idleTimer: ReturnType<typeof setTimeout> | null;
  /** Platform calls of this stream, one at a time. */
  chain: Promise<void>;
  finishing: boolean;
  /** Stops answering calls about it that reached other processes (stream-calls.ts). */
  stopCalls: (() => Promise<void>) | null;
}

/** The draft of `stream` holding `text`, as the platform ports take it. */
export function draftOf(stream: Stream, text: string): LiveDraft {
  return {
    id: stream.id,
    sender: stream.input.sender,
    conversation: stream.conversation,
    text,
    sequence: stream.sequence,
  };
}

/** A draft in the shape the post path takes (post-then-update fallback); it carries the id the stored message will have. */
export function outboundOf(draft: LiveDraft, now: Date): OutboundMessage {
  const m = draft.conversation;
  const message: Message = {
    id: draft.id,
    workspaceId: m.workspaceId,
    conversationId: m.id,
    senderId: draft.sender.id,
    body: draft.text,
    replyTo: null,
    chainId: draft.id,
    hop: 0,
    askerPersonId: null,
    askerIdentityId: null,
    surface: 'mcp',
    permalink: null,
    externalId: null,
    createdAt: now,
  };
  return { message, sender: draft.sender, conversation: draft.conversation };
}
