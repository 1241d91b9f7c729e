import type { Logger } from 'pino';
import type { App } from '../../app-types.ts';
import type { ExternalIdentityRepo, TeamsReferenceRepo, TeamsUserRepo } from '../../core/surfaces/surface-ports.ts';
import type { Workspace } from '../../core/types.ts';
import { createAuthentication } from './auth.ts';
import { loggable } from './errors.ts';
import { runtimeOf } from '../shared/module.ts';
import { Pacer } from '../../core/delivery/pacer.ts';
import { DurableCloudAdapter } from './receiver.ts';
import { teamsSettings, type TeamsSettings } from './settings.ts';

/** Teams' surface name and its name in sentences, as every port it registers with the core carries them. */
export const TEAMS = { surface: 'teams', label: 'Teams' } as const;

/** Everything the Teams adapter works with, built once per running App. */
export interface TeamsRuntime {
  app: App;
  settings: TeamsSettings;
  logger: Logger;
  /** botbuilder's CloudAdapter with the SDK's authentication; null when Teams is not configured. */
  adapter: DurableCloudAdapter | null;
  users: TeamsUserRepo;
  references: TeamsReferenceRepo;
  identities: ExternalIdentityRepo;
  /** Keeps every Teams window per conversation. */
  pacer: Pacer;
}

/** True when MICROSOFT_APP_ID and MICROSOFT_APP_PASSWORD are set. */
export const teamsConfigured = (s: TeamsSettings) => Boolean(s.appId && s.appPassword);

/** The Teams runtime createApp built for `app`; refused when Teams is not configured in this process. */
export const teamsRuntime = (app: App): TeamsRuntime =>
  runtimeOf(
    app,
    'teams',
    'Teams is not configured in this process: set MICROSOFT_APP_ID and MICROSOFT_APP_PASSWORD, then start it again.',
  );

/** Everything the Teams adapter works with; built once by createApp (`overrides`: tests point it at a stand-in). */
export function createTeamsRuntime(app: App, overrides: Partial<TeamsSettings> = {}): TeamsRuntime {
  const settings = teamsSettings(app.config, overrides);
  const logger = app.logger.child({ surface: 'teams' });
  let adapter: DurableCloudAdapter | null = null;
  if (teamsConfigured(settings)) {
    adapter = new DurableCloudAdapter(createAuthentication(settings), settings.appId!);
    // Reached only when a turn's logic throws past its own guard; the person is not told twice.
    adapter.onTurnError = async (_context, error) => {
      logger.error({ err: loggable(error) }, 'a Teams turn failed');
    };
  }
  const rt: TeamsRuntime = {
    app,
    settings,
    logger,
    adapter,
    users: app.store.teamsUsers,
    references: app.store.teamsReferences,
    identities: app.store.identities,
    // 50 ms wider windows: Teams counts posts as they arrive, and network jitter must not push two into one window.
    pacer: new Pacer(settings.limits, { marginMs: 50 }),
  };
  return rt;
}

/** The workspace a tenant is connected to; null when it is not (yet). */
export async function workspaceOfTenant(rt: TeamsRuntime, tenantId: string): Promise<Workspace | null> {
  const id = await rt.app.store.tenants.workspaceOf('teams', tenantId);
  return id ? rt.app.store.workspaces.get(id) : null;
}
