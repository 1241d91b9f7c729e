import { and, count, eq, or, sql } from 'drizzle-orm';
import type { OrgRepo } from '../../core/ports.ts';
import type { Organization } from '../../core/entities.ts';
import { preparedOnce, type Db } from './client.ts';
import { uniqueOr } from './errors.ts';
import { isUuid } from './ids.ts';
import { personColumns } from './people-repo.ts';
import { organizations, orgMembers, people, usage, workspaces } from './schema.ts';

type OrgRow = typeof organizations.$inferSelect;
const toOrg = (r: OrgRow): Organization => ({ ...r });

export class DrizzleOrgRepo implements OrgRepo {
  constructor(private readonly db: Db) {}

  async create(o: Parameters<OrgRepo['create']>[0]) {
    const [row] = await uniqueOr(
      () =>
        this.db
          .insert(organizations)
          .values({
            name: o.name,
            slug: o.slug,
            plan: o.plan,
            licensedMessages: o.licensedMessages ?? 0,
            personalFor: o.personalFor ?? null,
          })
          .returning(),
      `An organization with the slug "${o.slug}" already exists; pick another name.`,
    );
    return toOrg(row);
  }

  async get(idOrSlug: string) {
    const where = isUuid(idOrSlug)
      ? or(eq(organizations.id, idOrSlug), eq(organizations.slug, idOrSlug))
      : eq(organizations.slug, idOrSlug);
    const [row] = await this.db.select().from(organizations).where(where).limit(1);
    return row ? toOrg(row) : null;
  }

  async setPlan(orgId: string, plan: Organization['plan'], licensedMessages: number) {
    await this.db.update(organizations).set({ plan, licensedMessages }).where(eq(organizations.id, orgId));
  }

  async addMember(orgId: string, personId: string, role: 'admin' | 'member') {
    await uniqueOr(
      () => this.db.insert(orgMembers).values({ orgId, personId, role }),
      'That person is already a member of this organization.',
    );
  }

  async setRole(orgId: string, personId: string, role: 'admin' | 'member') {
    await this.db
      .update(orgMembers)
      .set({ role })
      .where(and(eq(orgMembers.orgId, orgId), eq(orgMembers.personId, personId)));
  }

  async member(orgId: string, personId: string) {
    const [row] = await preparedOnce(this.db, 'org_member', () =>
      this.db
        .select()
        .from(orgMembers)
        .where(and(eq(orgMembers.orgId, sql.placeholder('org')), eq(orgMembers.personId, sql.placeholder('person'))))
        .limit(1),
    ).execute({ org: orgId, person: personId });
    return row ?? null;
  }

  async listForPerson(personId: string) {
    const rows = await this.db
      .select({ org: organizations, role: orgMembers.role })
      .from(orgMembers)
      .innerJoin(organizations, eq(organizations.id, orgMembers.orgId))
      .where(eq(orgMembers.personId, personId))
      .orderBy(organizations.createdAt);
    return rows.map((r) => ({ ...toOrg(r.org), role: r.role }));
  }

  async listMembers(orgId: string) {
    const rows = await this.db
      .select({ person: personColumns, role: orgMembers.role, hasSeat: orgMembers.hasSeat })
      .from(orgMembers)
      .innerJoin(people, eq(people.id, orgMembers.personId))
      .where(eq(orgMembers.orgId, orgId))
      .orderBy(people.handle);
    return rows;
  }

  async removeMember(orgId: string, personId: string) {
    await this.db.delete(orgMembers).where(and(eq(orgMembers.orgId, orgId), eq(orgMembers.personId, personId)));
  }

  async setSeat(orgId: string, personId: string, hasSeat: boolean) {
    await this.db
      .update(orgMembers)
      .set({ hasSeat })
      .where(and(eq(orgMembers.orgId, orgId), eq(orgMembers.personId, personId)));
  }

  async lockForLimits(orgId: string) {
    const [row] = await this.db.select().from(organizations).where(eq(organizations.id, orgId)).for('update');
    return row ? toOrg(row) : null;
  }

  async countWorkspaces(orgId: string) {
    const [row] = await this.db.select({ n: count() }).from(workspaces).where(eq(workspaces.orgId, orgId));
    return Number(row.n);
  }

  async countAgents(orgId: string) {
    // An agent is in an organization when it joined one of its workspaces, or
    // when the organization is its owner's own Free organization (its home).
    const rows = await this.db.execute<{ n: number }>(sql`
      select count(distinct a.id)::int as n from agents a
      where a.token_hash is not null and a.kind = 'agent' and (
        exists (select 1 from agent_memberships m join workspaces w on w.id = m.workspace_id
                where m.agent_id = a.id and w.org_id = ${orgId})
        or exists (select 1 from organizations o where o.id = ${orgId} and o.personal_for = a.owner_id))`);
    return Number(rowsOf<{ n: number }>(rows)[0]?.n ?? 0);
  }

  async listAll() {
    return (await this.db.select().from(organizations).orderBy(organizations.createdAt)).map(toOrg);
  }

  async usage(orgId: string, month: string) {
    const [row] = await this.db
      .select({ n: usage.messages })
      .from(usage)
      .where(and(eq(usage.orgId, orgId), eq(usage.month, month)));
    return row?.n ?? 0;
  }

  async addUsage(orgId: string, month: string, n: number) {
    const [row] = await this.db
      .insert(usage)
      .values({ orgId, month, messages: n })
      .onConflictDoUpdate({ target: [usage.orgId, usage.month], set: { messages: sql`${usage.messages} + ${n}` } })
      .returning({ n: usage.messages });
    return row.n;
  }
}

/** `db.execute` returns `{ rows }` on node-postgres and PGlite (and rows directly on postgres-js). */
export function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[];
  return ((result as { rows?: T[] }).rows ?? []) as T[];
}
