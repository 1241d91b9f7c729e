// The outbound half of a chat surface: what the core asks of Slack or Teams to
// put Switchboard's messages there. One delivery path (post-delivery.ts) runs
// every surface's posts through it, with one retry mapping and one pacer.
import type { Conversation, Message } from '../messaging/message.ts';
import type { ExternalSurface } from '../surfaces/surface-ports.ts';
import type { Agent } from '../entities.ts';
import type { Pacer } from './pacer.ts';

/** An agent's message on its way to the conversation's platform thread or chat. */
export interface OutboundMessage {
  message: Message;
  sender: Agent;
  conversation: Conversation;
  /** Set for a bridged channel's mirror: where the message was written ("web", "Slack"); `sender` then carries its author's name and avatar. */
  via?: string;
}

/** Where a post landed: the platform's id for it, and a link people can open (null when the platform gives none). */
export interface PostedMessage {
  externalId: string;
  permalink: string | null;
}

/** A message an agent is still writing (a stream): the id it will be stored under, and the text so far. */
export interface LiveDraft {
  id: string;
  sender: Agent;
  conversation: Conversation;
  text: string;
  /** How many live updates went out before this one (0 for the first). */
  sequence: number;
}

/**
 * The failure code (DeliveryFailure `code`) a live member throws when the platform ended one of its streams itself
 * (it expired, ran past its time limit, or a person stopped it): the domain settles the draft into a plain post.
 */
export const STREAM_ENDED = 'stream_ended';

/** How long a platform lets one of its streams run, as the port wants the domain to honour it (a margin included). */
export interface StreamLimits {
  /** From the stream's start. */
  ageMs?: number;
  /** Since the last text sent to it. */
  idleMs?: number;
}

/** A stream the platform started: where it shows, and when the platform's stream began (a status may have opened it earlier). */
export interface StartedStream extends PostedMessage {
  startedAt?: Date;
}

/**
 * What a platform may offer for an agent at work. Each member is optional:
 * without it the domain (live/live-service.ts) falls back to posting the
 * draft and updating it, at most about once a second. Like the rest of the
 * port, members throw DeliveryError for a failed platform call.
 */
export interface SurfaceLive {
  /** Shows that the agent is working (`text`, e.g. "is thinking…") or clears it (null); false when the platform cannot show it in this conversation. */
  setStatus?(conversation: Conversation, sender: Agent, text: string | null): Promise<boolean>;
  /** Starts the platform's own streaming of a draft; null when streaming is unavailable in this conversation (the domain then posts and updates). */
  startStream?(draft: LiveDraft): Promise<StartedStream | null>;
  /**
   * Adds `delta` (the text after what went out before; `draft.text` has it all) to a stream started earlier. Throws
   * a DeliveryError with code STREAM_ENDED when the platform ended the stream.
   */
  appendStream?(draft: LiveDraft, externalId: string, delta: string): Promise<void>;
  /** How long the platform lets a stream run; the domain settles it (settleStream) before either limit. Absent: no limit. */
  readonly streamLimits?: StreamLimits;
  /**
   * Ends the platform's stream of a draft before its time, or after the platform ended it, leaving `draft.text` as
   * an ordinary post that later updates (`update`) replace. Returns where that post is when it is not the stream's
   * own id (a follow-up post), else null.
   */
  settleStream?(draft: LiveDraft, externalId: string): Promise<PostedMessage | null>;
  /**
   * Ends a stream with the stored message's final text. The post job calls it,
   * so it may run again after a failure; returns where the final post landed
   * when that differs from the stream's own id, else null.
   */
  finishStream?(m: OutboundMessage, externalId: string): Promise<PostedMessage | null>;
}

/**
 * Posting to one chat platform. Every method throws DeliveryError (failure.ts)
 * for a failed platform call, and nothing else the platform's SDK throws.
 */
export interface SurfaceOutbound extends SurfaceLive {
  /** The surface it posts to. */
  readonly surface: ExternalSurface;
  /** The platform's name in sentences ("Slack"). */
  readonly label: string;
  /** The job kind that posts agents' messages into its conversations; the surface names it, the core only looks it up. */
  readonly postTopic: string;
  /** Paces this process's calls per pace key; shared by every job of the surface. */
  readonly pacer: Pacer;
  /** The pace key of a conversation (a channel, a chat); null when its stored address is not one this surface can post to. */
  paceKey(conversation: Conversation): string | null;
  /** Posts the message under the sender's name, carrying the message id where the platform keeps it. */
  post(m: OutboundMessage): Promise<PostedMessage>;
  /**
   * The post an earlier attempt made of this message (one whose outcome was
   * never recorded), found by the message id it carries; null when there is
   * none, or when the platform offers no way to look.
   */
  findPost(m: OutboundMessage): Promise<PostedMessage | null>;
  /** Replaces the text of a post made earlier (`externalId`) with the message's current body. */
  update(m: OutboundMessage, externalId: string): Promise<void>;
  /** Removes a post made earlier from the conversation. */
  remove(conversation: Conversation, externalId: string): Promise<void>;
  /** The address of the thread under one of the platform's messages, from a channel's address (bridged channels' replies). */
  threadAddress(channelRef: Record<string, string>, rootExternalId: string): Record<string, string>;
}
