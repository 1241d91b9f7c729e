// Which Bot Framework and Entra ID endpoints the bot trusts and gets its tokens
// from. Unset, the SDK keeps its public-cloud defaults; the MICROSOFT_* settings
// point it at a sovereign cloud (e.g. US Government) or a token authority on
// this machine, with no code change. docs/notes/teams-auth.md has the details.
import { ConfidentialClientApplication, type Configuration } from '@azure/msal-node';
import {
  AuthenticationConstants,
  GovernmentConstants,
  MsalServiceClientCredentialsFactory,
} from 'botframework-connector';
import type { Config } from '../../config.ts';

type TeamsConfig = Config['teams'];

const isSet = (t: TeamsConfig) =>
  Boolean(t.openIdMetadataUrl || t.entraOpenIdMetadataUrl || t.tokenIssuer || t.loginUrl || t.oauthScope);

/** The tenant the bot's own tokens come from: its own when single-tenant, the Bot Framework's otherwise. */
const authorityTenant = (t: TeamsConfig) => t.tenantId ?? AuthenticationConstants.DefaultChannelAuthTenant;

/**
 * The endpoint keys of ConfigurationBotFrameworkAuthentication, or undefined
 * when none is configured. Once one key is given the SDK uses exactly the keys
 * given and no default for the others, so every key is filled in here.
 */
export function botFrameworkEndpoints(t: TeamsConfig): Record<string, string | boolean> | undefined {
  if (!isSet(t)) return undefined;
  const issuer = t.tokenIssuer ?? AuthenticationConstants.ToBotFromChannelTokenIssuer;
  const government = issuer === GovernmentConstants.ToBotFromChannelTokenIssuer;
  return {
    ToBotFromChannelOpenIdMetadataUrl: t.openIdMetadataUrl ?? AuthenticationConstants.ToBotFromChannelOpenIdMetadataUrl,
    ToBotFromChannelTokenIssuer: issuer,
    ToBotFromEmulatorOpenIdMetadataUrl:
      t.entraOpenIdMetadataUrl ?? AuthenticationConstants.ToBotFromEmulatorOpenIdMetadataUrl,
    ToChannelFromBotLoginUrl: `${t.loginUrl ?? AuthenticationConstants.ToChannelFromBotLoginUrlPrefix.replace(/\/$/, '')}/${authorityTenant(t)}`,
    ToChannelFromBotOAuthScope: t.oauthScope ?? AuthenticationConstants.ToChannelFromBotOAuthScope,
    // Neither is used for authentication: callerId is copied onto activities, OAuthUrl serves user sign-in, which Switchboard does not use.
    CallerId: government ? 'urn:botframework:azureusgov' : 'urn:botframework:azure',
    OAuthUrl: government ? GovernmentConstants.OAuthUrl : AuthenticationConstants.OAuthUrl,
    ValidateAuthority: true,
  };
}

/**
 * MSAL's settings for the bot's client-credentials tokens from MICROSOFT_LOGIN_URL.
 * MSAL accepts only an https authority and looks unknown hosts up at
 * login.microsoftonline.com; naming the host as known skips that lookup, and
 * for a local http authority the endpoints are handed over directly.
 */
export function msalConfiguration(
  t: TeamsConfig & { loginUrl: string; appId: string; appPassword: string },
): Configuration {
  const tenant = authorityTenant(t);
  const login = new URL(t.loginUrl);
  const auth: Configuration['auth'] = {
    clientId: t.appId,
    clientSecret: t.appPassword,
    authority: `${t.loginUrl}/${tenant}`,
    knownAuthorities: [login.host],
  };
  if (login.protocol === 'http:') {
    // Only loopback gets here (config.ts refuses http elsewhere).
    const endpoint = (path: string) => `${t.loginUrl}/${tenant}/${path}`;
    auth.authority = `https://${login.host}/${tenant}`;
    auth.authorityMetadata = JSON.stringify({
      issuer: endpoint('v2.0'),
      token_endpoint: endpoint('oauth2/v2.0/token'),
      authorization_endpoint: endpoint('oauth2/v2.0/authorize'),
      end_session_endpoint: endpoint('oauth2/v2.0/logout'),
      jwks_uri: endpoint('discovery/v2.0/keys'),
    });
  }
  return { auth };
}

/** The bot's outgoing credentials from MICROSOFT_LOGIN_URL; undefined keeps the SDK's own (the public cloud's login). */
export function credentialsFactory(t: TeamsConfig) {
  if (!t.loginUrl || !t.appId || !t.appPassword) return undefined;
  const client = new ConfidentialClientApplication(
    msalConfiguration({ ...t, loginUrl: t.loginUrl, appId: t.appId, appPassword: t.appPassword }),
  );
  // The same class, typed twice: this module gets msal-node's ESM build, botframework-connector its CommonJS one.
  return new MsalServiceClientCredentialsFactory(
    t.appId,
    client as unknown as ConstructorParameters<typeof MsalServiceClientCredentialsFactory>[1],
  );
}
