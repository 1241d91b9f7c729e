import type { Logger } from 'pino';
import type { App } from '../../app-types.ts';
import type { Workspace } from '../../core/types.ts';
import type { ExternalIdentityRepo, SlackInstallation } from '../../core/surfaces/surface-ports.ts';
import { createSecretBox, type SecretBox } from '../../infra/secrets/secret-box.ts';
import { runtimeOf } from '../shared/module.ts';
import { ChannelNames } from './channel-names.ts';
import { clientOptions, SlackClients } from './clients.ts';
import { SlackInstallations } from './installations.ts';
import { Pacer } from '../../core/delivery/pacer.ts';
import { SlackPermalinks } from './permalinks.ts';
import { slackSettings, type SlackSettings } from './settings.ts';

/** Slack's surface name and its name in sentences, as every port it registers with the core carries them. */
export const SLACK = { surface: 'slack', label: 'Slack' } as const;

/** Everything the Slack adapter works with, built once per running App. */
export interface SlackRuntime {
  app: App;
  settings: SlackSettings;
  logger: Logger;
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

/** The Slack runtime createApp built for `app`; refused when Slack is not configured in this process. */
export const slackRuntime = (app: App): SlackRuntime =>
  runtimeOf(
    app,
    'slack',
    'Slack is not configured in this process: set SLACK_SIGNING_SECRET and SLACK_BOT_TOKEN (or SLACK_CLIENT_ID and SLACK_CLIENT_SECRET), then start it again.',
  );

/** Everything the Slack adapter works with; built once by createApp (`overrides`: tests shorten pacing). */
export function createSlackRuntime(app: App, overrides: Partial<SlackSettings> = {}): SlackRuntime {
  const settings = slackSettings(app.config, overrides);
  const logger = app.logger.child({ surface: 'slack' });
  const box = createSecretBox(app.secret);
  const rt: SlackRuntime = {
    app,
    settings,
    logger,
    box,
    installations: new SlackInstallations(app.store.slackInstallations, box, settings.envBotToken),
    identities: app.store.identities,
    clients: new SlackClients(clientOptions(settings, logger)),
    pacer: new Pacer([{ max: 1, perMs: settings.paceMs }]),
    channelNames: new ChannelNames(logger, () => app.clock.now().getTime()),
    permalinks: new SlackPermalinks(logger),
  };
  return rt;
}

/** The install for a team and the workspace it is connected to (null when not connected yet). */
export async function workspaceOf(
  rt: SlackRuntime,
  teamId: string,
): Promise<{ installation: SlackInstallation; workspace: Workspace | null } | null> {
  const installation = await rt.installations.get(teamId);
  if (!installation) return null;
  const workspace = installation.workspaceId ? await rt.app.store.workspaces.get(installation.workspaceId) : null;
  return { installation, workspace };
}
