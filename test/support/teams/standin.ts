// A local stand-in for everything a Teams bot built on botbuilder's CloudAdapter
// talks to, on one 127.0.0.1 port, so tests keep the SDK's real authentication
// in the path (never disabled):
//
//   /bf/<nonce>/v1/.well-known/openidconfiguration   Bot Framework OpenID metadata (ToBotFromChannelOpenIdMetadataUrl)
//   /bf/<nonce>/v1/.well-known/keys                  its JWKS, keys endorsed for `msteams`
//   /aad/<nonce>/v2.0/.well-known/openid-configuration  Entra ID metadata (ToBotFromEmulatorOpenIdMetadataUrl)
//   /aad/<nonce>/discovery/v2.0/keys                 Entra ID's JWKS
//   POST /<tenant>/oauth2/v2.0/token                 client-credentials grant for the bot's outgoing calls
//   <any path>/v3/conversations…                     the Bot Connector REST API (serviceUrl = `${origin}/teams/`)
//
// The metadata paths carry a per-stand-in nonce because the SDK caches signing
// keys per metadata URL for 24 hours, process-wide: a later stand-in on a
// reused port must not inherit an earlier one's keys. docs/notes/teams-auth.md
// explains which SDK settings point where.
import { ConfidentialClientApplication, type Configuration } from '@azure/msal-node';
import { ConfigurationBotFrameworkAuthentication } from 'botbuilder';
import { MsalServiceClientCredentialsFactory } from 'botframework-connector';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse as parseQuery } from 'node:querystring';
import {
  ConnectorState,
  type ConnectorCall,
  type ConnectorFailure,
  type ConnectorOp,
  type WireActivity,
} from './connector.ts';
import { TEAMS_DEFAULTS, type TeamsUserSeed } from './defaults.ts';
import { heldAnswer, type HeldAnswer } from '../held-answer.ts';
import type { StreamState } from './streaming.ts';
import {
  BOT_CONNECTOR_SCOPE,
  BOT_FRAMEWORK_ISSUER,
  ChannelIdentity,
  MULTI_TENANT_AUTHORITY_TENANT,
  type ActivityTokenOptions,
} from './identity.ts';

export type { ConnectorCall, ConnectorFailure, ConnectorOp, WireActivity } from './connector.ts';
export type { StreamState } from './streaming.ts';
export type { ActivityTokenOptions } from './identity.ts';
export { BOT_CONNECTOR_SCOPE, BOT_FRAMEWORK_ISSUER, SDK_CLOCK_TOLERANCE_SECONDS } from './identity.ts';

export interface TeamsStandinOptions {
  /** The bot's Microsoft App ID (default TEAMS_DEFAULTS.appId). */
  appId?: string;
  /** The client secret the token endpoint accepts (default TEAMS_DEFAULTS.appPassword). */
  appPassword?: string;
  /** Set for a single-tenant bot: tokens come from this tenant. Unset: multi-tenant (botframework.com). */
  tenantId?: string;
  /** The tenant the people and conversations belong to (default tenantId, else TEAMS_DEFAULTS.tenantId). */
  userTenantId?: string;
  /** Endorsements on the channel signing key (default ['msteams']): the channel ids it may sign for. */
  endorsements?: string[];
  /** Members GET …/members returns for any conversation without its own list (default Alice and Bob). */
  members?: TeamsUserSeed[];
  /** How long after it began Teams ends a stream (default two minutes). */
  streamMaxMs?: number;
}

/** A client-credentials request the token endpoint received. */
export interface TokenRequest {
  tenant: string;
  clientId: string;
  scope: string;
  grantType: string;
  status: number;
  at: Date;
}

