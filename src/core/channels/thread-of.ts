// Web threads as conversations: the thread under a message (created on first
// use and announced to open web chats), and where an answer to a message goes.
// A Slack or Teams message at the top of a bridged web channel is answered in
// its thread, as it would be on its own side, so every side shows the answer
// (and Switchboard's notices) under the message it is about.
import { excerpt } from '../format/markdown.ts';
import type { Conversation, Message } from '../messaging/message.ts';
import type { Notifier, Store } from '../ports.ts';
import { isChatApp, WEB_CHAT } from '../entities.ts';
import { chatWorkspaceTopic } from './changes.ts';
import { threadKey } from './threads.ts';

/** The web thread under a message (created on first use, announced so open web chats follow it). */
export async function threadOf(
  store: Store,
  notifier: Notifier,
  root: Message,
  parent: Conversation,
): Promise<Conversation> {
  const existing = await store.messages.findConversation(root.workspaceId, threadKey(root.id));
  if (existing) return existing;
  const conv = await store.messages.conversation({
    workspaceId: root.workspaceId,
    kind: 'thread',
    key: threadKey(root.id),
    title: excerpt(root.body, 60),
    surface: WEB_CHAT,
    parentId: parent.id,
  });
  await notifier.publish(chatWorkspaceTopic(root.workspaceId), `thread:${conv.id}`);
  return conv;
}

/** Whether `m` was written in Slack or Teams at the top of the web channel `conv` (which only a bridge brings there). */
export const askedFromChatApp = (m: Message, conv: Conversation): boolean =>
  conv.kind === 'channel' && conv.surface === WEB_CHAT && m.conversationId === conv.id && isChatApp(m.surface);

/**
 * Where an answer to `m`, a message of `conv`, goes: the web thread under a message written in Slack or Teams at the
 * top of a bridged channel (its mirrors put the answer in that message's thread on every side); `conv` otherwise.
 * Call it outside a transaction: a thread it creates is announced at once.
 */
export function answerPlace(store: Store, notifier: Notifier, m: Message, conv: Conversation): Promise<Conversation> {
  return askedFromChatApp(m, conv) ? threadOf(store, notifier, m, conv) : Promise.resolve(conv);
}
