import { and, count, desc, eq, inArray, isNull, max, sql } from 'drizzle-orm';
import type { Channel, ChatRepo, InboxEntry, ThreadSummary } from '../../core/channels/channel-ports.ts';
import type { Conversation, Sender } from '../../core/messaging/message.ts';
import { threadKey, threadRoot } from '../../core/channels/threads.ts';
import type { Db } from './client.ts';
import { uniqueOr } from './errors.ts';
import { isUuid } from './ids.ts';
import { rowsOf } from './org-repo.ts';
import {
  agents,
  channelMembers,
  channels,
  conversationParticipants,
  conversations,
  deliveries,
  messages,
  people,
  readMarkers,
} from './schema.ts';
import { messageColumns, senderColumns } from './message-queries.ts';

export class DrizzleChatRepo implements ChatRepo {
  constructor(private readonly db: Db) {}

  async createChannel(c: Omit<Channel, 'createdAt'>) {
    const [row] = await uniqueOr(
      () => this.db.insert(channels).values(c).returning(),
      `There is already a channel #${c.name} in this workspace; join it or pick another name.`,
    );
    return row;
  }

  async channel(workspaceId: string, conversationId: string) {
    if (!isUuid(conversationId)) return null;
    const [row] = await this.db
      .select()
      .from(channels)
      .where(and(eq(channels.workspaceId, workspaceId), eq(channels.conversationId, conversationId)));
    return row ?? null;
  }

  async channelByName(workspaceId: string, name: string) {
    const [row] = await this.db
      .select()
      .from(channels)
      .where(and(eq(channels.workspaceId, workspaceId), eq(channels.name, name)));
    return row ?? null;
  }

  async listChannels(workspaceId: string, personId: string) {
    const rows = await this.db
      .select({ c: channels, member: channelMembers.personId })
      .from(channels)
      .leftJoin(
        channelMembers,
        and(eq(channelMembers.conversationId, channels.conversationId), eq(channelMembers.personId, personId)),
      )
      .where(eq(channels.workspaceId, workspaceId))
      .orderBy(channels.name);
    return rows.map((r) => ({ ...r.c, member: r.member !== null }));
  }

  async addChannelMember(conversationId: string, personId: string) {
    await this.db.insert(channelMembers).values({ conversationId, personId }).onConflictDoNothing();
  }

  async removeChannelMember(conversationId: string, personId: string) {
    await this.db
      .delete(channelMembers)
      .where(and(eq(channelMembers.conversationId, conversationId), eq(channelMembers.personId, personId)));
  }

  async isChannelMember(conversationId: string, personId: string) {
    const [row] = await this.db
      .select({ p: channelMembers.personId })
      .from(channelMembers)
      .where(and(eq(channelMembers.conversationId, conversationId), eq(channelMembers.personId, personId)));
    return Boolean(row);
  }

  async conversationsOf(agentId: string, workspaceId: string, kinds: Conversation['kind'][]) {
    const last = sql<Date | null>`(select max(${messages.createdAt}) from ${messages} where ${messages.conversationId} = ${conversations.id})`;
    const rows = await this.db
      .select({ c: conversations, lastMessageAt: last })
      .from(conversationParticipants)
      .innerJoin(conversations, eq(conversations.id, conversationParticipants.conversationId))
      .where(
        and(
          eq(conversationParticipants.agentId, agentId),
          eq(conversations.workspaceId, workspaceId),
          inArray(conversations.kind, kinds),
        ),
      )
      .orderBy(sql`${last} desc nulls last`, desc(conversations.createdAt));
    // Raw subquery results arrive as strings from some drivers.
    return rows.map((r) => ({ ...r.c, lastMessageAt: r.lastMessageAt ? new Date(r.lastMessageAt) : null }));
  }