export interface TeamsStandin {
  /** http://127.0.0.1:PORT */
  origin: string;
  /** The Bot Connector base URL to put in activities' `serviceUrl`: `${origin}/teams/`. */
  serviceUrl: string;
  appId: string;
  appPassword: string;
  /** Single-tenant tenant id, or undefined for a multi-tenant bot. */
  tenantId: string | undefined;
  /** The tenant of the people and conversations. */
  userTenantId: string;
  /** ToBotFromChannelOpenIdMetadataUrl */
  openIdMetadataUrl: string;
  /** ToBotFromEmulatorOpenIdMetadataUrl (Entra ID's metadata). */
  entraMetadataUrl: string;
  /** Entra ID's JWKS (the key that signs the bot's access tokens). */
  entraKeysUrl: string;
  /** ToChannelFromBotLoginUrl: `${origin}/<tenantId or botframework.com>`. */
  loginUrl: string;
  /** Every Bot Connector call, in order, including refused and failed ones (see `status`). */
  calls: ConnectorCall[];
  /** Every token request, in order. */
  tokenRequests: TokenRequest[];
  /** Every HTTP request `METHOD path` the stand-in received (metadata fetches included). */
  requests: string[];
  /** Connector calls of one operation that succeeded (2xx). */
  delivered(op: ConnectorOp): ConnectorCall[];
  /** Makes the next call (or `failure.times` calls) to `op` fail. */
  failNext(op: ConnectorOp, failure: ConnectorFailure): void;
  /** Does the next call to `op` (a post is stored), then holds its answer until released: Teams is slow to answer. */
  holdNext(op: ConnectorOp): HeldAnswer<ConnectorCall>;
  /** Sets who GET …/members returns for a conversation. */
  setMembers(conversationId: string, members: TeamsUserSeed[]): void;
  /** Takes the bot off a channel's or chat's roster: calls there get 403 BotNotInConversationRoster. */
  removeBot(conversationId: string): void;
  /** The activity as last sent or updated by the bot. */
  activity(conversationId: string, activityId: string): WireActivity | undefined;
  /** The activities the bot posted in a conversation, as last written. */
  conversationActivities(conversationId: string): WireActivity[];
  /** A stream the bot sent in a personal chat (its updates, sequence, whether it ended); undefined when unknown. */
  stream(streamId: string): StreamState | undefined;
  /** The person presses Stop on a stream: Teams refuses its further updates and keeps what it showed. */
  stopStream(streamId: string): void;
  /** Moves the stand-in's clock on (streams run out of time) without waiting. */
  passTime(ms: number): void;
  /** A JWT for an incoming activity, as the Bot Framework channel signs it. */
  signActivityToken(options: ActivityTokenOptions): string;
  /** POSTs an activity to the bot as Teams does: JSON, with `Authorization: Bearer <token>` for its serviceUrl. */
  postActivity(botUrl: string, activity: WireActivity, options?: PostActivityOptions): Promise<BotResponse>;
  close(): Promise<void>;
}

export interface PostActivityOptions extends Partial<ActivityTokenOptions> {
  /** The exact Authorization header to send instead of a signed token; null sends none. */
  authorization?: string | null;
}

export interface BotResponse {
  status: number;
  /** Parsed JSON when the bot answered JSON, else the text (empty string for no body). */
  body: unknown;
}

