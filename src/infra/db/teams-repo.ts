// What only the Teams surface keeps: the users the bot has seen and the last
// conversation reference of each conversation, for proactive posts.
import { and, desc, eq, inArray, or, sql } from 'drizzle-orm';
import type { TeamsReferenceRepo } from '../../surfaces/teams/reference-repo.ts';
import type { TeamsUser, TeamsUserRepo } from '../../surfaces/teams/user-repo.ts';
import type { Db } from './client.ts';
import { externalIdentities, teamsConversationReferences, teamsUsers } from './schema.ts';

const userColumns = {
  tenantId: teamsUsers.tenantId,
  aadObjectId: teamsUsers.aadObjectId,
  userId: teamsUsers.userId,
  name: teamsUsers.name,
  personalConversationId: teamsUsers.personalConversationId,
};

export class DrizzleTeamsUserRepo implements TeamsUserRepo {
  constructor(private readonly db: Db) {}

  async seen(u: {
    tenantId: string;
    aadObjectId: string;
    userId: string;
    name: string;
    personalConversationId?: string | null;
  }): Promise<void> {
    const personal = u.personalConversationId ?? null;
    await this.db
      .insert(teamsUsers)
      .values({ ...u, personalConversationId: personal })
      .onConflictDoUpdate({
        target: [teamsUsers.tenantId, teamsUsers.aadObjectId],
        set: {
          userId: u.userId,
          name: u.name,
          updatedAt: sql`now()`,
          personalConversationId: sql`coalesce(${personal}, ${teamsUsers.personalConversationId})`,
        },
      });
  }

  async get(tenantId: string, aadObjectId: string): Promise<TeamsUser | null> {
    const [row] = await this.db
      .select(userColumns)
      .from(teamsUsers)
      .where(and(eq(teamsUsers.tenantId, tenantId), eq(teamsUsers.aadObjectId, aadObjectId)))
      .limit(1);
    return row ?? null;
  }

  async ofPeople(tenantId: string, personIds: string[]): Promise<Array<TeamsUser & { personId: string }>> {
    if (!personIds.length) return [];
    const rows = await this.db
      .select({ personId: externalIdentities.personId, ...userColumns })
      .from(externalIdentities)
      .innerJoin(
        teamsUsers,
        and(
          eq(teamsUsers.tenantId, externalIdentities.tenantId),
          eq(teamsUsers.aadObjectId, externalIdentities.externalUserId),
        ),
      )
      .where(
        and(
          eq(externalIdentities.surface, 'teams'),
          eq(externalIdentities.tenantId, tenantId),
          inArray(externalIdentities.personId, personIds),
        ),
      );
    return rows.map((r) => ({ ...r, personId: r.personId! }));
  }
}

export class DrizzleTeamsReferenceRepo implements TeamsReferenceRepo {
  constructor(private readonly db: Db) {}

  async put(r: {
    conversationId: string;
    tenantId: string;
    conversationType: string;
    reference: Record<string, unknown>;
    teamId?: string | null;
  }): Promise<void> {
    // The team rides along in the stored reference (`teamId`, which Bot Framework's reference has no field for), so a deleted team's channels can be found.
    // An activity that does not name the team (some conversation updates, a reply without channelData.team) keeps the one stored.
    const { teamId, ...row } = r;
    const reference = teamId ? { ...r.reference, teamId } : r.reference;
    const stored = teamsConversationReferences.reference;
    await this.db
      .insert(teamsConversationReferences)
      .values({ ...row, reference })
      .onConflictDoUpdate({
        target: teamsConversationReferences.conversationId,
        set: {
          reference: teamId
            ? reference
            : sql`excluded.reference || jsonb_strip_nulls(jsonb_build_object('teamId', ${stored}->'teamId'))`,
          conversationType: r.conversationType,
          updatedAt: sql`now()`,
        },
      });
  }

  async serviceUrlOf(tenantId: string): Promise<string | null> {
    const [row] = await this.db
      .select({ r: teamsConversationReferences.reference })
      .from(teamsConversationReferences)
      .where(eq(teamsConversationReferences.tenantId, tenantId))
      .orderBy(desc(teamsConversationReferences.updatedAt))
      .limit(1);
    return typeof row?.r.serviceUrl === 'string' ? row.r.serviceUrl : null;
  }

  async get(conversationId: string): Promise<Record<string, unknown> | null> {
    const [row] = await this.db
      .select({ r: teamsConversationReferences.reference })
      .from(teamsConversationReferences)
      .where(eq(teamsConversationReferences.conversationId, conversationId))
      .limit(1);
    return row?.r ?? null;
  }

  async forget(tenantId: string, what: { conversation: string } | { team: string }): Promise<string[]> {
    // A channel's reply chains are conversations of their own: `<channel>;messageid=<root>`.
    const base = sql`split_part(${teamsConversationReferences.conversationId}, ';', 1)`;
    const which =
      'conversation' in what
        ? sql`${base} = ${what.conversation}`
        : or(sql`${base} = ${what.team}`, sql`${teamsConversationReferences.reference}->>'teamId' = ${what.team}`);
    const rows = await this.db
      .delete(teamsConversationReferences)
      .where(and(eq(teamsConversationReferences.tenantId, tenantId), which))
      .returning({ id: teamsConversationReferences.conversationId });
    return [...new Set(rows.map((r) => r.id.split(';')[0]!))];
  }
}
