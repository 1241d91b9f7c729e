// `switchboard email connect WORKSPACE [--default]`: which workspaces take
// mail. A connected workspace is reached at <slug>+<agent>@<EMAIL_DOMAIN>; the
// default one also at <agent>@<EMAIL_DOMAIN>. Nothing is reachable by mail
// until an operator says so, as with a Slack team or a Teams tenant.
import type { Workspace } from '../../core/entities.ts';
import type { SurfaceCore } from '../contract.ts';
import { DEFAULT_TENANT } from './addresses.ts';
import { EMAIL } from './topics.ts';

/** Connects the workspace to email (needs no mail settings: the CLI runs it anywhere); `asDefault` also gives it the plain addresses. */
export async function connectEmailWorkspace(
  core: Pick<SurfaceCore, 'orgs' | 'tenants'>,
  input: { workspace: string; asDefault?: boolean },
): Promise<{ workspace: Workspace; isDefault: boolean }> {
  const workspace = await core.orgs.workspace(input.workspace);
  await core.tenants.connect(EMAIL.surface, workspace.slug, workspace.id);
  if (input.asDefault) await core.tenants.connect(EMAIL.surface, DEFAULT_TENANT, workspace.id);
  const isDefault = (await core.tenants.workspaceOf(EMAIL.surface, DEFAULT_TENANT)) === workspace.id;
  return { workspace, isDefault };
}

/** Stops the workspace taking mail (at its own addresses and, when it was the default, at the plain ones). */
export async function disconnectEmailWorkspace(
  core: Pick<SurfaceCore, 'orgs' | 'tenants'>,
  input: { workspace: string },
): Promise<{ workspace: Workspace }> {
  const workspace = await core.orgs.workspace(input.workspace);
  await core.tenants.connect(EMAIL.surface, workspace.slug, null);
  if ((await core.tenants.workspaceOf(EMAIL.surface, DEFAULT_TENANT)) === workspace.id)
    await core.tenants.connect(EMAIL.surface, DEFAULT_TENANT, null);
  return { workspace };
}