/** Starts the stand-in on 127.0.0.1 with a random port. */
export async function startTeamsStandin(options: TeamsStandinOptions = {}): Promise<TeamsStandin> {
  const appId = options.appId ?? TEAMS_DEFAULTS.appId;
  const appPassword = options.appPassword ?? TEAMS_DEFAULTS.appPassword;
  const tenantId = options.tenantId;
  const userTenantId = options.userTenantId ?? tenantId ?? TEAMS_DEFAULTS.tenantId;
  const authorityTenant = tenantId ?? MULTI_TENANT_AUTHORITY_TENANT;
  const identity = new ChannelIdentity(appId, options.endorsements ?? ['msteams']);
  let clockOffsetMs = 0;
  const connector = new ConnectorState(
    appId,
    userTenantId,
    options.members ?? Object.values(TEAMS_DEFAULTS.users),
    () => Date.now() + clockOffsetMs,
  );
  if (options.streamMaxMs !== undefined) connector.streaming.maxMs = options.streamMaxMs;
  const nonce = randomBytes(6).toString('hex');
  const tokenRequests: TokenRequest[] = [];
  const requests: string[] = [];
  const holds = new Map<ConnectorOp, Array<{ reached: (c: ConnectorCall) => void; released: Promise<void> }>>();
  let origin = '';

  const paths = {
    bfMetadata: `/bf/${nonce}/v1/.well-known/openidconfiguration`,
    bfKeys: `/bf/${nonce}/v1/.well-known/keys`,
    entraMetadata: `/aad/${nonce}/v2.0/.well-known/openid-configuration`,
    entraKeys: `/aad/${nonce}/discovery/v2.0/keys`,
  };

  function token(tenant: string, form: Record<string, unknown>): { status: number; body: unknown } {
    const field = (name: string) => (typeof form[name] === 'string' ? (form[name] as string) : '');
    const request: TokenRequest = {
      tenant,
      clientId: field('client_id'),
      scope: field('scope'),
      grantType: field('grant_type'),
      status: 0,
      at: new Date(),
    };
    tokenRequests.push(request);
    const refuse = (status: number, error: string, code: number, description: string) => {
      request.status = status;
      return {
        status,
        body: {
          error,
          error_description: `AADSTS${code}: ${description}`,
          error_codes: [code],
          timestamp: new Date().toISOString(),
        },
      };
    };
    if (request.grantType !== 'client_credentials')
      return refuse(400, 'unsupported_grant_type', 70003, 'The app requested an unsupported grant type.');
    if (request.clientId !== appId || tenant !== authorityTenant) {
      return refuse(
        400,
        'unauthorized_client',
        700016,
        `Application with identifier '${request.clientId}' was not found in the directory '${tenant}'.`,
      );
    }
    if (field('client_secret') !== appPassword)
      return refuse(401, 'invalid_client', 7000215, 'Invalid client secret provided.');
    if (request.scope !== `${BOT_CONNECTOR_SCOPE}/.default`)
      return refuse(400, 'invalid_scope', 70011, `The provided value for scope ${request.scope} is not valid.`);
    request.status = 200;
    const lifetime = 3599;
    return {
      status: 200,
      body: {
        token_type: 'Bearer',
        expires_in: lifetime,
        ext_expires_in: lifetime,
        access_token: identity.issueAccessToken(tenant, BOT_CONNECTOR_SCOPE, lifetime),
      },
    };
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const url = new URL(req.url ?? '/', origin);
    const method = req.method ?? 'GET';
    requests.push(`${method} ${url.pathname}`);
    const send = (status: number, body?: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(
        status,
        body === undefined ? headers : { 'content-type': 'application/json; charset=utf-8', ...headers },
      );
      res.end(body === undefined ? undefined : JSON.stringify(body));
    };

    if (method === 'GET' && url.pathname === paths.bfMetadata)
      return send(200, identity.channelMetadata(`${origin}${paths.bfKeys}`));
    if (method === 'GET' && url.pathname === paths.bfKeys) return send(200, identity.channelKeys());
    if (method === 'GET' && url.pathname === paths.entraMetadata)
      return send(200, identity.entraMetadata(origin, 'common', `${origin}${paths.entraKeys}`));
    if (method === 'GET' && url.pathname === paths.entraKeys) return send(200, identity.entraKeys());

    const tokenPath = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(url.pathname);
    if (method === 'POST' && tokenPath) {
      const reply = token(decodeURIComponent(tokenPath[1]!), parseQuery(raw));
      return send(reply.status, reply.body);
    }

    const connectorPath = /^(\/(?:[^/]+\/)*?)(v3\/conversations(?:\/.*)?)$/.exec(url.pathname);
    if (connectorPath) {
      const checked = identity.checkAccessToken(req.headers.authorization, BOT_CONNECTOR_SCOPE);
      // What the Bot Connector answers a bad or missing bearer token.
      if (!checked.ok) return send(401, { message: 'Authorization has been denied for this request.' });
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        return send(400, { error: { code: 'BadSyntax', message: 'The request body is not JSON.' } });
      }
      const reply = connector.handle(method, connectorPath[2]!, `${origin}${connectorPath[1]}`, body, checked.appId);
      // The call just recorded is this one (handle is synchronous).
      const call = connector.calls.at(-1);
      const hold = reply && call ? holds.get(call.op)?.shift() : undefined;
      if (hold && call) {
        hold.reached(call);
        await hold.released;
      }
      if (reply) return send(reply.status, reply.body, reply.headers);
    }
    send(404, { error: { code: 'NotFound', message: `The Teams stand-in does not serve ${method} ${url.pathname}.` } });
  }

  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const serviceUrl = `${origin}${TEAMS_DEFAULTS.serviceUrlPath}`;

  const standin: TeamsStandin = {
    origin,
    serviceUrl,
    appId,
    appPassword,
    tenantId,
    userTenantId,
    openIdMetadataUrl: `${origin}${paths.bfMetadata}`,
    entraMetadataUrl: `${origin}${paths.entraMetadata}`,
    entraKeysUrl: `${origin}${paths.entraKeys}`,
    loginUrl: `${origin}/${authorityTenant}`,
    calls: connector.calls,
    tokenRequests,
    requests,
    delivered: (op) => connector.calls.filter((c) => c.op === op && c.status >= 200 && c.status < 300),
    failNext: (op, failure) => connector.failNext(op, failure),
    holdNext(op) {
      const held = heldAnswer<ConnectorCall>();
      holds.set(op, [...(holds.get(op) ?? []), held.hold]);
      return held.answer;
    },
    setMembers: (conversationId, members) => connector.setMembers(conversationId, members),
    removeBot: (conversationId) => connector.removeBot(conversationId),
    activity: (conversationId, activityId) => connector.activity(conversationId, activityId),
    conversationActivities: (conversationId) => connector.conversationActivities(conversationId),
    stream: (streamId) => connector.streaming.streams.get(streamId),
    stopStream: (streamId) => connector.streaming.cancel(streamId),
    passTime(ms) {
      clockOffsetMs += ms;
    },
    signActivityToken: (tokenOptions) => identity.signActivityToken(tokenOptions),
    async postActivity(botUrl, activity, postOptions = {}) {
      const { authorization, ...tokenOptions } = postOptions;
      const header =
        authorization !== undefined
          ? authorization
          : `Bearer ${identity.signActivityToken({ serviceUrl: String(activity.serviceUrl ?? serviceUrl), ...tokenOptions })}`;
      const response = await fetch(botUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(header === null ? {} : { authorization: header }) },
        body: JSON.stringify(activity),
      });
      const text = await response.text();
      const isJson = (response.headers.get('content-type') ?? '').includes('json') && text.length > 0;
      return { status: response.status, body: isJson ? (JSON.parse(text) as unknown) : text };
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
  return standin;
}

