// `switchboard teams connect WORKSPACE --tenant-id T`: the Microsoft Teams
// organization (Entra ID tenant) whose people the bot answers for that
// workspace. One tenant, one workspace; connecting again moves it.
import { invalidInput } from '../../core/errors.ts';
import type { Workspace } from '../../core/entities.ts';
import type { SurfaceCore } from '../contract.ts';
import { TEAMS } from './topics.ts';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Connects the tenant to the workspace (needs no Teams credentials: the CLI runs it anywhere). */
export async function connectTeamsTenant(
  core: Pick<SurfaceCore, 'orgs' | 'tenants'>,
  input: { workspace: string; tenantId: string },
): Promise<{ workspace: Workspace; tenantId: string }> {
  const tenantId = input.tenantId.trim().toLowerCase();
  if (!GUID.test(tenantId)) {
    throw invalidInput(
      `"${input.tenantId}" is not a Microsoft Entra tenant id; it is a GUID such as 8c1e4b2a-6d3f-4e5a-b7c8-9d0e1f2a3b4c (the Azure portal's Microsoft Entra ID overview shows it).`,
    );
  }
  const workspace = await core.orgs.workspace(input.workspace);
  await core.tenants.connect(TEAMS.surface, tenantId, workspace.id);
  return { workspace, tenantId };
}
