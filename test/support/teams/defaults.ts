// One fake Teams tenant shared by the Bot Framework stand-in and the activity
// builders, so an activity built here names the same bot, tenant, team and
// people the stand-in answers for unless a test says otherwise. Ids follow the
// formats Teams really uses: `28:<app id>` for the bot, `29:…` for users,
// `19:…@thread.tacv2` for teams and channels, `a:…` for personal chats.

export interface TeamsUserSeed {
  /** The Bot Framework user id (`29:…`), stable per user and per bot. */
  id: string;
  name: string;
  /** The Entra ID (AAD) object id: the identity Switchboard links. */
  aadObjectId: string;
  email: string;
  givenName: string;
  surname: string;
}

/** The app, tenant, team and people the Teams stand-in pretends to be by default. */
export const TEAMS_DEFAULTS = {
  appId: '5f2d6a1c-0b7e-4c39-9a51-2e8f3d4c6b70',
  appPassword: 'standin-app-password',
  tenantId: '8c1e4b2a-6d3f-4e5a-b7c8-9d0e1f2a3b4c',
  botName: 'Switchboard',
  teamId: '19:Qw3rTyU1oP4sD5fG6hJ7kL8zX9cV0bN1mQ2wE3rT4yU1@thread.tacv2',
  teamName: 'Switchboard Test',
  teamAadGroupId: 'b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e',
  /** The General channel of a team has the team's id. */
  generalChannelId: '19:Qw3rTyU1oP4sD5fG6hJ7kL8zX9cV0bN1mQ2wE3rT4yU1@thread.tacv2',
  channelId: '19:6848757105754c8981c67612732d9aa7@thread.tacv2',
  channelName: 'reviews',
  groupChatId: '19:meeting_NjY0ZTc0OGUtYjA2Ny00ZWQxLWEzYjktNTU1YzRmOWI4OTkz@thread.v2',
  /** The Bot Connector region Teams sends in `serviceUrl` (the stand-in serves it under its own origin). */
  serviceUrlPath: '/teams/',
  users: {
    alice: {
      id: '29:1AliceStandinUserIdXq2Vb7Nm4Kp9Lw3Rt6Yz8Hc5Jd1Fg0Sa',
      name: 'Alice Martin',
      aadObjectId: 'a11ce000-4b1d-4c2e-9f3a-5b6c7d8e9f01',
      email: 'alice@switchboard.test',
      givenName: 'Alice',
      surname: 'Martin',
    },
    bob: {
      id: '29:1BobStandinUserIdTq8Wn3Mz6Xc1Vb5Kl9Pj2Hd7Gf4Sa0Re',
      name: 'Bob Okafor',
      aadObjectId: 'b0b00000-7c2d-4e3f-8a9b-0c1d2e3f4a52',
      email: 'bob@switchboard.test',
      givenName: 'Bob',
      surname: 'Okafor',
    },
  } satisfies Record<string, TeamsUserSeed>,
} as const;

/** The bot's account id in Teams: `28:` followed by the app id. */
export function botAccountId(appId: string): string {
  return `28:${appId}`;
}

/** The id of a reply chain (thread) in a channel: the channel id plus the root message id. */
export function threadConversationId(channelId: string, rootMessageId: string): string {
  return `${channelId};messageid=${rootMessageId}`;
}

/** A deterministic personal (1:1) conversation id between the bot and a user, shaped like Teams' `a:…` ids. */
export function personalConversationId(userId: string, appId: string): string {
  const seed = Buffer.from(`${appId}|${userId}`).toString('base64url');
  return `a:1${seed}`;
}
