import { and, eq, inArray, sql } from 'drizzle-orm';
import type { AgentRepo, AgentStanding } from '../../core/ports.ts';
import type { Agent, AgentMembership } from '../../core/entities.ts';
import { preparedOnce, type Db } from './client.ts';
import { uniqueOr } from './errors.ts';
import { isUuid } from './ids.ts';
import { agentMemberships, agents, orgMembers, people, workspaceMembers } from './schema.ts';

/** Agent columns joined with the owner's handle; the token hash is reduced to whether one exists. */
const agentColumns = {
  id: agents.id,
  ownerId: agents.ownerId,
  ownerHandle: people.handle,
  name: agents.name,
  displayName: agents.displayName,
  avatarUrl: agents.avatarUrl,
  roleLine: agents.roleLine,
  kind: agents.kind,
  tokenHash: agents.tokenHash,
  createdAt: agents.createdAt,
};
type Row = { [K in keyof typeof agentColumns]: (typeof agentColumns)[K]['_']['data'] } & { ownerHandle: string };

const toAgent = ({ tokenHash, ...r }: Row): Agent => ({ ...r, hasToken: tokenHash !== null });
const toMembership = (r: typeof agentMemberships.$inferSelect): AgentMembership => ({ ...r });

export class DrizzleAgentRepo implements AgentRepo {
  constructor(private readonly db: Db) {}

  private select() {
    return this.db.select(agentColumns).from(agents).innerJoin(people, eq(people.id, agents.ownerId));
  }

  async create(a: Parameters<AgentRepo['create']>[0]) {
    const [row] = await uniqueOr(
      () =>
        this.db
          .insert(agents)
          .values({
            ownerId: a.ownerId,
            name: a.name,
            displayName: a.displayName,
            avatarUrl: a.avatarUrl ?? null,
            roleLine: a.roleLine ?? '',
            kind: a.kind,
            tokenHash: a.tokenHash ?? null,
          })
          .returning({ id: agents.id }),
      `This owner already has an agent named "${a.name}"; agent names are unique per owner.`,
    );
    return (await this.get(row.id))!;
  }

  async get(id: string) {
    if (!isUuid(id)) return null;
    const [row] = await this.select().where(eq(agents.id, id));
    return row ? toAgent(row as Row) : null;
  }

  async byQualifiedName(ownerHandle: string, name: string) {
    const [row] = await this.select().where(and(eq(people.handle, ownerHandle), eq(agents.name, name)));
    return row ? toAgent(row as Row) : null;
  }

  async byTokenHash(hash: string) {
    const [row] = await this.select().where(eq(agents.tokenHash, hash));
    return row ? toAgent(row as Row) : null;
  }

  async personAgent(personId: string) {
    const [row] = await this.select().where(and(eq(agents.ownerId, personId), eq(agents.kind, 'person')));
    return row ? toAgent(row as Row) : null;
  }

  async personAgents(personIds: string[]) {
    if (!personIds.length) return [];
    const rows = await this.select().where(and(inArray(agents.ownerId, personIds), eq(agents.kind, 'person')));
    return rows.map((r) => toAgent(r as Row));
  }

  async setTokenHash(agentId: string, hash: string | null) {
    await this.db.update(agents).set({ tokenHash: hash }).where(eq(agents.id, agentId));
  }

  async putMembership(m: AgentMembership) {
    const { agentId, workspaceId, ...perms } = m;
    await this.db
      .insert(agentMemberships)
      .values(m)
      .onConflictDoUpdate({ target: [agentMemberships.agentId, agentMemberships.workspaceId], set: perms });
  }

  async membership(agentId: string, workspaceId: string) {
    const [row] = await this.db
      .select()
      .from(agentMemberships)
      .where(and(eq(agentMemberships.agentId, agentId), eq(agentMemberships.workspaceId, workspaceId)));
    return row ? toMembership(row) : null;
  }

  async standing(agentId: string, workspaceId: string, orgId: string): Promise<AgentStanding | null> {
    if (!isUuid(agentId)) return null;
    // Every tool call asks: prepared once (see preparedOnce).
    const [row] = await preparedOnce(this.db, 'agent_standing', () => {
      const [agent, workspace, org] = [sql.placeholder('agent'), sql.placeholder('workspace'), sql.placeholder('org')];
      return this.db
        .select({ a: agentColumns, m: agentMemberships, orgRole: orgMembers.role, directRole: workspaceMembers.role })
        .from(agents)
        .innerJoin(people, eq(people.id, agents.ownerId))
        .leftJoin(
          agentMemberships,
          and(eq(agentMemberships.agentId, agents.id), eq(agentMemberships.workspaceId, workspace)),
        )
        .leftJoin(orgMembers, and(eq(orgMembers.orgId, org), eq(orgMembers.personId, agents.ownerId)))
        .leftJoin(
          workspaceMembers,
          and(eq(workspaceMembers.workspaceId, workspace), eq(workspaceMembers.personId, agents.ownerId)),
        )
        .where(eq(agents.id, agent));
    }).execute({ agent: agentId, workspace: workspaceId, org: orgId });
    if (!row) return null;
    return {
      agent: toAgent(row.a as Row),
      membership: row.m ? toMembership(row.m) : null,
      orgRole: row.orgRole,
      directRole: row.directRole,
    };
  }

  async listMembers(workspaceId: string) {
    const rows = await this.db
      .select({ a: agentColumns, m: agentMemberships })
      .from(agentMemberships)
      .innerJoin(agents, eq(agents.id, agentMemberships.agentId))
      .innerJoin(people, eq(people.id, agents.ownerId))
      .where(eq(agentMemberships.workspaceId, workspaceId))
      .orderBy(agents.name, people.handle);
    return rows.map((r) => ({ agent: toAgent(r.a as Row), membership: toMembership(r.m) }));
  }

  async listAll() {
    const rows = await this.select().orderBy(people.handle, agents.name);
    return rows.map((r) => toAgent(r as Row));
  }

  async removeMemberships(agentIds: string[], workspaceIds: string[] | null) {
    if (!agentIds.length || (workspaceIds && !workspaceIds.length)) return;
    await this.db
      .delete(agentMemberships)
      .where(
        and(
          inArray(agentMemberships.agentId, agentIds),
          workspaceIds ? inArray(agentMemberships.workspaceId, workspaceIds) : undefined,
        ),
      );
  }

  async listOwnedBy(ownerId: string) {
    const rows = await this.select().where(eq(agents.ownerId, ownerId)).orderBy(agents.name);
    return rows.map((r) => toAgent(r as Row));
  }
}
