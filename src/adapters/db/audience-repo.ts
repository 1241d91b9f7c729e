import { and, desc, eq, gte, lt } from 'drizzle-orm';
import type { AudienceRead, AudienceRepo } from '../../domain/linking/ports.ts';
import type { ExternalSurface } from '../../domain/surfaces/ports.ts';
import type { Db } from './client.ts';
import { isUuid } from './ids.ts';
import { audienceReads, channelMembers, surfaceChannelMembers, surfaceChannels } from './schema.ts';

const channelOf = (surface: ExternalSurface, tenantId: string, channelId: string) => ({ surface, tenantId, channelId });
const sameChannel = (t: typeof surfaceChannels | typeof surfaceChannelMembers, surface: ExternalSurface, tenantId: string, channelId: string) =>
  and(eq(t.surface, surface), eq(t.tenantId, tenantId), eq(t.channelId, channelId));

/** Chat channel members cached from the platform, and the ledger of private content agents read. */
export class DrizzleAudienceRepo implements AudienceRepo {
  constructor(private readonly db: Db) {}

  async channelMembers(surface: ExternalSurface, tenantId: string, channelId: string) {
    const [channel] = await this.db.select({ fetchedAt: surfaceChannels.fetchedAt }).from(surfaceChannels)
      .where(sameChannel(surfaceChannels, surface, tenantId, channelId)).limit(1);
    if (!channel) return null;
    const rows = await this.db.select({ id: surfaceChannelMembers.externalUserId }).from(surfaceChannelMembers)
      .where(sameChannel(surfaceChannelMembers, surface, tenantId, channelId));
    return { userIds: rows.map((r) => r.id), fetchedAt: channel.fetchedAt };
  }

  async putChannelMembers(surface: ExternalSurface, tenantId: string, channelId: string, userIds: string[], at: Date) {
    await this.db.transaction(async (tx) => {
      await tx.delete(surfaceChannelMembers).where(sameChannel(surfaceChannelMembers, surface, tenantId, channelId));
      if (userIds.length) {
        await tx.insert(surfaceChannelMembers).values([...new Set(userIds)].map((externalUserId) => ({ ...channelOf(surface, tenantId, channelId), externalUserId })))
          .onConflictDoNothing();
      }
      await tx.insert(surfaceChannels).values({ ...channelOf(surface, tenantId, channelId), fetchedAt: at })
        .onConflictDoUpdate({ target: [surfaceChannels.surface, surfaceChannels.tenantId, surfaceChannels.channelId], set: { fetchedAt: at } });
    });
  }

  async memberChanged(surface: ExternalSurface, tenantId: string, channelId: string, userId: string, joined: boolean) {
    // A channel never read stays unread: its first use reads the whole list from the platform.
    const [cached] = await this.db.select({ at: surfaceChannels.fetchedAt }).from(surfaceChannels)
      .where(sameChannel(surfaceChannels, surface, tenantId, channelId)).limit(1);
    if (!cached) return false;
    if (joined) {
      await this.db.insert(surfaceChannelMembers).values({ ...channelOf(surface, tenantId, channelId), externalUserId: userId }).onConflictDoNothing();
    } else {
      await this.db.delete(surfaceChannelMembers)
        .where(and(sameChannel(surfaceChannelMembers, surface, tenantId, channelId), eq(surfaceChannelMembers.externalUserId, userId)));
    }
    return true;
  }

  async forgetChannel(surface: ExternalSurface, tenantId: string, channelId: string) {
    await this.db.delete(surfaceChannels).where(sameChannel(surfaceChannels, surface, tenantId, channelId));
    await this.db.delete(surfaceChannelMembers).where(sameChannel(surfaceChannelMembers, surface, tenantId, channelId));
  }

  async webChannelMembers(conversationId: string) {
    if (!isUuid(conversationId)) return [];
    const rows = await this.db.select({ id: channelMembers.personId }).from(channelMembers).where(eq(channelMembers.conversationId, conversationId));
    return rows.map((r) => r.id);
  }

  async recordRead(r: AudienceRead) {
    await this.db.insert(audienceReads).values(r);
  }

  async readsSince(agentId: string, workspaceId: string, since: Date): Promise<AudienceRead[]> {
    const rows = await this.db.select({
      agentId: audienceReads.agentId, workspaceId: audienceReads.workspaceId, source: audienceReads.source, sourceId: audienceReads.sourceId,
      label: audienceReads.label, forConversationId: audienceReads.forConversationId, readAt: audienceReads.readAt,
    }).from(audienceReads)
      .where(and(eq(audienceReads.agentId, agentId), eq(audienceReads.workspaceId, workspaceId), gte(audienceReads.readAt, since)))
      .orderBy(desc(audienceReads.readAt)).limit(200);
    return rows;
  }

  async forgetReadsBefore(before: Date) {
    const gone = await this.db.delete(audienceReads).where(lt(audienceReads.readAt, before)).returning({ id: audienceReads.id });
    return gone.length;
  }
}
