import { and, eq, inArray, or } from 'drizzle-orm';
import { workspaceRole } from '../../core/organizations/access.ts';
import type { WorkspaceRepo } from '../../core/ports.ts';
import type { Workspace, WorkspaceRole } from '../../core/entities.ts';
import type { Db } from './client.ts';
import { uniqueOr } from './errors.ts';
import { isUuid } from './ids.ts';
import { personColumns } from './people-repo.ts';
import { orgMembers, people, workspaceMembers, workspaces } from './schema.ts';

export class DrizzleWorkspaceRepo implements WorkspaceRepo {
  constructor(private readonly db: Db) {}

  async create(w: Parameters<WorkspaceRepo['create']>[0]): Promise<Workspace> {
    const [row] = await uniqueOr(
      () => this.db.insert(workspaces).values(w).returning(),
      `A workspace with the slug "${w.slug}" already exists; pick another name.`,
    );
    return row;
  }

  async get(idOrSlug: string) {
    const where = isUuid(idOrSlug)
      ? or(eq(workspaces.id, idOrSlug), eq(workspaces.slug, idOrSlug))
      : eq(workspaces.slug, idOrSlug);
    const [row] = await this.db.select().from(workspaces).where(where).limit(1);
    return row ?? null;
  }

  async update(id: string, patch: Parameters<WorkspaceRepo['update']>[1]) {
    if (Object.keys(patch).length) await this.db.update(workspaces).set(patch).where(eq(workspaces.id, id));
  }

  async list(orgId: string | null) {
    const rows = await this.db
      .select()
      .from(workspaces)
      .where(orgId ? eq(workspaces.orgId, orgId) : undefined)
      .orderBy(workspaces.slug);
    return rows as Workspace[];
  }

  async removeMember(workspaceIds: string[], personId: string) {
    if (!workspaceIds.length) return;
    await this.db
      .delete(workspaceMembers)
      .where(and(inArray(workspaceMembers.workspaceId, workspaceIds), eq(workspaceMembers.personId, personId)));
  }

  async delete(id: string) {
    // Conversations, messages, documents and memberships go with it (ON DELETE CASCADE).
    await this.db.delete(workspaces).where(eq(workspaces.id, id));
  }

  async setMember(workspaceId: string, personId: string, role: WorkspaceRole) {
    await this.db
      .insert(workspaceMembers)
      .values({ workspaceId, personId, role })
      .onConflictDoUpdate({ target: [workspaceMembers.workspaceId, workspaceMembers.personId], set: { role } });
  }

  async directRole(workspaceId: string, personId: string) {
    const [row] = await this.db
      .select({ role: workspaceMembers.role })
      .from(workspaceMembers)
      .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.personId, personId)));
    return row?.role ?? null;
  }

  async reachablePeople(ws: Pick<Workspace, 'id' | 'orgId' | 'restricted'>) {
    // Candidates: the organization's members and the people added directly.
    const rows = await this.db
      .select({ person: personColumns, orgRole: orgMembers.role, direct: workspaceMembers.role })
      .from(people)
      .leftJoin(orgMembers, and(eq(orgMembers.personId, people.id), eq(orgMembers.orgId, ws.orgId)))
      .leftJoin(
        workspaceMembers,
        and(eq(workspaceMembers.personId, people.id), eq(workspaceMembers.workspaceId, ws.id)),
      )
      .where(or(eq(orgMembers.orgId, ws.orgId), eq(workspaceMembers.workspaceId, ws.id)))
      .orderBy(people.handle);
    return rows.flatMap((r) => {
      const role = workspaceRole(ws, r.orgRole, r.direct);
      return role ? [{ person: r.person, role }] : [];
    });
  }

  async listForPerson(personId: string) {
    const rows = await this.db
      .select({ ws: workspaces, orgRole: orgMembers.role, direct: workspaceMembers.role })
      .from(workspaces)
      .leftJoin(orgMembers, and(eq(orgMembers.orgId, workspaces.orgId), eq(orgMembers.personId, personId)))
      .leftJoin(
        workspaceMembers,
        and(eq(workspaceMembers.workspaceId, workspaces.id), eq(workspaceMembers.personId, personId)),
      )
      .where(or(eq(orgMembers.personId, personId), eq(workspaceMembers.personId, personId)))
      .orderBy(workspaces.name);
    return rows.flatMap((r) => {
      const role = workspaceRole(r.ws, r.orgRole, r.direct);
      return role ? [{ ...r.ws, role }] : [];
    });
  }
}
