// A message changed or went after it was shown: open web chats hear it on the
// conversation's topic (next to new messages' ids) and update in place.
import { conversationTopic } from '../messaging/messaging-service.ts';
import type { Notifier } from '../ports.ts';

/** Payload prefix: the message (its text or its reactions) changed; the id follows. */
export const MESSAGE_CHANGED = 'changed:';
/** Payload prefix: the message was deleted; the id follows. */
export const MESSAGE_DELETED = 'deleted:';

/** Tells open web chats of the conversation that a message changed or was deleted (call after the change committed). */
export function announceChange(
  notifier: Notifier,
  conversationId: string,
  messageId: string,
  kind: 'changed' | 'deleted',
): Promise<void> {
  return notifier.publish(
    conversationTopic(conversationId),
    `${kind === 'changed' ? MESSAGE_CHANGED : MESSAGE_DELETED}${messageId}`,
  );
}
