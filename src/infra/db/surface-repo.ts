// The concepts every chat surface shares, stored one way: which workspace a
// team or tenant maps to, and the agent a user's DMs or a channel's
// unaddressed mentions go to.
import { and, eq, sql } from 'drizzle-orm';
import type {
  DefaultAgentKey,
  DefaultAgentRepo,
  ExternalSurface,
  SurfaceTenantRepo,
} from '../../core/surfaces/surface-ports.ts';
import type { Db } from './client.ts';
import { defaultAgents, surfaceTenants } from './schema.ts';

const tenantIs = (surface: ExternalSurface, tenantId: string) =>
  and(eq(surfaceTenants.surface, surface), eq(surfaceTenants.tenantId, tenantId));

export class DrizzleSurfaceTenantRepo implements SurfaceTenantRepo {
  constructor(private readonly db: Db) {}

  async workspaceOf(surface: ExternalSurface, tenantId: string) {
    const [row] = await this.db
      .select({ w: surfaceTenants.workspaceId })
      .from(surfaceTenants)
      .where(tenantIs(surface, tenantId))
      .limit(1);
    return row?.w ?? null;
  }

  async tenantsOf(surface: ExternalSurface, workspaceId: string) {
    const rows = await this.db
      .select({ t: surfaceTenants.tenantId })
      .from(surfaceTenants)
      .where(and(eq(surfaceTenants.surface, surface), eq(surfaceTenants.workspaceId, workspaceId)));
    return rows.map((r) => r.t);
  }

  async connect(surface: ExternalSurface, tenantId: string, workspaceId: string | null) {
    if (workspaceId === null) {
      await this.db.delete(surfaceTenants).where(tenantIs(surface, tenantId));
      return;
    }
    await this.db
      .insert(surfaceTenants)
      .values({ surface, tenantId, workspaceId })
      .onConflictDoUpdate({
        target: [surfaceTenants.surface, surfaceTenants.tenantId],
        set: { workspaceId, updatedAt: sql`now()` },
      });
  }
}

const keyIs = (k: DefaultAgentKey) =>
  and(
    eq(defaultAgents.surface, k.surface),
    eq(defaultAgents.tenantId, k.tenantId),
    eq(defaultAgents.scope, k.scope),
    eq(defaultAgents.scopeId, k.scopeId),
  );

export class DrizzleDefaultAgentRepo implements DefaultAgentRepo {
  constructor(private readonly db: Db) {}

  async get(key: DefaultAgentKey) {
    const [row] = await this.db
      .select({ agentId: defaultAgents.agentId })
      .from(defaultAgents)
      .where(keyIs(key))
      .limit(1);
    return row?.agentId ?? null;
  }

  async set(key: DefaultAgentKey, agentId: string | null, setBy: string | null) {
    if (agentId === null) {
      await this.db.delete(defaultAgents).where(keyIs(key));
      return;
    }
    await this.db
      .insert(defaultAgents)
      .values({ ...key, agentId, setBy })
      .onConflictDoUpdate({
        target: [defaultAgents.surface, defaultAgents.tenantId, defaultAgents.scope, defaultAgents.scopeId],
        set: { agentId, setBy, updatedAt: sql`now()` },
      });
  }
}
