// The two identity services a Teams bot talks to, as the SDK sees them:
//
// - The Bot Framework channel's OpenID metadata and signing keys, which sign
//   every activity Teams POSTs to the bot (iss https://api.botframework.com,
//   aud = the bot's app id, a `serviceurl` claim, keys endorsed for `msteams`).
// - Entra ID's client-credentials token endpoint, where the bot trades its app
//   id and secret for the access token it sends to the Bot Connector.
//
// The Entra key is one per process, not per stand-in: botframework-connector
// caches access tokens process-wide by app id and scope (AppCredentials.cache),
// so a token issued by an earlier stand-in in the same test file must still be
// accepted by a later one with the same app id. The channel's signing key (and
// the forger's) are one per process too: an RSA key costs 50-500 ms of CPU to
// make, and some files start a stand-in per test. The SDK still fetches each
// stand-in's keys afresh, since its metadata URL carries the stand-in's nonce.
import { randomUUID } from 'node:crypto';
import { generateSigningKey, publicJwk, signJwt, verifyJwt, type JwtClaims, type SigningKey } from './jwt.ts';

/** The issuer of tokens the Bot Framework channel sends to bots (AuthenticationConstants.ToBotFromChannelTokenIssuer). */
export const BOT_FRAMEWORK_ISSUER = 'https://api.botframework.com';
/** The scope (resource) a bot asks Entra ID for to call the Bot Connector (AuthenticationConstants.ToChannelFromBotOAuthScope). */
export const BOT_CONNECTOR_SCOPE = 'https://api.botframework.com';
/** The tenant a multi-tenant bot gets its tokens from (AuthenticationConstants.DefaultChannelAuthTenant). */
export const MULTI_TENANT_AUTHORITY_TENANT = 'botframework.com';
/** The SDK accepts a token up to this long after `exp` (ChannelValidation clockTolerance, 5 minutes). */
export const SDK_CLOCK_TOLERANCE_SECONDS = 300;

let entraKey: SigningKey | undefined;
function entraSigningKey(): SigningKey {
  entraKey ??= generateSigningKey();
  return entraKey;
}
let sharedChannelKey: SigningKey | undefined;
let sharedForgeryKey: SigningKey | undefined;

export interface ActivityTokenOptions {
  /** Must equal the activity's `serviceUrl`, or the SDK refuses the request. */
  serviceUrl: string;
  /** `aud`; default the bot's app id. */
  audience?: string;
  /** `iss`; default https://api.botframework.com. */
  issuer?: string;
  /** Expired beyond the SDK's 5-minute clock tolerance (exp ten minutes ago). */
  expired?: boolean;
  /** Signed with a key the metadata does not publish, under the published key id: a forgery. */
  wrongKey?: boolean;
  /** The `kid` header; default the published key's id. */
  kid?: string;
  /** Claims to add or override (e.g. `{ serviceurl: undefined }` to drop one). */
  claims?: JwtClaims;
}

export class ChannelIdentity {
  /** Signs what Teams sends the bot; published with the endorsements. */
  readonly channelKey = (sharedChannelKey ??= generateSigningKey());

  constructor(
    private readonly appId: string,
    readonly endorsements: string[],
  ) {}

  /** The Bot Framework's OpenID configuration document (shape of login.botframework.com's). */
  channelMetadata(jwksUri: string) {
    return {
      issuer: BOT_FRAMEWORK_ISSUER,
      authorization_endpoint: 'https://invalid.botframework.com',
      jwks_uri: jwksUri,
      id_token_signing_alg_values_supported: ['RS256'],
      token_endpoint_auth_methods_supported: ['private_key_jwt'],
    };
  }

  channelKeys() {
    return { keys: [publicJwk(this.channelKey, this.endorsements)] };
  }

  /** Entra ID's v2 OpenID configuration (what the SDK's emulator/skill path and MSAL read). */
  entraMetadata(origin: string, tenant: string, jwksUri: string) {
    return {
      issuer: `https://login.microsoftonline.com/${tenant}/v2.0`,
      authorization_endpoint: `${origin}/${tenant}/oauth2/v2.0/authorize`,
      token_endpoint: `${origin}/${tenant}/oauth2/v2.0/token`,
      end_session_endpoint: `${origin}/${tenant}/oauth2/v2.0/logout`,
      jwks_uri: jwksUri,
      response_types_supported: ['code', 'id_token', 'code id_token', 'id_token token'],
      id_token_signing_alg_values_supported: ['RS256'],
    };
  }

  entraKeys() {
    return { keys: [publicJwk(entraSigningKey())] };
  }

  /** A JWT for an incoming activity, as the Bot Framework channel signs it. */
  signActivityToken(options: ActivityTokenOptions): string {
    const now = Math.floor(Date.now() / 1000);
    const times = options.expired
      ? { nbf: now - 7200, exp: now - 2 * SDK_CLOCK_TOLERANCE_SECONDS }
      : { nbf: now - 300, exp: now + 3600 };
    const claims: JwtClaims = {
      serviceurl: options.serviceUrl,
      ...times,
      iss: options.issuer ?? BOT_FRAMEWORK_ISSUER,
      aud: options.audience ?? this.appId,
      ...options.claims,
    };
    for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
    const key = options.wrongKey ? (sharedForgeryKey ??= generateSigningKey()) : this.channelKey;
    return signJwt(claims, key, { kid: options.kid ?? this.channelKey.kid });
  }

  /** An Entra ID v1 access token for the Bot Connector, as the client-credentials grant returns it. */
  issueAccessToken(tenant: string, scope: string, lifetimeSeconds: number): string {
    const now = Math.floor(Date.now() / 1000);
    const tid = tenant === MULTI_TENANT_AUTHORITY_TENANT ? 'd6d49420-f39b-4df7-a1dc-d59a935871db' : tenant;
    return signJwt(
      {
        aud: scope,
        iss: `https://sts.windows.net/${tid}/`,
        iat: now,
        nbf: now - 300,
        exp: now + lifetimeSeconds,
        appid: this.appId,
        appidacr: '1',
        idp: `https://sts.windows.net/${tid}/`,
        tid,
        ver: '1.0',
        uti: randomUUID(),
      },
      entraSigningKey(),
    );
  }

  /** Checks a Bot Connector bearer token: Entra-signed, unexpired, for `scope`, issued to this app. */
  checkAccessToken(
    authorization: string | undefined,
    scope: string,
  ): { ok: true; appId: string } | { ok: false; reason: string } {
    const match = /^Bearer (\S+)$/.exec(authorization ?? '');
    if (!match) return { ok: false, reason: 'missing bearer token' };
    const checked = verifyJwt(match[1]!, entraSigningKey());
    if (!checked.ok) return checked;
    if (checked.claims.aud !== scope)
      return { ok: false, reason: `token audience ${String(checked.claims.aud)} is not ${scope}` };
    if (checked.claims.appid !== this.appId)
      return { ok: false, reason: `token was issued to ${String(checked.claims.appid)}` };
    return { ok: true, appId: this.appId };
  }
}
