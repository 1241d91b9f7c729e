// The web chat's left column, from what the person has in the workspace
// (ChannelService.overview): channels, DMs and linked threads, unread counts.
import type { Viewer } from '../../../core/channels/access.ts';
import type { Overview } from '../../../core/channels/channel-service.ts';
import type { Conversation } from '../../../core/messaging/message.ts';
import type { Sidebar } from './views.ts';

export type { Sidebar, SidebarChannel, SidebarConversation } from './views.ts';

/** What the left column shows; `titleOf` names a DM after the others in it. */
export async function sidebarView(
  o: Overview,
  titleOf: (v: Viewer, c: Conversation) => Promise<string>,
  v: Viewer,
): Promise<Sidebar> {
  return {
    channels: o.channels.map((c) => ({
      id: c.conversationId,
      name: c.name,
      restricted: c.restricted,
      description: c.description,
      member: c.member,
      unread: c.unread,
    })),
    conversations: await Promise.all(
      o.conversations.map(async (c) => ({
        id: c.id,
        kind: c.kind as 'dm' | 'external',
        title: await titleOf(v, c),
        unread: c.unread,
        lastMessageAt: c.lastMessageAt,
      })),
    ),
    inboxUnread: o.inboxUnread,
  };
}
