// `switchboard slack connect WORKSPACE --team-id T [--bot-token xoxb-…]`:
// maps a Slack team to a workspace (one team, one workspace). The token is the
// one given, else the one an OAuth install stored, else SLACK_BOT_TOKEN; it is
// checked with auth.test before anything is saved. The CLI finds the runtime
// through the app's built surfaces (src/app-surfaces.ts).
import { invalidInput, SwitchboardError } from '../../core/errors.ts';
import type { SlackInstallation } from './installation-repo.ts';
import type { Workspace } from '../../core/entities.ts';
import { classifySlackError } from './errors.ts';
import type { SlackRuntime } from './runtime.ts';

export interface ConnectInput {
  workspace: string;
  teamId: string;
  botToken?: string;
}

export interface ConnectResult {
  workspace: Workspace;
  installation: SlackInstallation;
  /** Where the token comes from. */
  token: 'given' | 'stored' | 'environment';
}

export async function connectSlackTeam(rt: SlackRuntime, input: ConnectInput): Promise<ConnectResult> {
  if (!/^T[A-Z0-9]+$/.test(input.teamId))
    throw invalidInput(
      `"${input.teamId}" is not a Slack team id; it starts with T, e.g. T012AB3CD (auth.test or the workspace's URL settings show it).`,
    );
  if (input.botToken !== undefined && !input.botToken.startsWith('xoxb-')) {
    throw invalidInput(
      '--bot-token must be a bot token starting with xoxb- (your Slack app\'s "OAuth & Permissions" page shows it).',
    );
  }
  const workspace = await rt.core.orgs.workspace(input.workspace);
  const stored = input.botToken ? null : await rt.installations.credentials(input.teamId).catch(() => null);
  const token =
    input.botToken ?? (stored?.installation.hasOwnToken ? stored.token : undefined) ?? rt.settings.envBotToken;
  if (!token) {
    throw invalidInput(
      `There is no bot token for the Slack team ${input.teamId}: pass --bot-token xoxb-…, set SLACK_BOT_TOKEN, or install the app through ${rt.core.config.publicUrl}/slack/install first.`,
    );
  }
  let who;
  try {
    who = await rt.clients.for(token).auth.test();
  } catch (e) {
    const failure = classifySlackError(e);
    if (failure.kind === 'permanent') throw invalidInput(`Slack does not accept that bot token: ${failure.reason}.`);
    throw new SwitchboardError(
      'UNAVAILABLE',
      `Could not check the token with Slack (${failure.reason}); check the network or SLACK_API_URL and try again.`,
    );
  }
  if (who.team_id !== input.teamId) {
    throw invalidInput(
      `That bot token belongs to the Slack team ${who.team_id} (${who.team}), not ${input.teamId}; use the token of the app installed in ${input.teamId}.`,
    );
  }
  const scopes = who.response_metadata?.scopes?.join(',') ?? stored?.installation.scopes ?? '';
  const installation = await rt.installations.save(
    {
      teamId: input.teamId,
      teamName: who.team ?? '',
      botUserId: who.user_id!,
      botId: who.bot_id ?? stored?.installation.botId ?? '',
      appId: stored?.installation.appId ?? null,
      scopes,
      installedBy: stored?.installation.installedBy ?? null,
      enterpriseId: who.enterprise_id || null,
      workspaceId: workspace.id,
    },
    input.botToken ?? null,
  );
  return {
    workspace,
    installation,
    token: input.botToken ? 'given' : installation.hasOwnToken ? 'stored' : 'environment',
  };
}