  async threads(workspaceId: string, rootMessageIds: string[]): Promise<ThreadSummary[]> {
    if (!rootMessageIds.length) return [];
    const rows = await this.db
      .select({
        id: conversations.id,
        key: conversations.key,
        replies: count(messages.id),
        lastReplyAt: max(messages.createdAt),
      })
      .from(conversations)
      .leftJoin(messages, eq(messages.conversationId, conversations.id))
      .where(and(eq(conversations.workspaceId, workspaceId), inArray(conversations.key, rootMessageIds.map(threadKey))))
      .groupBy(conversations.id, conversations.key);
    return rows.map((r) => ({
      rootMessageId: threadRoot({ kind: 'thread', key: r.key })!,
      conversationId: r.id,
      replies: Number(r.replies),
      lastReplyAt: r.lastReplyAt ? new Date(r.lastReplyAt) : null,
    }));
  }

  async threadsUnder(workspaceId: string, parentIds: string[]) {
    if (!parentIds.length) return [];
    const rows = await this.db
      .select({ id: conversations.id })
      .from(conversations)
      .where(
        and(
          eq(conversations.workspaceId, workspaceId),
          eq(conversations.kind, 'thread'),
          inArray(conversations.parentId, parentIds),
        ),
      );
    return rows.map((r) => r.id);
  }

  async markRead(conversationId: string, personId: string, at: Date) {
    await this.db
      .insert(readMarkers)
      .values({ conversationId, personId, readAt: at })
      .onConflictDoUpdate({
        target: [readMarkers.conversationId, readMarkers.personId],
        set: { readAt: sql`greatest(${readMarkers.readAt}, excluded.read_at)` },
      });
  }

  async unreadCounts(personId: string, ownAgentId: string, conversationIds: string[]) {
    const out = new Map<string, number>();
    if (!conversationIds.length) return out;
    // Conversation by conversation, from the person's read marker on (the conversation's date index), so what they
    // read already is not read again; a conversation they never opened counts all its messages.
    const rows = rowsOf<{ id: string; n: number }>(
      await this.db.execute(sql`
      select c.id, (select count(*)::int from ${messages} m
          where m.conversation_id = c.id and m.sender_id <> ${ownAgentId}::uuid
            and m.created_at > coalesce((select rm.read_at from ${readMarkers} rm where rm.conversation_id = c.id and rm.person_id = ${personId}::uuid), '-infinity')) as n
      from (select distinct value::uuid as id from jsonb_array_elements_text(${JSON.stringify(conversationIds)}::jsonb)) c`),
    );
    for (const r of rows) if (Number(r.n)) out.set(r.id, Number(r.n));
    return out;
  }

  async inbox(agentId: string, workspaceId: string, limit: number, offset = 0): Promise<InboxEntry[]> {
    const rows = await this.db
      .select({
        message: messageColumns,
        sender: senderColumns,
        conversation: {
          id: conversations.id,
          kind: conversations.kind,
          title: conversations.title,
          surface: conversations.surface,
          parentId: conversations.parentId,
        },
        readAt: deliveries.readAt,
      })
      .from(deliveries)
      .innerJoin(messages, eq(messages.id, deliveries.messageId))
      .innerJoin(agents, eq(agents.id, messages.senderId))
      .innerJoin(people, eq(people.id, agents.ownerId))
      .innerJoin(conversations, eq(conversations.id, messages.conversationId))
      .where(and(eq(deliveries.agentId, agentId), eq(deliveries.workspaceId, workspaceId)))
      .orderBy(desc(deliveries.createdAt), desc(deliveries.messageId))
      .limit(limit)
      .offset(offset);
    return rows.map((r) => ({ ...r, sender: r.sender as Sender }));
  }

  async markDeliveriesRead(
    agentId: string,
    workspaceId: string,
    at: Date,
    conversationId?: string,
    messageIds?: readonly string[],
  ) {
    if (messageIds && !messageIds.length) return;
    const where = and(
      eq(deliveries.agentId, agentId),
      eq(deliveries.workspaceId, workspaceId),
      isNull(deliveries.readAt),
      conversationId
        ? inArray(
            deliveries.messageId,
            this.db.select({ id: messages.id }).from(messages).where(eq(messages.conversationId, conversationId)),
          )
        : undefined,
      messageIds ? inArray(deliveries.messageId, [...messageIds]) : undefined,
    );
    await this.db.update(deliveries).set({ readAt: at }).where(where);
  }
}
