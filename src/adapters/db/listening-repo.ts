import { and, asc, eq } from 'drizzle-orm';
import type { ChannelListener, ListeningRepo, ListenPlace } from '../../domain/listening/ports.ts';
import type { Db } from './client.ts';
import { channelListeners } from './schema.ts';

const at = (workspaceId: string, p: ListenPlace) =>
  and(eq(channelListeners.workspaceId, workspaceId), eq(channelListeners.surface, p.surface), eq(channelListeners.channelId, p.channelId));

export class DrizzleListeningRepo implements ListeningRepo {
  constructor(private readonly db: Db) {}

  async add(l: Omit<ChannelListener, 'createdAt'>) {
    const rows = await this.db.insert(channelListeners).values(l).onConflictDoNothing().returning({ agentId: channelListeners.agentId });
    return rows.length === 1;
  }

  async remove(workspaceId: string, place: ListenPlace, agentId: string) {
    const rows = await this.db.delete(channelListeners).where(and(at(workspaceId, place), eq(channelListeners.agentId, agentId)))
      .returning({ agentId: channelListeners.agentId });
    return rows.length === 1;
  }

  list(workspaceId: string, place: ListenPlace): Promise<ChannelListener[]> {
    return this.db.select().from(channelListeners).where(at(workspaceId, place)).orderBy(asc(channelListeners.createdAt));
  }

  listWorkspace(workspaceId: string): Promise<ChannelListener[]> {
    return this.db.select().from(channelListeners).where(eq(channelListeners.workspaceId, workspaceId))
      .orderBy(asc(channelListeners.surface), asc(channelListeners.channelId), asc(channelListeners.createdAt));
  }

  async anyFor(place: ListenPlace) {
    const [row] = await this.db.select({ agentId: channelListeners.agentId }).from(channelListeners)
      .where(and(eq(channelListeners.surface, place.surface), eq(channelListeners.channelId, place.channelId))).limit(1);
    return Boolean(row);
  }
}
