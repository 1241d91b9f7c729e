import { and, asc, eq, getTableColumns, inArray, isNotNull } from 'drizzle-orm';
import type { ChannelListener, ListeningRepo, ListenPlace, ListenSurface } from '../../core/listening/listen-ports.ts';
import type { Db } from './client.ts';
import { agentMemberships, agents, channelListeners } from './schema.ts';

const at = (workspaceId: string, p: ListenPlace) =>
  and(
    eq(channelListeners.workspaceId, workspaceId),
    eq(channelListeners.surface, p.surface),
    eq(channelListeners.channelId, p.channelId),
  );

export class DrizzleListeningRepo implements ListeningRepo {
  constructor(private readonly db: Db) {}

  /** Rows whose agent still holds a token and the receive permission in the row's workspace; the others are kept but never read (see ListeningRepo). */
  private standing() {
    return this.db
      .select(getTableColumns(channelListeners))
      .from(channelListeners)
      .innerJoin(agents, and(eq(agents.id, channelListeners.agentId), isNotNull(agents.tokenHash)))
      .innerJoin(
        agentMemberships,
        and(
          eq(agentMemberships.agentId, channelListeners.agentId),
          eq(agentMemberships.workspaceId, channelListeners.workspaceId),
          eq(agentMemberships.receive, true),
        ),
      );
  }

  async add(l: Omit<ChannelListener, 'createdAt'>) {
    const rows = await this.db
      .insert(channelListeners)
      .values(l)
      .onConflictDoNothing()
      .returning({ agentId: channelListeners.agentId });
    return rows.length === 1;
  }

  async remove(workspaceId: string, place: ListenPlace, agentId: string) {
    const rows = await this.db
      .delete(channelListeners)
      .where(and(at(workspaceId, place), eq(channelListeners.agentId, agentId)))
      .returning({ agentId: channelListeners.agentId });
    return rows.length === 1;
  }

  async removeAgents(agentIds: string[], workspaceIds: string[] | null) {
    if (!agentIds.length || (workspaceIds && !workspaceIds.length)) return;
    await this.db
      .delete(channelListeners)
      .where(
        and(
          inArray(channelListeners.agentId, agentIds),
          workspaceIds ? inArray(channelListeners.workspaceId, workspaceIds) : undefined,
        ),
      );
  }

  async removeChannels(workspaceId: string, surface: ListenSurface, channelIds: string[]) {
    if (!channelIds.length) return 0;
    const rows = await this.db
      .delete(channelListeners)
      .where(
        and(
          eq(channelListeners.workspaceId, workspaceId),
          eq(channelListeners.surface, surface),
          inArray(channelListeners.channelId, channelIds),
        ),
      )
      .returning({ agentId: channelListeners.agentId });
    return rows.length;
  }

  list(workspaceId: string, place: ListenPlace): Promise<ChannelListener[]> {
    // Two listeners added within the clock's resolution (PGlite's is a millisecond) keep one order, by agent.
    return this.standing()
      .where(at(workspaceId, place))
      .orderBy(asc(channelListeners.createdAt), asc(channelListeners.agentId));
  }

  listWorkspace(workspaceId: string): Promise<ChannelListener[]> {
    return this.standing()
      .where(eq(channelListeners.workspaceId, workspaceId))
      .orderBy(
        asc(channelListeners.surface),
        asc(channelListeners.channelId),
        asc(channelListeners.createdAt),
        asc(channelListeners.agentId),
      );
  }

  async anyFor(place: ListenPlace) {
    const [row] = await this.standing()
      .where(and(eq(channelListeners.surface, place.surface), eq(channelListeners.channelId, place.channelId)))
      .limit(1);
    return Boolean(row);
  }
}
