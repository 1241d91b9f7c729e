// The outbound half of a chat surface: what the core asks of Slack or Teams to
// put Switchboard's messages there. One delivery path (post-delivery.ts) runs
// every surface's posts through it, with one retry mapping and one pacer.
import type { Conversation, Message } from '../messaging/types.ts';
import type { ExternalSurface } from '../surfaces/ports.ts';
import type { Agent } from '../types.ts';
import type { Pacer } from './pacer.ts';

/** An agent's message on its way to the conversation's platform thread or chat. */
export interface OutboundMessage {
  message: Message;
  sender: Agent;
  conversation: Conversation;
}

/** Where a post landed: the platform's id for it, and a link people can open (null when the platform gives none). */
export interface PostedMessage {
  externalId: string;
  permalink: string | null;
}

/**
 * Posting to one chat platform. Every method throws DeliveryError (failure.ts)
 * for a failed platform call, and nothing else the platform's SDK throws.
 */
export interface SurfaceOutbound {
  /** The surface it posts to. */
  readonly surface: ExternalSurface;
  /** The platform's name in sentences ("Slack"). */
  readonly label: string;
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
}
