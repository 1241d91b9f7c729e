// What only the Teams surface keeps: the users the bot has seen and the last
// conversation reference of each conversation, for proactive posts.
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { TeamsReferenceRepo, TeamsUser, TeamsUserRepo } from '../../domain/surfaces/ports.ts';
import type { Db } from './client.ts';
import { externalIdentities, teamsConversationReferences, teamsUsers } from './schema.ts';

const userColumns = {
  tenantId: teamsUsers.tenantId, aadObjectId: teamsUsers.aadObjectId, userId: teamsUsers.userId, name: teamsUsers.name,
  personalConversationId: teamsUsers.personalConversationId,
};

export class DrizzleTeamsUserRepo implements TeamsUserRepo {
  constructor(private readonly db: Db) {}

  async seen(u: { tenantId: string; aadObjectId: string; userId: string; name: string; personalConversationId?: string | null }): Promise<void> {
    const personal = u.personalConversationId ?? null;
    await this.db.insert(teamsUsers).values({ ...u, personalConversationId: personal })
      .onConflictDoUpdate({
        target: [teamsUsers.tenantId, teamsUsers.aadObjectId],
        set: {
          userId: u.userId, name: u.name, updatedAt: sql`now()`,
          personalConversationId: sql`coalesce(${personal}, ${teamsUsers.personalConversationId})`,
        },
      });
  }

  async get(tenantId: string, aadObjectId: string): Promise<TeamsUser | null> {
    const [row] = await this.db.select(userColumns).from(teamsUsers)
      .where(and(eq(teamsUsers.tenantId, tenantId), eq(teamsUsers.aadObjectId, aadObjectId))).limit(1);
    return row ?? null;
  }

  async ofPeople(tenantId: string, personIds: string[]): Promise<Array<TeamsUser & { personId: string }>> {
    if (!personIds.length) return [];
    const rows = await this.db.select({ personId: externalIdentities.personId, ...userColumns }).from(externalIdentities)
      .innerJoin(teamsUsers, and(eq(teamsUsers.tenantId, externalIdentities.tenantId), eq(teamsUsers.aadObjectId, externalIdentities.externalUserId)))
      .where(and(eq(externalIdentities.surface, 'teams'), eq(externalIdentities.tenantId, tenantId), inArray(externalIdentities.personId, personIds)));
    return rows.map((r) => ({ ...r, personId: r.personId! }));
  }
}

export class DrizzleTeamsReferenceRepo implements TeamsReferenceRepo {
  constructor(private readonly db: Db) {}

  async put(r: { conversationId: string; tenantId: string; conversationType: string; reference: Record<string, unknown> }): Promise<void> {
    await this.db.insert(teamsConversationReferences).values(r)
      .onConflictDoUpdate({
        target: teamsConversationReferences.conversationId,
        set: { reference: r.reference, conversationType: r.conversationType, updatedAt: sql`now()` },
      });
  }

  async serviceUrlOf(tenantId: string): Promise<string | null> {
    const [row] = await this.db.select({ r: teamsConversationReferences.reference }).from(teamsConversationReferences)
      .where(eq(teamsConversationReferences.tenantId, tenantId)).orderBy(desc(teamsConversationReferences.updatedAt)).limit(1);
    return typeof row?.r.serviceUrl === 'string' ? row.r.serviceUrl : null;
  }

  async get(conversationId: string): Promise<Record<string, unknown> | null> {
    const [row] = await this.db.select({ r: teamsConversationReferences.reference }).from(teamsConversationReferences)
      .where(eq(teamsConversationReferences.conversationId, conversationId)).limit(1);
    return row?.r ?? null;
  }
}
