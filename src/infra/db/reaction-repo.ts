import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Reaction, ReactionRepo } from '../../core/channels/channel-ports.ts';
import type { Db } from './client.ts';
import { isUuid } from './ids.ts';
import { messageReactions } from './schema.ts';

export class DrizzleReactionRepo implements ReactionRepo {
  constructor(private readonly db: Db) {}

  async add(workspaceId: string, r: Reaction) {
    const rows = await this.db
      .insert(messageReactions)
      .values({ workspaceId, ...r })
      .onConflictDoNothing()
      .returning({ m: messageReactions.messageId });
    return rows.length > 0;
  }

  async remove(workspaceId: string, messageId: string, emoji: string, reactor: string) {
    if (!isUuid(messageId)) return false;
    const rows = await this.db
      .delete(messageReactions)
      .where(
        and(
          eq(messageReactions.workspaceId, workspaceId),
          eq(messageReactions.messageId, messageId),
          eq(messageReactions.emoji, emoji),
          eq(messageReactions.reactor, reactor),
        ),
      )
      .returning({ m: messageReactions.messageId });
    return rows.length > 0;
  }

  async of(workspaceId: string, messageIds: string[]): Promise<Reaction[]> {
    const ids = messageIds.filter(isUuid);
    if (!ids.length) return [];
    return this.db
      .select({
        messageId: messageReactions.messageId,
        emoji: messageReactions.emoji,
        reactor: messageReactions.reactor,
        reactorName: messageReactions.reactorName,
        surface: messageReactions.surface,
      })
      .from(messageReactions)
      .where(and(eq(messageReactions.workspaceId, workspaceId), inArray(messageReactions.messageId, ids)))
      .orderBy(asc(messageReactions.createdAt), asc(messageReactions.emoji)) as Promise<Reaction[]>;
  }
}
