// Bot Framework authentication, the SDK's own: ConfigurationBotFrameworkAuthentication
// checks every incoming token (issuer, signing key from the published OpenID
// metadata, the key's endorsement for the activity's channel, audience = our app id, serviceUrl claim)
// and gets the bot's outgoing tokens (single- or multi-tenant). The only
// addition is that every bad token is answered 401; see docs/notes/teams-auth.md.
import {
  ConfigurationBotFrameworkAuthentication,
  type ConfigurationBotFrameworkAuthenticationOptions,
} from 'botbuilder';
import { AuthenticationError, BotFrameworkAuthentication, type ClaimsIdentity } from 'botframework-connector';
import type { Activity } from 'botbuilder';
import type { TeamsSettings } from './settings.ts';

/** jsonwebtoken's errors, which the SDK lets through as they are (CloudAdapter would answer them 500). */
const TOKEN_ERRORS = new Set(['JsonWebTokenError', 'NotBeforeError', 'TokenExpiredError']);

/** The algorithms Bot Framework signs with (the SDK accepts no others); anything else is refused before a key is fetched. */
const SIGNING_ALGORITHMS = new Set(['RS256', 'RS384', 'RS512']);

/**
 * Why a bearer token cannot be one Bot Framework issued, read from its header alone: unsigned (`alg: none`), signed
 * with a shared secret (`HS256`), naming no key, or not a JWT at all; null when it may be, and the SDK checks it.
 */
export function unsignedTokenRefusal(authHeader: string): string | null {
  const token = /^Bearer\s+(\S+)$/i.exec(authHeader.trim())?.[1];
  if (!token) return null; // The SDK answers a missing or non-bearer header itself.
  let header: { alg?: unknown; kid?: unknown };
  try {
    header = JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString('utf8'));
  } catch {
    return 'the token is not a JWT';
  }
  if (typeof header.alg !== 'string' || !SIGNING_ALGORITHMS.has(header.alg))
    return `the token is signed with ${JSON.stringify(header.alg ?? null)}, not an algorithm Bot Framework signs with`;
  if (typeof header.kid !== 'string' || !header.kid) return 'the token names no signing key';
  return null;
}

function refuse(error: unknown): never {
  if (error instanceof Error && TOKEN_ERRORS.has(error.name))
    throw new AuthenticationError(`Unauthorized: ${error.message}`, 401);
  throw error;
}

/**
 * Delegates everything to the SDK's authentication and only turns a token the
 * SDK rejected with a jsonwebtoken error (a forged signature under a published
 * key id, a token not valid yet, a malformed one) into an AuthenticationError,
 * which CloudAdapter answers 401 instead of 500; a token whose header says it
 * cannot be Bot Framework's (`alg: none`, `HS256`, no key id) is refused the same
 * way before any signing key is fetched, so it never reads as an outage (503).
 */
export class RefuseBadTokensWith401 extends BotFrameworkAuthentication {
  constructor(private readonly inner: BotFrameworkAuthentication) {
    super();
  }
  override authenticateRequest(activity: Activity, authHeader: string) {
    const refusal = unsignedTokenRefusal(authHeader);
    if (refusal) return Promise.reject(new AuthenticationError(`Unauthorized: ${refusal}`, 401));
    return this.inner.authenticateRequest(activity, authHeader).catch(refuse);
  }
  override authenticateStreamingRequest(authHeader: string, channelIdHeader: string) {
    return this.inner.authenticateStreamingRequest(authHeader, channelIdHeader).catch(refuse);
  }
  override authenticateChannelRequest(authHeader: string) {
    return this.inner.authenticateChannelRequest(authHeader).catch(refuse);
  }
  override createConnectorFactory(claimsIdentity: ClaimsIdentity) {
    return this.inner.createConnectorFactory(claimsIdentity);
  }
  override createUserTokenClient(claimsIdentity: ClaimsIdentity) {
    return this.inner.createUserTokenClient(claimsIdentity);
  }
  override createBotFrameworkClient() {
    return this.inner.createBotFrameworkClient();
  }
  override getOriginatingAudience() {
    return this.inner.getOriginatingAudience();
  }
}

/**
 * The SDK configuration for this bot: its app id and secret, and
 * `SingleTenant` with the tenant id when MICROSOFT_APP_TENANT_ID is set,
 * `MultiTenant` otherwise; then whatever `settings.authConfig` overrides.
 */
export function authenticationConfig(settings: TeamsSettings): ConfigurationBotFrameworkAuthenticationOptions {
  if (!settings.appId || !settings.appPassword) {
    // An empty app id switches the SDK's authentication off altogether; never build that.
    throw new Error('Teams needs MICROSOFT_APP_ID and MICROSOFT_APP_PASSWORD to authenticate requests.');
  }
  return {
    MicrosoftAppId: settings.appId,
    MicrosoftAppPassword: settings.appPassword,
    MicrosoftAppType: settings.tenantId ? 'SingleTenant' : 'MultiTenant',
    MicrosoftAppTenantId: settings.tenantId ?? '',
    ...settings.authConfig,
  };
}

/** The authentication CloudAdapter runs with. */
export function createAuthentication(settings: TeamsSettings): BotFrameworkAuthentication {
  return new RefuseBadTokensWith401(
    new ConfigurationBotFrameworkAuthentication(authenticationConfig(settings), settings.credentialsFactory),
  );
}
