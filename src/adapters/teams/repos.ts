// The Teams adapter's own tables (see src/adapters/db/schema.ts): which
// workspace a tenant maps to, the Teams users the bot has seen, and the last
// conversation reference of each conversation, for proactive posts.
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { externalIdentities, teamsConversationReferences, teamsTenants, teamsUsers } from '../db/schema.ts';

/** A Teams user as the bot saw them last. */
export interface TeamsUser {
  tenantId: string;
  aadObjectId: string;
  /** The Bot Framework user id (`29:…`): card refresh lists it, proactive chats address it. */
  userId: string;
  name: string;
  /** Their personal chat with the bot; null until they have one. */
  personalConversationId: string | null;
  /** The agent their personal chat talks to; null until they choose one. */
  agentId: string | null;
}

export class TeamsTenantRepo {
  constructor(private readonly db: Db) {}

  /** The workspace a tenant is connected to; null when it is not. */
  async workspaceOf(tenantId: string): Promise<string | null> {
    const [row] = await this.db.select({ w: teamsTenants.workspaceId }).from(teamsTenants).where(eq(teamsTenants.tenantId, tenantId)).limit(1);
    return row?.w ?? null;
  }

  /** The tenants connected to a workspace. */
  async tenantsOf(workspaceId: string): Promise<string[]> {
    const rows = await this.db.select({ t: teamsTenants.tenantId }).from(teamsTenants).where(eq(teamsTenants.workspaceId, workspaceId));
    return rows.map((r) => r.t);
  }

  /** Maps the tenant to the workspace (replacing an earlier mapping). */
  async connect(tenantId: string, workspaceId: string): Promise<void> {
    await this.db.insert(teamsTenants).values({ tenantId, workspaceId })
      .onConflictDoUpdate({ target: teamsTenants.tenantId, set: { workspaceId, updatedAt: sql`now()` } });
  }
}

export class TeamsUserRepo {
  constructor(private readonly db: Db) {}

  /** Records who wrote (their `29:` id and name) and, from a personal chat, that chat. */
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

  /** Null when the bot never saw this user. */
  async get(tenantId: string, aadObjectId: string): Promise<TeamsUser | null> {
    const [row] = await this.db.select({
      tenantId: teamsUsers.tenantId, aadObjectId: teamsUsers.aadObjectId, userId: teamsUsers.userId, name: teamsUsers.name,
      personalConversationId: teamsUsers.personalConversationId, agentId: teamsUsers.agentId,
    }).from(teamsUsers).where(and(eq(teamsUsers.tenantId, tenantId), eq(teamsUsers.aadObjectId, aadObjectId))).limit(1);
    return row ?? null;
  }

  /** Sets (or clears) the agent the user's personal chat talks to. */
  async chooseAgent(tenantId: string, aadObjectId: string, agentId: string | null): Promise<void> {
    await this.db.update(teamsUsers).set({ agentId, updatedAt: sql`now()` })
      .where(and(eq(teamsUsers.tenantId, tenantId), eq(teamsUsers.aadObjectId, aadObjectId)));
  }

  /** The Teams users of linked people in a tenant (approvers, to refresh their cards and reach their chats). */
  async ofPeople(tenantId: string, personIds: string[]): Promise<Array<TeamsUser & { personId: string }>> {
    if (!personIds.length) return [];
    const rows = await this.db.select({
      personId: externalIdentities.personId, tenantId: teamsUsers.tenantId, aadObjectId: teamsUsers.aadObjectId, userId: teamsUsers.userId,
      name: teamsUsers.name, personalConversationId: teamsUsers.personalConversationId, agentId: teamsUsers.agentId,
    }).from(externalIdentities)
      .innerJoin(teamsUsers, and(eq(teamsUsers.tenantId, externalIdentities.tenantId), eq(teamsUsers.aadObjectId, externalIdentities.externalUserId)))
      .where(and(eq(externalIdentities.surface, 'teams'), eq(externalIdentities.tenantId, tenantId), inArray(externalIdentities.personId, personIds)));
    return rows.map((r) => ({ ...r, personId: r.personId! }));
  }
}

export class TeamsReferenceRepo {
  constructor(private readonly db: Db) {}

  /** Keeps the newest reference of a conversation (its service URL may move). */
  async put(r: { conversationId: string; tenantId: string; conversationType: string; reference: Record<string, unknown> }): Promise<void> {
    await this.db.insert(teamsConversationReferences).values(r)
      .onConflictDoUpdate({
        target: teamsConversationReferences.conversationId,
        set: { reference: r.reference, conversationType: r.conversationType, updatedAt: sql`now()` },
      });
  }

  /** The service URL Teams used last in a tenant (to start a conversation there); null when none is known. */
  async serviceUrlOf(tenantId: string): Promise<string | null> {
    const [row] = await this.db.select({ r: teamsConversationReferences.reference }).from(teamsConversationReferences)
      .where(eq(teamsConversationReferences.tenantId, tenantId)).orderBy(desc(teamsConversationReferences.updatedAt)).limit(1);
    return typeof row?.r.serviceUrl === 'string' ? row.r.serviceUrl : null;
  }

  /** Null when the bot never saw this conversation. */
  async get(conversationId: string): Promise<Record<string, unknown> | null> {
    const [row] = await this.db.select({ r: teamsConversationReferences.reference }).from(teamsConversationReferences)
      .where(eq(teamsConversationReferences.conversationId, conversationId)).limit(1);
    return row?.r ?? null;
  }
}
