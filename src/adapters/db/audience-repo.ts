import { and, desc, eq, gte, inArray, lt, like, not, sql } from 'drizzle-orm';
import type { AudienceRead, AudienceRepo } from '../../domain/linking/ports.ts';
import type { Conversation } from '../../domain/messaging/types.ts';
import type { ExternalSurface } from '../../domain/surfaces/ports.ts';
import type { Db } from './client.ts';
import { isUuid } from './ids.ts';
import {
  agents, audienceReads, channelMembers, conversationParticipants, conversations, externalIdentities, orgMembers, people, surfaceChannelMembers, surfaceChannels, workspaceMembers,
} from './schema.ts';

const channelOf = (surface: ExternalSurface, tenantId: string, channelId: string) => ({ surface, tenantId, channelId });
/** Rows per INSERT of a member list: PostgreSQL takes at most 65,535 parameters in one statement (4 a row here). */
const INSERT_CHUNK = 5_000;
/** Ids of cached lists that are marks the adapter keeps with a channel, not people. */
const MARK = '*%';

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

  async channelState(surface: ExternalSurface, tenantId: string, channelId: string) {
    const [channel] = await this.db.select({ fetchedAt: surfaceChannels.fetchedAt }).from(surfaceChannels)
      .where(sameChannel(surfaceChannels, surface, tenantId, channelId)).limit(1);
    if (!channel) return null;
    const rows = await this.db.select({ id: surfaceChannelMembers.externalUserId }).from(surfaceChannelMembers)
      .where(and(sameChannel(surfaceChannelMembers, surface, tenantId, channelId), like(surfaceChannelMembers.externalUserId, MARK)));
    return { fetchedAt: channel.fetchedAt, marks: rows.map((r) => r.id) };
  }

  async readers(surface: ExternalSurface, tenantId: string, channelIds: string[]) {
    if (!channelIds.length) return { unlinked: 0, personIds: [] };
    // Everyone in any of the lists once, matched with their identity in the same statement: a roster of any size is
    // counted in the database, never sent back to it as parameters.
    const listed = this.db.selectDistinct({ id: surfaceChannelMembers.externalUserId }).from(surfaceChannelMembers).where(and(
      eq(surfaceChannelMembers.surface, surface), eq(surfaceChannelMembers.tenantId, tenantId),
      inArray(surfaceChannelMembers.channelId, channelIds), not(like(surfaceChannelMembers.externalUserId, MARK)),
    )).as('listed');
    const [row] = await this.db.select({
      unlinked: sql<number>`count(*) filter (where ${externalIdentities.personId} is null)`.mapWith(Number),
      personIds: sql<string[] | null>`array_agg(distinct ${externalIdentities.personId}::text) filter (where ${externalIdentities.personId} is not null)`,
    }).from(listed).leftJoin(externalIdentities, and(
      eq(externalIdentities.surface, surface), eq(externalIdentities.tenantId, tenantId), eq(externalIdentities.externalUserId, listed.id),
    ));
    return { unlinked: row?.unlinked ?? 0, personIds: (row?.personIds ?? []).map(String) };
  }

  async putChannelMembers(surface: ExternalSurface, tenantId: string, channelId: string, userIds: string[], at: Date) {
    await this.db.transaction(async (tx) => {
      await tx.delete(surfaceChannelMembers).where(sameChannel(surfaceChannelMembers, surface, tenantId, channelId));
      const ids = [...new Set(userIds)];
      for (let i = 0; i < ids.length; i += INSERT_CHUNK) {
        await tx.insert(surfaceChannelMembers).values(ids.slice(i, i + INSERT_CHUNK).map((externalUserId) => ({ ...channelOf(surface, tenantId, channelId), externalUserId })))
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

  async forgetTenantChannels(surface: ExternalSurface, tenantId: string) {
    // Members first, then the channels: a list written meanwhile is left without its channel row, so it is read again,
    // never kept with its members deleted.
    await this.db.transaction(async (tx) => {
      await tx.delete(surfaceChannelMembers).where(and(eq(surfaceChannelMembers.surface, surface), eq(surfaceChannelMembers.tenantId, tenantId)));
      await tx.delete(surfaceChannels).where(and(eq(surfaceChannels.surface, surface), eq(surfaceChannels.tenantId, tenantId)));
    });
  }

  async webChannelMembers(conversationId: string) {
    if (!isUuid(conversationId)) return [];
    const rows = await this.db.select({ id: channelMembers.personId }).from(channelMembers).where(eq(channelMembers.conversationId, conversationId));
    return rows.map((r) => r.id);
  }

  async conversations(workspaceId: string, ids: string[]): Promise<Conversation[]> {
    const valid = ids.filter(isUuid);
    if (!valid.length) return [];
    return this.db.select().from(conversations).where(and(eq(conversations.workspaceId, workspaceId), inArray(conversations.id, valid)));
  }

  async participantOwners(conversationIds: string[]) {
    const valid = conversationIds.filter(isUuid);
    if (!valid.length) return [];
    return this.db.select({ conversationId: conversationParticipants.conversationId, ownerId: agents.ownerId, ownerHandle: people.handle })
      .from(conversationParticipants)
      .innerJoin(agents, eq(agents.id, conversationParticipants.agentId))
      .innerJoin(people, eq(people.id, agents.ownerId))
      .where(inArray(conversationParticipants.conversationId, valid));
  }

  async memberships(orgId: string, workspaceId: string, personIds: string[]) {
    const valid = [...new Set(personIds.filter(isUuid))];
    if (!valid.length) return [];
    return this.db.select({ personId: people.id, orgRole: orgMembers.role, directRole: workspaceMembers.role }).from(people)
      .leftJoin(orgMembers, and(eq(orgMembers.personId, people.id), eq(orgMembers.orgId, orgId)))
      .leftJoin(workspaceMembers, and(eq(workspaceMembers.personId, people.id), eq(workspaceMembers.workspaceId, workspaceId)))
      .where(inArray(people.id, valid));
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
