import { notPermitted } from '../errors.ts';
import type { Agent, OrgRole, Workspace, WorkspaceRole } from '../entities.ts';

const RANK: Record<WorkspaceRole, number> = { viewer: 1, editor: 2, owner: 3 };

/**
 * A person's role in a workspace: organization admins own every workspace,
 * a direct membership gives its role, and an unrestricted workspace is open
 * to every organization member as a viewer. Null means no access at all.
 */
export function workspaceRole(
  ws: Pick<Workspace, 'restricted'>,
  orgRole: OrgRole | null,
  directRole: WorkspaceRole | null,
): WorkspaceRole | null {
  if (orgRole === 'admin') return 'owner';
  if (directRole) return directRole;
  if (orgRole === 'member' && !ws.restricted) return 'viewer';
  return null;
}

export const atLeast = (role: WorkspaceRole | null, wanted: WorkspaceRole) =>
  role !== null && RANK[role] >= RANK[wanted];

/** The lesser of two roles: what an agent may do for someone is capped by both. */
export function leastRole(a: WorkspaceRole | null, b: WorkspaceRole | null): WorkspaceRole | null {
  if (a === null || b === null) return null;
  return RANK[a] <= RANK[b] ? a : b;
}

/** Admins manage everything in their organization. */
export function assertOrgAdmin(orgRole: OrgRole | null, what: string): void {
  if (orgRole !== 'admin') throw notPermitted(`Only an organization admin can ${what}.`);
}

/** Members add and change only their own agents; admins may change any agent of a member. */
export function assertMayManageAgent(
  actorId: string,
  agent: Pick<Agent, 'ownerId'>,
  actorIsAdminOfOwnersOrg: boolean,
): void {
  if (agent.ownerId === actorId || actorIsAdminOfOwnersOrg) return;
  throw notPermitted("Only the agent's owner or an admin of their organization can change this agent.");
}

/** Only a workspace owner (organization admins included) may grant `monitor`. */
export function assertMayGrantMonitor(role: WorkspaceRole | null): void {
  if (role !== 'owner')
    throw notPermitted('Only a workspace owner or an organization admin can let an agent monitor a workspace.');
}