/**
 * The settings for botbuilder's `ConfigurationBotFrameworkAuthentication` (and
 * `ConfigurationServiceClientCredentialFactory`) that point every endpoint at the
 * stand-in. The To… keys, OAuthUrl and CallerId go together: once any of them is
 * set the SDK uses exactly the values given and none of its public-cloud defaults.
 */
export function configFor(standin: TeamsStandin) {
  return {
    MicrosoftAppId: standin.appId,
    MicrosoftAppPassword: standin.appPassword,
    MicrosoftAppType: standin.tenantId ? 'SingleTenant' : 'MultiTenant',
    MicrosoftAppTenantId: standin.tenantId ?? '',
    ToBotFromChannelOpenIdMetadataUrl: standin.openIdMetadataUrl,
    ToBotFromChannelTokenIssuer: BOT_FRAMEWORK_ISSUER,
    ToBotFromEmulatorOpenIdMetadataUrl: standin.entraMetadataUrl,
    ToChannelFromBotLoginUrl: standin.loginUrl,
    ToChannelFromBotOAuthScope: BOT_CONNECTOR_SCOPE,
    OAuthUrl: `${standin.origin}/oauth`,
    CallerId: 'urn:botframework:azure',
    ValidateAuthority: true,
  } satisfies Record<string, string | boolean>;
}

/**
 * MSAL settings that make a real ConfidentialClientApplication get the bot's
 * token from the stand-in. MSAL insists on an https authority and, for an
 * unknown host, on instance discovery at login.microsoftonline.com; naming the
 * host in `knownAuthorities` and handing over the endpoints in
 * `authorityMetadata` skips both, so the only request is the token POST.
 */
export function msalConfigurationFor(standin: TeamsStandin): Configuration {
  const tenant = standin.tenantId ?? MULTI_TENANT_AUTHORITY_TENANT;
  const host = new URL(standin.origin).host;
  const endpoint = (path: string) => `${standin.origin}/${tenant}/oauth2/v2.0/${path}`;
  return {
    auth: {
      clientId: standin.appId,
      clientSecret: standin.appPassword,
      authority: `https://${host}/${tenant}`,
      knownAuthorities: [host],
      authorityMetadata: JSON.stringify({
        issuer: `https://login.microsoftonline.com/${tenant}/v2.0`,
        token_endpoint: endpoint('token'),
        authorization_endpoint: endpoint('authorize'),
        end_session_endpoint: endpoint('logout'),
        jwks_uri: standin.entraKeysUrl,
      }),
    },
  };
}

/** The credentials factory to hand to ConfigurationBotFrameworkAuthentication: real MSAL, talking to the stand-in. */
export function credentialsFactoryFor(standin: TeamsStandin): MsalServiceClientCredentialsFactory {
  const client = new ConfidentialClientApplication(msalConfigurationFor(standin));
  // The same class, typed twice: this module gets msal-node's ESM build, botframework-connector its CommonJS one.
  return new MsalServiceClientCredentialsFactory(
    standin.appId,
    client as unknown as ConstructorParameters<typeof MsalServiceClientCredentialsFactory>[1],
  );
}

/** `new ConfigurationBotFrameworkAuthentication(configFor(standin), credentialsFactoryFor(standin))`: for `new CloudAdapter(…)`. */
export function authenticationFor(standin: TeamsStandin): ConfigurationBotFrameworkAuthentication {
  return new ConfigurationBotFrameworkAuthentication(configFor(standin), credentialsFactoryFor(standin));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
