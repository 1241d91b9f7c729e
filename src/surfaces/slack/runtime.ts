import type { Logger } from 'pino';
import { Pacer } from '../../core/delivery/pacer.ts';
import type { ExternalIdentityRepo } from '../../core/surfaces/surface-ports.ts';
import type { Workspace } from '../../core/entities.ts';
import type { SecretBox } from '../../infra/secrets/secret-box.ts';
import type { SurfaceCore } from '../contract.ts';
import { ChannelNames } from './channel-names.ts';
import { clientOptions, SlackClients } from './clients.ts';
import type { SlackInstallation, SlackState } from './installation-repo.ts';
import { SlackInstallations } from './installations.ts';
import { SlackPermalinks } from './permalinks.ts';
import { type SlackSettings, slackSettings } from './settings.ts';

/** Slack's surface name and its name in sentences, as every port it registers with the core carries them. */
export const SLACK = { surface: 'slack', label: 'Slack' } as const;

/** Everything the Slack adapter works with, built once per process by the surface's factory. */
export interface SlackRuntime {
  /** The core services and ports the surface may use (never the App or the store). */
  core: SurfaceCore;
  settings: SlackSettings;
  logger: Logger;
  /** The core's secret box: seals bot tokens, signs OAuth state. */
  box: SecretBox;
  installations: SlackInstallations;
  identities: ExternalIdentityRepo;
  clients: SlackClients;
  /** Spaces posts per channel (Slack allows about one a second). */
  pacer: Pacer;
  /** Names of channels people refer to without a label, kept for a while. */
  channelNames: ChannelNames;
  /** Links to people's messages, built from each team's URL. */
  permalinks: SlackPermalinks;
}

/** Everything the Slack adapter works with, from the core and the surface's own tables (`overrides`: tests shorten pacing). */
export function createSlackRuntime(
  core: SurfaceCore,
  state: SlackState,
  overrides: Partial<SlackSettings> = {},
): SlackRuntime {
  const settings = slackSettings(core.config, overrides);
  const logger = core.logger.child({ surface: 'slack' });
  return {
    core,
    settings,
    logger,
    box: core.secrets,
    installations: new SlackInstallations(state.installations, core.secrets, settings.envBotToken),
    identities: core.identities,
    clients: new SlackClients(clientOptions(settings, logger)),
    pacer: new Pacer([{ max: 1, perMs: settings.paceMs }]),
    channelNames: new ChannelNames(logger, () => core.clock.now().getTime()),
    permalinks: new SlackPermalinks(logger),
  };
}

/** The install for a team and the workspace it is connected to (null when not connected yet). */
export async function workspaceOf(
  rt: SlackRuntime,
  teamId: string,
): Promise<{ installation: SlackInstallation; workspace: Workspace | null } | null> {
  const installation = await rt.installations.get(teamId);
  if (!installation) return null;
  const workspace = installation.workspaceId ? await rt.core.orgs.findWorkspace(installation.workspaceId) : null;
  return { installation, workspace };
}
