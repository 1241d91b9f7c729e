import type { ServiceClientCredentialsFactory } from 'botframework-connector';
import type { Config } from '../../config.ts';
import { botFrameworkEndpoints, credentialsFactory } from './cloud.ts';
import type { PaceWindow } from '../../core/delivery/pacer.ts';

/** Teams' limits for a bot posting into one conversation. */
export const TEAMS_LIMITS: PaceWindow[] = [
  { max: 7, perMs: 1_000 },
  { max: 8, perMs: 2_000 },
  { max: 60, perMs: 30_000 },
  { max: 1_800, perMs: 3_600_000 },
];

/** What the Teams adapter needs from the configuration, parsed once at the composition root. */
export interface TeamsSettings {
  /** MICROSOFT_APP_ID: the bot's Entra ID app (client) id; without it no Teams route is mounted. */
  appId?: string;
  /** MICROSOFT_APP_PASSWORD: a client secret of that app registration. */
  appPassword?: string;
  /** MICROSOFT_APP_TENANT_ID: set for a single-tenant bot; unset for a multi-tenant one. */
  tenantId?: string;
  /** PUBLIC_URL, for links people open (sign-in, account linking). */
  publicUrl: string;
  /**
   * Settings merged over the ConfigurationBotFrameworkAuthentication config:
   * the endpoints from the MICROSOFT_* settings (cloud.ts), when any is set.
   */
  authConfig?: Record<string, string | boolean>;
  /** Where the bot's outgoing tokens come from: MICROSOFT_LOGIN_URL's authority when set, else the SDK's own (public cloud). */
  credentialsFactory?: ServiceClientCredentialsFactory;
  /** Posts allowed into one conversation per time window (Teams' documented limits by default). */
  limits: PaceWindow[];
  /** How long a user's Teams profile (name, e-mail) is trusted before it is read again. */
  profileTtlMs: number;
  /**
   * How long an agent's answer streams natively in a personal chat before it goes on as a message kept up to date:
   * Teams ends a stream two minutes after it began (403 "Content stream finished due to exceeded streaming time").
   */
  streamSettleMs: number;
}

export function teamsSettings(config: Config, overrides: Partial<TeamsSettings> = {}): TeamsSettings {
  return {
    appId: config.teams.appId,
    appPassword: config.teams.appPassword,
    tenantId: config.teams.tenantId,
    publicUrl: config.publicUrl,
    authConfig: botFrameworkEndpoints(config.teams),
    credentialsFactory: credentialsFactory(config.teams),
    limits: TEAMS_LIMITS,
    profileTtlMs: 60 * 60_000,
    streamSettleMs: 100_000,
    ...overrides,
  };
}
