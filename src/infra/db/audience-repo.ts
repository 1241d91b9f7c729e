import { and, desc, eq, gte, inArray, lt, like, or, sql } from 'drizzle-orm';
import type { AudienceRead, AudienceRepo, ChatChannel, ListState, Readers } from '../../core/linking/audience-ports.ts';
import type { Conversation } from '../../core/messaging/message.ts';
import type { ExternalSurface } from '../../core/surfaces/surface-ports.ts';
import type { Db } from './client.ts';
import { isUuid } from './ids.ts';
import { rowsOf } from './org-repo.ts';
import {
  agents,
  audienceReads,
  channelMembers,
  conversationParticipants,
  conversations,
  externalIdentities,
  orgMembers,
  people,
  surfaceChannelMembers,
  surfaceChannels,
  workspaceMembers,
} from './schema.ts';

const channelOf = (surface: ExternalSurface, tenantId: string, channelId: string) => ({ surface, tenantId, channelId });
/** Rows per INSERT of a member list: PostgreSQL takes at most 65,535 parameters in one statement (4 a row here). */
const INSERT_CHUNK = 5_000;
/** Ids of cached lists that are marks the adapter keeps with a channel, not people. */
const MARK = '*%';

const listKey = (l: ChatChannel) => JSON.stringify([l.tenantId, l.channelId]);

const sameChannel = (
  t: typeof surfaceChannels | typeof surfaceChannelMembers,
  surface: ExternalSurface,
  tenantId: string,
  channelId: string,
) => and(eq(t.surface, surface), eq(t.tenantId, tenantId), eq(t.channelId, channelId));

/** Chat channel members cached from the platform, and the ledger of private content agents read. */
export class DrizzleAudienceRepo implements AudienceRepo {
  constructor(private readonly db: Db) {}

  async channelMembers(surface: ExternalSurface, tenantId: string, channelId: string) {
    const [channel] = await this.db
      .select({ fetchedAt: surfaceChannels.fetchedAt })
      .from(surfaceChannels)
      .where(sameChannel(surfaceChannels, surface, tenantId, channelId))
      .limit(1);
    if (!channel) return null;
    const rows = await this.db
      .select({ id: surfaceChannelMembers.externalUserId })
      .from(surfaceChannelMembers)
      .where(sameChannel(surfaceChannelMembers, surface, tenantId, channelId));
    return { userIds: rows.map((r) => r.id), fetchedAt: channel.fetchedAt };
  }

  async channelState(surface: ExternalSurface, tenantId: string, channelId: string) {
    return (await this.channelStates(surface, [{ tenantId, channelId, marks: true }]))[0];
  }

  async channelStates(
    surface: ExternalSurface,
    lists: Array<ChatChannel & { marks: boolean }>,
  ): Promise<Array<ListState | null>> {
    if (!lists.length) return [];
    const oneOf = (some: ChatChannel[]) =>
      or(
        ...some.map((l) => and(eq(surfaceChannels.tenantId, l.tenantId), eq(surfaceChannels.channelId, l.channelId))),
      ) ?? sql`false`;
    // The marks in a subquery run only for the lists that ask: a tenant's roster has none, and is the longest list.
    const marks = this.db
      .select({ ids: sql`coalesce(array_agg(${surfaceChannelMembers.externalUserId}), '{}')` })
      .from(surfaceChannelMembers)
      .where(
        and(
          eq(surfaceChannelMembers.surface, surfaceChannels.surface),
          eq(surfaceChannelMembers.tenantId, surfaceChannels.tenantId),
          eq(surfaceChannelMembers.channelId, surfaceChannels.channelId),
          like(surfaceChannelMembers.externalUserId, MARK),
        ),
      );
    const rows = await this.db
      .select({
        tenantId: surfaceChannels.tenantId,
        channelId: surfaceChannels.channelId,
        fetchedAt: surfaceChannels.fetchedAt,
        marks: sql<string[]>`case when ${oneOf(lists.filter((l) => l.marks))} then (${marks}) else '{}' end`,
      })
      .from(surfaceChannels)
      .where(and(eq(surfaceChannels.surface, surface), oneOf(lists)));
    const found = new Map(rows.map((r) => [listKey(r), { fetchedAt: r.fetchedAt, marks: r.marks.map(String) }]));
    return lists.map((l) => found.get(listKey(l)) ?? null);
  }

  async readers(surface: ExternalSurface, tenantId: string, channelIds: string[]) {
    return (await this.readersOf(surface, [{ tenantId, channelIds }]))[0];
  }

  async readersOf(
    surface: ExternalSurface,
    channels: Array<{ tenantId: string; channelIds: string[] }>,
  ): Promise<Readers[]> {
    const lists = channels.flatMap((c, i) =>
      c.channelIds.map((channelId) => sql`(${i}::int, ${c.tenantId}::text, ${channelId}::text)`),
    );
    if (!lists.length) return channels.map(() => ({ unlinked: 0, personIds: [] }));
    // Everyone in any of a channel's lists once, matched with their identity in the same statement: a roster of any
    // size is counted in the database, never sent back to it as parameters.
    const res = await this.db.execute(sql`
      with wanted(n, tenant_id, channel_id) as (values ${sql.join(lists, sql`, `)}),
      listed as (
        select distinct wanted.n, wanted.tenant_id, m.external_user_id from wanted
        join ${surfaceChannelMembers} m on m.surface = ${surface} and m.tenant_id = wanted.tenant_id and m.channel_id = wanted.channel_id
        where m.external_user_id not like ${MARK})
      select listed.n,
        count(*) filter (where i.person_id is null)::int as unlinked,
        array_agg(distinct i.person_id::text) filter (where i.person_id is not null) as person_ids
      from listed left join ${externalIdentities} i
        on i.surface = ${surface} and i.tenant_id = listed.tenant_id and i.external_user_id = listed.external_user_id
      group by listed.n`);
    const found = new Map(
      rowsOf<{ n: number; unlinked: number; person_ids: string[] | null }>(res).map((r) => [Number(r.n), r]),
    );
    return channels.map((_, i) => {
      const r = found.get(i);
      return { unlinked: Number(r?.unlinked ?? 0), personIds: (r?.person_ids ?? []).map(String) };
    });
  }

