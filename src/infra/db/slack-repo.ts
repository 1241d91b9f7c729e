import { and, desc, eq, isNotNull, lt, sql } from 'drizzle-orm';
import type {
  SlackInstallation,
  SlackInstallationInput,
  SlackInstallationRepo,
} from '../../surfaces/slack/installation-repo.ts';
import type { Db } from './client.ts';
import { slackInstallations, surfaceTenants } from './schema.ts';
import { DrizzleSurfaceTenantRepo } from './surface-repo.ts';

/** Every column but the sealed token, which only `sealedToken` reads; the workspace comes from the shared mapping. */
const columns = {
  teamId: slackInstallations.teamId,
  enterpriseId: slackInstallations.enterpriseId,
  teamName: slackInstallations.teamName,
  workspaceId: surfaceTenants.workspaceId,
  botUserId: slackInstallations.botUserId,
  botId: slackInstallations.botId,
  appId: slackInstallations.appId,
  scopes: slackInstallations.scopes,
  installedBy: slackInstallations.installedBy,
  hasOwnToken: sql<boolean>`${slackInstallations.botTokenSealed} is not null`.as('has_own_token'),
  updatedAt: slackInstallations.updatedAt,
};

/** A Slack team's row in the shared team/tenant → workspace mapping. */
const mapping = and(eq(surfaceTenants.surface, 'slack'), eq(surfaceTenants.tenantId, slackInstallations.teamId));

export class DrizzleSlackInstallationRepo implements SlackInstallationRepo {
  constructor(private readonly db: Db) {}

  async get(teamId: string): Promise<SlackInstallation | null> {
    const [row] = await this.db
      .select(columns)
      .from(slackInstallations)
      .leftJoin(surfaceTenants, mapping)
      .where(eq(slackInstallations.teamId, teamId))
      .limit(1);
    return row ?? null;
  }

  async teamsOf(workspaceId: string) {
    const rows = await this.db
      .select({ t: slackInstallations.teamId })
      .from(slackInstallations)
      .innerJoin(surfaceTenants, mapping)
      .where(eq(surfaceTenants.workspaceId, workspaceId))
      .orderBy(slackInstallations.createdAt);
    return rows.map((r) => r.t);
  }

  async sealedToken(teamId: string) {
    const [row] = await this.db
      .select({ t: slackInstallations.botTokenSealed })
      .from(slackInstallations)
      .where(eq(slackInstallations.teamId, teamId))
      .limit(1);
    return row?.t ?? null;
  }

  async latestSealedToken() {
    const [row] = await this.db
      .select({ teamId: slackInstallations.teamId, sealed: slackInstallations.botTokenSealed })
      .from(slackInstallations)
      .where(isNotNull(slackInstallations.botTokenSealed))
      .orderBy(desc(slackInstallations.updatedAt))
      .limit(1);
    return row?.sealed ? { teamId: row.teamId, sealed: row.sealed } : null;
  }

  async put(i: SlackInstallationInput): Promise<SlackInstallation> {
    const values = {
      teamId: i.teamId,
      enterpriseId: i.enterpriseId ?? null,
      teamName: i.teamName,
      botUserId: i.botUserId,
      botId: i.botId,
      appId: i.appId ?? null,
      scopes: i.scopes ?? '',
      installedBy: i.installedBy ?? null,
      botTokenSealed: i.botTokenSealed,
    };
    const { teamId: _key, ...set } = values;
    await this.db.transaction(async (tx) => {
      await tx
        .insert(slackInstallations)
        .values(values)
        .onConflictDoUpdate({ target: slackInstallations.teamId, set: { ...set, updatedAt: sql`now()` } });
      if (i.workspaceId !== undefined)
        await new DrizzleSurfaceTenantRepo(tx as unknown as Db).connect('slack', i.teamId, i.workspaceId);
    });
    return (await this.get(i.teamId))!;
  }

  async remove(teamId: string, before?: Date) {
    return this.db.transaction(async (tx) => {
      // One conditional delete: a reinstall committing meanwhile makes it match nothing.
      const team = eq(slackInstallations.teamId, teamId);
      const gone = await tx
        .delete(slackInstallations)
        .where(before ? and(team, lt(slackInstallations.updatedAt, before)) : team)
        .returning({ teamId: slackInstallations.teamId });
      if (
        !gone.length &&
        (await tx.select({ t: slackInstallations.teamId }).from(slackInstallations).where(team).limit(1)).length
      )
        return false;
      await new DrizzleSurfaceTenantRepo(tx as unknown as Db).connect('slack', teamId, null);
      return true;
    });
  }
}
