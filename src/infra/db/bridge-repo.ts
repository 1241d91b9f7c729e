import { and, asc, eq, sql } from 'drizzle-orm';
import type { Bridge, BridgeRepo, BridgedMessage, NewBridge } from '../../core/bridges/bridge.ts';
import type { ExternalSurface } from '../../core/surfaces/surface-ports.ts';
import type { Db } from './client.ts';
import { uniqueOr } from './errors.ts';
import { isUuid } from './ids.ts';
import { bridgeMessages, bridges } from './schema.ts';

const mapColumns = {
  bridgeId: bridgeMessages.bridgeId,
  messageId: bridgeMessages.messageId,
  externalId: bridgeMessages.externalId,
  inbound: bridgeMessages.inbound,
};

export class DrizzleBridgeRepo implements BridgeRepo {
  constructor(private readonly db: Db) {}

  async create(b: NewBridge): Promise<Bridge> {
    const [row] = await uniqueOr(
      () => this.db.insert(bridges).values(b).returning(),
      'One of these channels was bridged at the same moment by someone else; see bridge list, and remove that bridge first if this one should replace it.',
    );
    return row;
  }

  async get(workspaceId: string, id: string) {
    if (!isUuid(id)) return null;
    const [row] = await this.db
      .select()
      .from(bridges)
      .where(and(eq(bridges.workspaceId, workspaceId), eq(bridges.id, id)));
    return row ?? null;
  }

  async byExternal(surface: ExternalSurface, tenantId: string, externalChannelId: string) {
    const [row] = await this.db
      .select()
      .from(bridges)
      .where(
        and(
          eq(bridges.surface, surface),
          eq(bridges.tenantId, tenantId),
          eq(bridges.externalChannelId, externalChannelId),
        ),
      );
    return row ?? null;
  }

  forChannel(workspaceId: string, channelId: string) {
    return this.db
      .select()
      .from(bridges)
      .where(and(eq(bridges.workspaceId, workspaceId), eq(bridges.channelId, channelId)))
      .orderBy(asc(bridges.surface));
  }

  list(workspaceId: string) {
    return this.db.select().from(bridges).where(eq(bridges.workspaceId, workspaceId)).orderBy(asc(bridges.createdAt));
  }

  async remove(workspaceId: string, id: string) {
    if (!isUuid(id)) return false;
    const rows = await this.db
      .delete(bridges)
      .where(and(eq(bridges.workspaceId, workspaceId), eq(bridges.id, id)))
      .returning({ id: bridges.id });
    return rows.length > 0;
  }

  async recordInbound(bridgeId: string, messageId: string, externalId: string) {
    await this.db
      .insert(bridgeMessages)
      .values({ bridgeId, messageId, externalId, inbound: true })
      .onConflictDoNothing();
  }

  async notePost(bridgeId: string, messageId: string, at: Date): Promise<Date | 'posted' | null> {
    const inserted = await this.db
      .insert(bridgeMessages)
      .values({ bridgeId, messageId, inbound: false, postStartedAt: at })
      .onConflictDoNothing()
      .returning();
    if (inserted.length) return null;
    const [row] = await this.db
      .select({ externalId: bridgeMessages.externalId, startedAt: bridgeMessages.postStartedAt })
      .from(bridgeMessages)
      .where(and(eq(bridgeMessages.bridgeId, bridgeId), eq(bridgeMessages.messageId, messageId)));
    if (!row || row.externalId) return 'posted';
    return row.startedAt ?? at;
  }

  async recordPosted(bridgeId: string, messageId: string, externalId: string) {
    const rows = await this.db
      .update(bridgeMessages)
      .set({ externalId: sql`coalesce(${bridgeMessages.externalId}, ${externalId})` })
      .where(and(eq(bridgeMessages.bridgeId, bridgeId), eq(bridgeMessages.messageId, messageId)))
      .returning({ messageId: bridgeMessages.messageId });
    return rows.length > 0;
  }

  async byExternalId(bridgeId: string, externalId: string): Promise<BridgedMessage | null> {
    const [row] = await this.db
      .select(mapColumns)
      .from(bridgeMessages)
      .where(and(eq(bridgeMessages.bridgeId, bridgeId), eq(bridgeMessages.externalId, externalId)));
    return row ?? null;
  }

  counterparts(messageId: string, lock = false): Promise<BridgedMessage[]> {
    if (!isUuid(messageId)) return Promise.resolve([]);
    const rows = this.db.select(mapColumns).from(bridgeMessages).where(eq(bridgeMessages.messageId, messageId));
    return lock ? rows.for('update') : rows;
  }
}
