import type { z } from 'zod';
import { isChatApp } from '../core/entities.ts';
import { isGuestAsker } from '../core/linking/audience.ts';
import type { InboxItem, SearchHit, Sender } from '../core/messaging/message.ts';
import type { inboxItem, sender as senderSchema } from './tools/messaging-schemas.ts';

export type InboxItemOut = z.infer<typeof inboxItem>;

/** How a sender is shown to agents; `address` is what send_message accepts. */
function senderOut(s: Sender): z.infer<typeof senderSchema> {
  return {
    name: s.name,
    person: s.person,
    kind: s.kind,
    display_name: s.displayName,
    address: s.kind === 'person' ? s.name : `${s.person}/${s.name}`,
  };
}

/** One inbox entry in the snake_case shape of the tools' output schema. */
export function inboxItemOut(i: InboxItem): InboxItemOut {
  const m = i.message;
  // A chat app's message, or one in a chat app's conversation, links there; the web chat's and MCP's do not.
  const external = isChatApp(m.surface) || isChatApp(i.conversation.surface);
  return {
    id: m.id,
    time: m.createdAt.toISOString(),
    sender: senderOut(i.sender),
    conversation: { id: i.conversation.id, kind: i.conversation.kind, title: i.conversation.title },
    thread: m.replyTo,
    surface: m.surface as InboxItemOut['surface'],
    permalink: external ? (m.permalink ?? i.conversation.permalink) : null,
    // A guest's message carries the chat identity and no person: it is not linked to anyone.
    asker: { handle: i.asker.handle, linked: !isGuestAsker(i.asker) },
    // Not known (never expected: MessagingService adds it) reads as the narrowest audience.
    audience: i.audience ?? { level: 'guest', members: 0, unlinked: 0 },
    overheard: i.overheard,
    body: m.body,
  };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A short text rendering of inbox items for clients that show only text. */
export function inboxText(items: InboxItemOut[], remaining: number, emptyLine: string): string {
  if (!items.length) return emptyLine;
  const head = `${plural(items.length, 'message')}${remaining ? `; ${remaining} more unread (call again)` : ''}:`;
  const lines = items.map((m) => {
    const where = m.conversation.kind === 'dm' ? 'DM' : `${m.conversation.kind} "${m.conversation.title}"`;
    const asker =
      m.asker.handle && m.asker.handle !== m.sender.person
        ? `, for @${m.asker.handle}`
        : !m.asker.linked
          ? ', from an unlinked guest'
          : '';
    const a = m.audience;
    const audience = `; audience: ${a.level}, ${plural(a.members, 'person', 'people')}${a.unlinked ? `, ${a.unlinked} unlinked` : ''}`;
    return `- [${m.id}]${m.overheard ? ' (overheard)' : ''} ${m.sender.address} in ${where} (conversation ${m.conversation.id}${asker}${audience}) at ${m.time}:\n  ${m.body.replace(/\n/g, '\n  ')}`;
  });
  return [head, ...lines].join('\n');
}

/** A search hit in the output schema's shape. */
export function searchHitOut(h: SearchHit) {
  return {
    id: h.message.id,
    time: h.message.createdAt.toISOString(),
    sender: senderOut(h.sender),
    conversation_id: h.message.conversationId,
    snippet: h.snippet,
    body: h.message.body,
    rank: h.rank,
  };
}

export function searchText(hits: ReturnType<typeof searchHitOut>[]): string {
  if (!hits.length) return 'No messages match; try other words, or a later `since`.';
  return [
    `${plural(hits.length, 'match', 'matches')}, best first:`,
    ...hits.map(
      (h) => `- [${h.id}] ${h.sender.address} at ${h.time} (conversation ${h.conversation_id}): ${h.snippet}`,
    ),
  ].join('\n');
}
