import type { Logger } from 'pino';
import { Pacer } from '../../core/delivery/pacer.ts';
import type { Workspace } from '../../core/entities.ts';
import type { SurfaceCore } from '../contract.ts';
import { createAuthentication } from './auth.ts';
import type { TeamsState } from './state.ts';
import { loggable } from './errors.ts';
import { TEAMS } from './topics.ts';
import type { TeamsReferenceRepo } from './reference-repo.ts';
import { DurableCloudAdapter } from './receiver.ts';
import { teamsSettings, type TeamsSettings } from './settings.ts';
import type { TeamsUserRepo } from './user-repo.ts';

/** Everything the Teams adapter works with, built once per process by the surface's factory. */
export interface TeamsRuntime {
  /** The core services and ports the surface uses (never the App or the store). */
  core: SurfaceCore;
  settings: TeamsSettings;
  logger: Logger;
  /** botbuilder's CloudAdapter with the SDK's authentication; null when Teams is not configured. */
  adapter: DurableCloudAdapter | null;
  users: TeamsUserRepo;
  references: TeamsReferenceRepo;
  /** Keeps every Teams window per conversation. */
  pacer: Pacer;
}

/** True when MICROSOFT_APP_ID and MICROSOFT_APP_PASSWORD are set. */
export const teamsConfigured = (s: TeamsSettings) => Boolean(s.appId && s.appPassword);

/** Everything the Teams adapter works with, over the core and Teams' own tables (`overrides`: tests point it at a stand-in). */
export function createTeamsRuntime(
  core: SurfaceCore,
  state: TeamsState,
  overrides: Partial<TeamsSettings> = {},
): TeamsRuntime {
  const settings = teamsSettings(core.config, overrides);
  const logger = core.logger.child({ surface: TEAMS.surface });
  let adapter: DurableCloudAdapter | null = null;
  if (teamsConfigured(settings)) {
    adapter = new DurableCloudAdapter(createAuthentication(settings), settings.appId!);
    // Reached only when a turn's logic throws past its own guard; the person is not told twice.
    adapter.onTurnError = async (_context, error) => {
      logger.error({ err: loggable(error) }, 'a Teams turn failed');
    };
  }
  return {
    core,
    settings,
    logger,
    adapter,
    users: state.users,
    references: state.references,
    // 50 ms wider windows: Teams counts posts as they arrive, and network jitter must not push two into one window.
    pacer: new Pacer(settings.limits, { marginMs: 50 }),
  };
}

/** The workspace a tenant is connected to; null when it is not (yet). */
export async function workspaceOfTenant(rt: TeamsRuntime, tenantId: string): Promise<Workspace | null> {
  const id = await rt.core.tenants.workspaceOf(TEAMS.surface, tenantId);
  return id ? rt.core.orgs.findWorkspace(id) : null;
}
