import type { Config } from '../../config.ts';

/** What the Slack adapter needs from the configuration, parsed once at the composition root. */
export interface SlackSettings {
  /** Slack's signing secret; checks the requests Slack sends over HTTP (not needed in Socket Mode). */
  signingSecret?: string;
  /** Socket Mode's app-level token (SLACK_APP_TOKEN): set, requests arrive over outgoing WebSockets, not HTTP. */
  appToken?: string;
  /** The single-workspace bot token (SLACK_BOT_TOKEN), used by installs connected without a token of their own. */
  envBotToken?: string;
  /** OAuth client credentials; both set enables `/slack/install` and `/slack/oauth_redirect`. */
  clientId?: string;
  clientSecret?: string;
  /** Web API base URL (SLACK_API_URL), for tests and proxies; Slack's own when unset. */
  apiUrl?: string;
  /** The slash command, e.g. `/switchboard`. */
  command: string;
  /** PUBLIC_URL: where Slack reaches this server (OAuth redirect URL). */
  publicUrl: string;
  /** The least time between two posts into one channel (Slack allows about one message a second per channel). */
  paceMs: number;
  /** How long a user's profile from users.info is trusted before it is read again. */
  profileTtlMs: number;
  /** Web API call timeout. */
  timeoutMs: number;
  /**
   * How long an agent's answer streams natively (chat.startStream) before it goes on as a post kept up to date:
   * Slack ends a stream about five minutes after it began or was last added to (message_not_in_streaming_state).
   */
  streamSettleMs: number;
}

/**
 * Bot scopes the OAuth install asks for (the same as manifests/slack.yaml). The
 * `*:history` scopes carry thread replies in channels, private channels and
 * group DMs (message.channels/groups/mpim), so follow-ups reach agents without a
 * second mention; `mpim:read` lists a group DM's members for its audience;
 * `links:read` and `links:write` preview links to Switchboard (link_shared, chat.unfurl).
 */
export const BOT_SCOPES = [
  'app_mentions:read',
  'channels:history',
  'channels:read',
  'groups:history',
  'groups:read',
  'chat:write',
  'chat:write.customize',
  'commands',
  'im:history',
  'im:read',
  'im:write',
  'mpim:history',
  'mpim:read',
  'users:read',
  'users:read.email',
  'assistant:write',
  'reactions:read',
  'reactions:write',
  'links:read',
  'links:write',
];

export function slackSettings(config: Config, overrides: Partial<SlackSettings> = {}): SlackSettings {
  return {
    signingSecret: config.slack.signingSecret,
    appToken: config.slack.appToken,
    envBotToken: config.slack.botToken,
    clientId: config.slack.clientId,
    clientSecret: config.slack.clientSecret,
    apiUrl: config.slack.apiUrl,
    command: config.slack.command,
    publicUrl: config.publicUrl,
    paceMs: 1_000,
    profileTtlMs: 60 * 60_000,
    timeoutMs: 10_000,
    streamSettleMs: 4 * 60_000,
    ...overrides,
  };
}