  async putChannelMembers(surface: ExternalSurface, tenantId: string, channelId: string, userIds: string[], at: Date) {
    await this.db.transaction(async (tx) => {
      await tx.delete(surfaceChannelMembers).where(sameChannel(surfaceChannelMembers, surface, tenantId, channelId));
      const ids = [...new Set(userIds)];
      for (let i = 0; i < ids.length; i += INSERT_CHUNK) {
        await tx
          .insert(surfaceChannelMembers)
          .values(
            ids
              .slice(i, i + INSERT_CHUNK)
              .map((externalUserId) => ({ ...channelOf(surface, tenantId, channelId), externalUserId })),
          )
          .onConflictDoNothing();
      }
      await tx
        .insert(surfaceChannels)
        .values({ ...channelOf(surface, tenantId, channelId), fetchedAt: at })
        .onConflictDoUpdate({
          target: [surfaceChannels.surface, surfaceChannels.tenantId, surfaceChannels.channelId],
          set: { fetchedAt: at },
        });
    });
  }

  async memberChanged(surface: ExternalSurface, tenantId: string, channelId: string, userId: string, joined: boolean) {
    // A channel never read stays unread: its first use reads the whole list from the platform.
    const [cached] = await this.db
      .select({ at: surfaceChannels.fetchedAt })
      .from(surfaceChannels)
      .where(sameChannel(surfaceChannels, surface, tenantId, channelId))
      .limit(1);
    if (!cached) return false;
    if (joined) {
      await this.db
        .insert(surfaceChannelMembers)
        .values({ ...channelOf(surface, tenantId, channelId), externalUserId: userId })
        .onConflictDoNothing();
    } else {
      await this.db
        .delete(surfaceChannelMembers)
        .where(
          and(
            sameChannel(surfaceChannelMembers, surface, tenantId, channelId),
            eq(surfaceChannelMembers.externalUserId, userId),
          ),
        );
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
      await tx
        .delete(surfaceChannelMembers)
        .where(and(eq(surfaceChannelMembers.surface, surface), eq(surfaceChannelMembers.tenantId, tenantId)));
      await tx
        .delete(surfaceChannels)
        .where(and(eq(surfaceChannels.surface, surface), eq(surfaceChannels.tenantId, tenantId)));
    });
  }

  async webChannelMembers(conversationId: string) {
    if (!isUuid(conversationId)) return [];
    const rows = await this.db
      .select({ id: channelMembers.personId })
      .from(channelMembers)
      .where(eq(channelMembers.conversationId, conversationId));
    return rows.map((r) => r.id);
  }

  async conversations(workspaceId: string, ids: string[]): Promise<Conversation[]> {
    const valid = ids.filter(isUuid);
    if (!valid.length) return [];
    return this.db
      .select()
      .from(conversations)
      .where(and(eq(conversations.workspaceId, workspaceId), inArray(conversations.id, valid)));
  }

  async participantOwners(conversationIds: string[]) {
    const valid = conversationIds.filter(isUuid);
    if (!valid.length) return [];
    return this.db
      .select({
        conversationId: conversationParticipants.conversationId,
        ownerId: agents.ownerId,
        ownerHandle: people.handle,
      })
      .from(conversationParticipants)
      .innerJoin(agents, eq(agents.id, conversationParticipants.agentId))
      .innerJoin(people, eq(people.id, agents.ownerId))
      .where(inArray(conversationParticipants.conversationId, valid));
  }

  async memberships(orgId: string, workspaceId: string, personIds: string[]) {
    const valid = [...new Set(personIds.filter(isUuid))];
    if (!valid.length) return [];
    return this.db
      .select({ personId: people.id, orgRole: orgMembers.role, directRole: workspaceMembers.role })
      .from(people)
      .leftJoin(orgMembers, and(eq(orgMembers.personId, people.id), eq(orgMembers.orgId, orgId)))
      .leftJoin(
        workspaceMembers,
        and(eq(workspaceMembers.personId, people.id), eq(workspaceMembers.workspaceId, workspaceId)),
      )
      .where(inArray(people.id, valid));
  }

  async recordRead(r: AudienceRead) {
    await this.db.insert(audienceReads).values(r);
  }

  async readsSince(agentId: string, workspaceId: string, since: Date): Promise<AudienceRead[]> {
    const rows = await this.db
      .select({
        agentId: audienceReads.agentId,
        workspaceId: audienceReads.workspaceId,
        source: audienceReads.source,
        sourceId: audienceReads.sourceId,
        label: audienceReads.label,
        forConversationId: audienceReads.forConversationId,
        readAt: audienceReads.readAt,
      })
      .from(audienceReads)
      .where(
        and(
          eq(audienceReads.agentId, agentId),
          eq(audienceReads.workspaceId, workspaceId),
          gte(audienceReads.readAt, since),
        ),
      )
      .orderBy(desc(audienceReads.readAt))
      .limit(200);
    return rows;
  }

  async forgetReadsBefore(before: Date) {
    const gone = await this.db
      .delete(audienceReads)
      .where(lt(audienceReads.readAt, before))
      .returning({ id: audienceReads.id });
    return gone.length;
  }
}
