import type { Store } from '../ports.ts';
import type { ChatAccess, Viewer } from './access.ts';
import type { Conversation } from '../messaging/types.ts';
import { GENERAL } from './access.ts';
import type { Sidebar } from './views.ts';

export type { Sidebar, SidebarChannel, SidebarConversation } from './views.ts';

/** What the left column shows: channels the viewer can see, their DMs, and unread counts. */
export async function sidebar(
  store: Store,
  access: ChatAccess,
  titleOf: (v: Viewer, c: Conversation) => Promise<string>,
  v: Viewer,
): Promise<Sidebar> {
  await access.ensureGeneral(v.workspace);
  const [all, convs, inboxUnread] = await Promise.all([
    store.chat.listChannels(v.workspace.id, v.person.id),
    store.chat.conversationsOf(v.agent.id, v.workspace.id, ['dm', 'external']),
    store.messages.unreadCount(v.agent.id, v.workspace.id),
  ]);
  const channels = all
    .map((c) => ({ ...c, member: c.member || c.name === GENERAL }))
    .filter((c) => !c.restricted || c.member);
  const unread = await store.chat.unreadCounts(v.person.id, v.agent.id, [
    ...channels.filter((c) => c.member).map((c) => c.conversationId),
    ...convs.map((c) => c.id),
  ]);
  return {
    channels: channels.map((c) => ({
      id: c.conversationId,
      name: c.name,
      restricted: c.restricted,
      description: c.description,
      member: c.member,
      unread: c.member ? (unread.get(c.conversationId) ?? 0) : 0,
    })),
    conversations: await Promise.all(
      convs.map(async (c) => ({
        id: c.id,
        kind: c.kind as 'dm' | 'external',
        title: await titleOf(v, c),
        unread: unread.get(c.id) ?? 0,
        lastMessageAt: c.lastMessageAt,
      })),
    ),
    inboxUnread,
  };
}

/** Every conversation whose live updates the viewer should get: visible channels, their DMs, and threads under those. */
export async function watchedConversations(store: Store, v: Viewer): Promise<string[]> {
  const [channels, convs] = await Promise.all([
    store.chat.listChannels(v.workspace.id, v.person.id),
    store.chat.conversationsOf(v.agent.id, v.workspace.id, ['dm', 'external', 'thread']),
  ]);
  const visible = channels.filter((c) => !c.restricted || c.member).map((c) => c.conversationId);
  const mine = convs.map((c) => c.id);
  const threads = await store.chat.threadsUnder(v.workspace.id, [...visible, ...mine]);
  return [...new Set([...visible, ...mine, ...threads])];
}
