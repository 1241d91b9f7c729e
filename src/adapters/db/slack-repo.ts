import { and, eq, sql } from 'drizzle-orm';
import type {
  AgentChoiceScope, SlackAgentChoiceRepo, SlackInstallation, SlackInstallationInput, SlackInstallationRepo,
} from '../../domain/surfaces/ports.ts';
import type { Db } from './client.ts';
import { slackAgentChoices, slackInstallations } from './schema.ts';

/** Every column but the sealed token, which only `sealedToken` reads. */
const columns = {
  teamId: slackInstallations.teamId, enterpriseId: slackInstallations.enterpriseId, teamName: slackInstallations.teamName,
  workspaceId: slackInstallations.workspaceId, botUserId: slackInstallations.botUserId, botId: slackInstallations.botId,
  appId: slackInstallations.appId, scopes: slackInstallations.scopes, installedBy: slackInstallations.installedBy,
  hasOwnToken: sql<boolean>`${slackInstallations.botTokenSealed} is not null`.as('has_own_token'),
  updatedAt: slackInstallations.updatedAt,
};

export class DrizzleSlackInstallationRepo implements SlackInstallationRepo {
  constructor(private readonly db: Db) {}

  async get(teamId: string): Promise<SlackInstallation | null> {
    const [row] = await this.db.select(columns).from(slackInstallations).where(eq(slackInstallations.teamId, teamId)).limit(1);
    return row ?? null;
  }

  async teamsOf(workspaceId: string) {
    const rows = await this.db.select({ t: slackInstallations.teamId }).from(slackInstallations)
      .where(eq(slackInstallations.workspaceId, workspaceId)).orderBy(slackInstallations.createdAt);
    return rows.map((r) => r.t);
  }

  async sealedToken(teamId: string) {
    const [row] = await this.db.select({ t: slackInstallations.botTokenSealed }).from(slackInstallations)
      .where(eq(slackInstallations.teamId, teamId)).limit(1);
    return row?.t ?? null;
  }

  async put(i: SlackInstallationInput): Promise<SlackInstallation> {
    const values = {
      teamId: i.teamId, enterpriseId: i.enterpriseId ?? null, teamName: i.teamName, botUserId: i.botUserId, botId: i.botId,
      appId: i.appId ?? null, scopes: i.scopes ?? '', installedBy: i.installedBy ?? null, botTokenSealed: i.botTokenSealed,
      ...(i.workspaceId !== undefined ? { workspaceId: i.workspaceId } : {}),
    };
    const { teamId: _key, ...set } = values;
    await this.db.insert(slackInstallations).values(values)
      .onConflictDoUpdate({ target: slackInstallations.teamId, set: { ...set, updatedAt: sql`now()` } });
    return (await this.get(i.teamId))!;
  }

  async remove(teamId: string) {
    await this.db.delete(slackInstallations).where(eq(slackInstallations.teamId, teamId));
  }
}

export class DrizzleSlackAgentChoiceRepo implements SlackAgentChoiceRepo {
  constructor(private readonly db: Db) {}

  async get(teamId: string, scope: AgentChoiceScope, scopeId: string) {
    const [row] = await this.db.select({ agentId: slackAgentChoices.agentId }).from(slackAgentChoices)
      .where(and(eq(slackAgentChoices.teamId, teamId), eq(slackAgentChoices.scope, scope), eq(slackAgentChoices.scopeId, scopeId))).limit(1);
    return row?.agentId ?? null;
  }

  async set(teamId: string, scope: AgentChoiceScope, scopeId: string, agentId: string | null, setBy: string | null) {
    if (agentId === null) {
      await this.db.delete(slackAgentChoices)
        .where(and(eq(slackAgentChoices.teamId, teamId), eq(slackAgentChoices.scope, scope), eq(slackAgentChoices.scopeId, scopeId)));
      return;
    }
    await this.db.insert(slackAgentChoices).values({ teamId, scope, scopeId, agentId, setBy })
      .onConflictDoUpdate({
        target: [slackAgentChoices.teamId, slackAgentChoices.scope, slackAgentChoices.scopeId],
        set: { agentId, setBy, updatedAt: sql`now()` },
      });
  }
}
