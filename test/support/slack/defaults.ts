// One fake workspace shared by the Web API stand-in and the signed-request
// builders, so an event built here names the same team, bot and app the
// stand-in answers for unless a test says otherwise.

/** The workspace, app and bot the Slack stand-in pretends to be by default. */
export const SLACK_DEFAULTS = {
  teamId: 'T0SWBOARD',
  teamName: 'Switchboard Test',
  teamDomain: 'switchboard-test',
  appId: 'A0SWBOARD',
  botUserId: 'U0SWBOT01',
  botId: 'B0SWBOT01',
  botName: 'switchboard',
  botToken: 'xoxb-1000000001-2000000002-standinbottoken',
  /** The app-level token Socket Mode connects with. */
  appToken: 'xapp-1-A0SWBOARD-3000000004-standinapptoken',
  clientId: '1000000001.3000000003',
  clientSecret: 'standin-client-secret',
  signingSecret: 'standin-signing-secret',
  /** The deprecated verification token Slack still puts in every payload. */
  verificationToken: 'standinverificationtoken',
} as const;

/**
 * The DM channel id the stand-in gives the conversation between the bot and a
 * user. Deterministic so a test can build a `message.im` event for the same DM
 * the adapter opened with conversations.open.
 */
export function dmChannelId(userId: string): string {
  return `D${userId.slice(1)}`;
}

/** `https://<domain>.slack.com/` as auth.test reports it. */
export function workspaceUrl(teamDomain: string): string {
  return `https://${teamDomain}.slack.com/`;
}
