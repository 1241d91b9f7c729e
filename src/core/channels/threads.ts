// Threads in Switchboard's own channels and DMs: a thread is a conversation
// hanging off the message it started from, keyed by that message's id.
import type { Conversation } from '../messaging/message.ts';

const THREAD_PREFIX = 'thread:';
/** The key of the thread conversation started from a message. */
export const threadKey = (rootMessageId: string) => `${THREAD_PREFIX}${rootMessageId}`;
/** The root message id of a thread conversation; null for other conversations. */
export const threadRoot = (c: Pick<Conversation, 'kind' | 'key'>) =>
  c.kind === 'thread' && c.key.startsWith(THREAD_PREFIX) ? c.key.slice(THREAD_PREFIX.length) : null;
