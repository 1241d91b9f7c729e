// What open web chats hear, on the notifier (so in every process): a message
// changed or went after it was shown (on the conversation's topic, next to new
// messages' ids), a channel or thread appeared in a workspace, and changes that
// concern one person only.
import { conversationTopic } from '../messaging/message-reads.ts';
import type { Notifier } from '../ports.ts';

/** Payload prefix: the message (its text or its reactions) changed; the id follows. */
export const MESSAGE_CHANGED = 'changed:';
/** Payload prefix: the message was deleted; the id follows. */
export const MESSAGE_DELETED = 'deleted:';

/** Structural changes of a workspace's web chat (a channel or thread appeared); the payload is `kind:id`. */
export const chatWorkspaceTopic = (workspaceId: string) => `web:workspace:${workspaceId}`;
/** Changes that concern one person only (they joined a channel or opened a DM); the payload is a conversation id. */
export const chatPersonTopic = (personId: string) => `web:person:${personId}`;
/** Published on a person's topic when their web sessions ended (signed out, password changed): open event streams check theirs. */
export const SESSIONS_CHANGED = 'sessions-changed';

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
