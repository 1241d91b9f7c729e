// A local stand-in for Slack's Web API (https://slack.com/api/…) that the real
// @slack/web-api client can talk to through `slackApiUrl`. It checks tokens,
// records every call with its decoded arguments, answers with Slack's
// documented shapes, and fails on demand (429 with Retry-After, HTTP 5xx,
// `ok: false` errors, dropped connections) so adapter tests exercise the same
// paths production does.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse as parseQuery } from 'node:querystring';
import { heldAnswer, type HeldAnswer } from '../held-answer.ts';
import { SLACK_DEFAULTS } from './defaults.ts';
import { APP_TOKEN_METHODS, attachSocketMode, type SocketModeStandin } from './socket-mode-standin.ts';
import { METHODS, TOKENLESS_METHODS, type Args, type MethodHandler, type SlackResult } from './web-api-methods.ts';
import { LIVE_METHODS } from './web-api-live-methods.ts';
import { UNFURL_METHODS } from './web-api-unfurl-methods.ts';
import {
  homeIdentity,
  SlackState,
  type AssistantThreadState,
  type OAuthGrant,
  type SlackChannelSeed,
  type SlackUserSeed,
  type StoredMessage,
  type TokenIdentity,
} from './web-api-state.ts';

export type { MethodHandler, SlackResult } from './web-api-methods.ts';
export type { SocketModeStandin } from './socket-mode-standin.ts';
export type { OAuthGrant, SlackChannelSeed, SlackUserSeed, StoredMessage, TokenIdentity } from './web-api-state.ts';

export interface SlackStandinOptions {
  /** The bot token that works from the start (default SLACK_DEFAULTS.botToken). */
  botToken?: string;
  teamId?: string;
  teamName?: string;
  /** Used in auth.test's url and permalinks: https://<teamDomain>.slack.com/ */
  teamDomain?: string;
  botUserId?: string;
  botId?: string;
  botName?: string;
  appId?: string;
  /** Comma-separated scopes reported in `x-oauth-scopes`. */
  scope?: string;
  /** OAuth client credentials oauth.v2.access checks. */
  clientId?: string;
  clientSecret?: string;
  /** The app-level token apps.connections.open takes (default SLACK_DEFAULTS.appToken). */
  appToken?: string;
  /** How long a Socket Mode envelope waits for its acknowledgement before it is sent again. */
  socketAckTimeoutMs?: number;
  /** How long a streaming message (chat.startStream) waits for its next append before Slack ends it (default 5 minutes). */
  streamIdleMs?: number;
}

/** How the next call to a method fails. */
export type StandinFailure =
  /** HTTP 429 with a `Retry-After: <seconds>` header and `{ok:false,error:'ratelimited'}`. */
  | { status: 429; retryAfter: number }
  /** An HTTP server error with a non-JSON body, as when Slack is down. */
  | { status: 500 | 502 | 503 | 504 }
  /** HTTP 200 with `{ ok: false, error }` plus any extra response fields. */
  | { error: string; response?: Record<string, unknown> }
  /** The connection is destroyed before any response (a network failure). */
  | { drop: true }
  /** Slack does the work (a post is stored), then the connection is destroyed before the answer: the caller cannot know. */
  | { dropAfterHandling: true };

export interface RecordedCall {
  method: string;
  /** Decoded arguments (JSON fields like blocks/metadata/view parsed), without the token. */
  args: Args;
  /** The token sent (Authorization: Bearer, or the `token` argument), if any. */
  token: string | undefined;
  at: Date;
  contentType: string;
  /** HTTP status answered; 0 when the connection was dropped. */
  status: number;
  /** The response body sent back. */
  response: unknown;
}

export interface ResponseUrlPost {
  url: string;
  body: unknown;
  at: Date;
}

export interface SlackStandin {
  /** Base URL for WebClient's `slackApiUrl`, with trailing slash: http://127.0.0.1:PORT/api/ */
  url: string;
  /** http://127.0.0.1:PORT */
  origin: string;
  botToken: string;
  /** The app-level token (xapp-…) for Socket Mode. */
  appToken: string;
  /** Slack's side of Socket Mode: the connections apps.connections.open leads to. */
  socketMode: SocketModeStandin;
  /** The workspace, app and bot the default token speaks for. */
  identity: TokenIdentity;
  /** Every Web API call in arrival order, failed ones included. */
  calls: RecordedCall[];
  callsTo(method: string): RecordedCall[];
  /** Make the next `times` (default 1) calls to `method` fail this way (after the token check). */
  failNext(method: string, failure: StandinFailure, times?: number): void;
  /**
   * From now on, fail each call (any method, after the token check) with probability `rate`, the failure picked by
   * `pick`; `failRandomly(0)` stops. Failures queued with failNext come first.
   */
  failRandomly(rate: number, pick?: () => StandinFailure): void;
  /** Does the next call to `method` (a post is stored), then holds its answer until released: Slack is slow to answer. */
  holdNext(method: string): HeldAnswer<RecordedCall>;
  /** Add or replace a person users.info knows. */
  setUser(id: string, profile?: SlackUserSeed): void;
  /** Set who conversations.members lists for a channel (include the bot if it is in it). */
  setChannelMembers(channel: string, ids: string[]): void;
  /** Add or replace a channel conversations.info knows. */
  setChannel(id: string, channel: SlackChannelSeed): void;
  /** Register a message a person wrote, so getPermalink and chat.update know about it. */
  seedMessage(channel: string, message: { ts: string; user: string; text?: string; thread_ts?: string }): void;
  /** Messages in a channel as they stand now (posted, then updated), oldest first. */
  messages(channel: string): StoredMessage[];
  message(channel: string, ts: string): StoredMessage | undefined;
  /** The Home tab last published for a person. */
  homeView(userId: string): Record<string, unknown> | undefined;
  /**
   * What the app set on an assistant thread (status, title, prompts), or without `threadTs` on the DM itself (prompts,
   * as agent_view apps set them); undefined when it set nothing there.
   */
  assistantThread(channel: string, threadTs?: string): AssistantThreadState | undefined;
  /** Moves the stand-in's clock on (streams go idle) without waiting. */
  passTime(ms: number): void;
  /** A single-use OAuth code, as if someone approved the install; oauth.v2.access exchanges it for a new bot token. */
  issueOAuthCode(grant?: Partial<OAuthGrant>): string;
  /** Make a token stop working, as when the app is uninstalled. */
  revokeToken(token: string, reason?: 'token_revoked' | 'account_inactive'): void;
  /** Answer another method, or replace a built-in one (a handler may take its time: the call waits for its promise). */
  handle(method: string, handler: (ctx: Parameters<MethodHandler>[0]) => SlackResult | Promise<SlackResult>): void;
  /** A fresh response_url on this stand-in; what is posted to it lands in responseUrlPosts. */
  responseUrl(): string;
  responseUrlPosts: ResponseUrlPost[];
  close(): Promise<void>;
}

/** Arguments Slack takes as JSON strings in form bodies; decoded so tests can assert on structure. */
const JSON_ARGS = new Set([
  'blocks',
  'attachments',
  'metadata',
  'view',
  'unfurls',
  'user_auth_blocks',
  'prompts',
  'chunks',
  'loading_messages',
]);

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function decodeArgs(contentType: string, raw: string, query: string): Args | undefined {
  const args: Args = { ...parseQuery(query) };
  if (contentType.startsWith('application/json')) {
    if (!raw) return args;
    try {
      return { ...args, ...(JSON.parse(raw) as Args) };
    } catch {
      return undefined;
    }
  }
  for (const [key, value] of Object.entries(parseQuery(raw))) {
    args[key] = value;
    if (JSON_ARGS.has(key) && typeof value === 'string') {
      try {
        args[key] = JSON.parse(value);
      } catch {
        // Slack would answer invalid_blocks/invalid_arguments; keep the raw string so the test sees it.
      }
    }
  }
  return args;
}

function credentials(req: IncomingMessage, args: Args) {
  const header = req.headers.authorization ?? '';
  let token: string | undefined;
  let basicAuth: { user: string; password: string } | undefined;
  if (header.startsWith('Bearer ')) token = header.slice('Bearer '.length).trim();
  else if (header.startsWith('Basic ')) {
    const [user = '', ...rest] = Buffer.from(header.slice('Basic '.length), 'base64').toString('utf8').split(':');
    basicAuth = { user, password: rest.join(':') };
  }
  if (!token && typeof args.token === 'string') token = args.token;
  return { token, basicAuth };
}

/** Start a stand-in on 127.0.0.1 (a free port); close() it after the test. */
export async function startSlackStandin(options: SlackStandinOptions = {}): Promise<SlackStandin> {
  const identity = homeIdentity(options);
  const botToken = options.botToken ?? SLACK_DEFAULTS.botToken;
  const appToken = options.appToken ?? SLACK_DEFAULTS.appToken;
  const state = new SlackState(identity, {
    clientId: options.clientId ?? SLACK_DEFAULTS.clientId,
    clientSecret: options.clientSecret ?? SLACK_DEFAULTS.clientSecret,
  });
  state.tokens.set(botToken, { identity });
  if (options.streamIdleMs !== undefined) state.streamIdleMs = options.streamIdleMs;
  const handlers = new Map<string, (ctx: Parameters<MethodHandler>[0]) => SlackResult | Promise<SlackResult>>(
    Object.entries({ ...METHODS, ...LIVE_METHODS, ...UNFURL_METHODS }),
  );
  const failures = new Map<string, StandinFailure[]>();
  const holds = new Map<string, Array<{ reached: (c: RecordedCall) => void; released: Promise<void> }>>();
  const calls: RecordedCall[] = [];
  const responseUrlPosts: ResponseUrlPost[] = [];
  let responseUrlCount = 0;
  let random: { rate: number; pick: () => StandinFailure } = { rate: 0, pick: () => ({ status: 500 }) };
  let origin = '';

  function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    const contentType = typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8';
    res.writeHead(status, { 'content-type': contentType, ...headers });
    res.end(text);
  }

  async function onApiCall(req: IncomingMessage, res: ServerResponse, method: string, query: string) {
    const contentType = req.headers['content-type'] ?? '';
    const raw = await readBody(req);
    const decoded = decodeArgs(contentType, raw, query);
    const { token, basicAuth } = credentials(req, decoded ?? {});
    const { token: _sentToken, ...args } = decoded ?? {};
    const record: RecordedCall = { method, args, token, at: new Date(), contentType, status: 200, response: undefined };
    calls.push(record);
    const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      record.status = status;
      record.response = body;
      send(res, status, body, headers);
    };

    if (!decoded) return reply(200, { ok: false, error: 'invalid_json' });
    let tokenIdentity: TokenIdentity | undefined;
    if (APP_TOKEN_METHODS.has(method)) {
      // An app-level token, and only that: a bot token is the wrong kind.
      if (!token) return reply(200, { ok: false, error: 'not_authed' });
      if (token !== appToken)
        return reply(200, { ok: false, error: state.tokens.has(token) ? 'not_allowed_token_type' : 'invalid_auth' });
      tokenIdentity = identity;
    } else if (!TOKENLESS_METHODS.has(method)) {
      if (!token) return reply(200, { ok: false, error: 'not_authed' });
      if (token === appToken) return reply(200, { ok: false, error: 'not_allowed_token_type' });
      const known = state.tokens.get(token);
      if (!known) return reply(200, { ok: false, error: 'invalid_auth' });
      if (known.revoked) return reply(200, { ok: false, error: known.revoked });
      tokenIdentity = known.identity;
    }
    const scopes: Record<string, string> = tokenIdentity ? { 'x-oauth-scopes': tokenIdentity.scope } : {};

    const failure = failures.get(method)?.shift() ?? (Math.random() < random.rate ? random.pick() : undefined);
    if (failure && 'dropAfterHandling' in failure) {
      handlers.get(method)?.({ args, identity: tokenIdentity, state, basicAuth });
      record.status = 0;
      req.socket.destroy();
      return;
    }
    if (failure) {
      if ('drop' in failure) {
        record.status = 0;
        req.socket.destroy();
        return;
      }
      if ('error' in failure) return reply(200, { ok: false, error: failure.error, ...failure.response }, scopes);
      if (failure.status === 429) {
        return reply(429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(failure.retryAfter) });
      }
      return reply(failure.status, 'Internal Server Error');
    }

    const handler = handlers.get(method);
    // Slack answers a method it does not have with unknown_method; saying so beats a silent success.
    if (!handler) return reply(200, { ok: false, error: 'unknown_method', req_method: method });
    let result: SlackResult;
    try {
      result = await handler({ args, identity: tokenIdentity, state, basicAuth });
    } catch (error) {
      return reply(500, `stand-in handler for ${method} threw: ${String(error)}`);
    }
    const hold = holds.get(method)?.shift();
    if (hold) {
      hold.reached(record);
      await hold.released;
    }
    reply(200, result, scopes);
  }

  async function onResponseUrl(req: IncomingMessage, res: ServerResponse, path: string) {
    const raw = await readBody(req);
    let body: unknown = raw;
    try {
      body = JSON.parse(raw);
    } catch {
      // response_url accepts JSON; keep whatever came so the test can see it.
    }
    responseUrlPosts.push({ url: `${origin}${path}`, body, at: new Date() });
    send(res, 200, { ok: true });
  }

  const server = createServer((req, res) => {
    const [path = '', query = ''] = (req.url ?? '').split('?');
    const handled = path.startsWith('/api/')
      ? onApiCall(req, res, decodeURIComponent(path.slice('/api/'.length)), query)
      : path.startsWith('/hooks/') && req.method === 'POST'
        ? onResponseUrl(req, res, path)
        : Promise.resolve(send(res, 404, 'not found'));
    handled.catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, `stand-in error: ${String(error)}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  const socketMode = attachSocketMode(server, () => origin, {
    appId: identity.appId,
    ackTimeoutMs: options.socketAckTimeoutMs,
  });
  handlers.set('apps.connections.open', () => socketMode.connectionsOpen());

  return {
    url: `${origin}/api/`,
    origin,
    botToken,
    appToken,
    socketMode: socketMode.standin,
    identity,
    calls,
    callsTo: (method) => calls.filter((c) => c.method === method),
    failNext(method, failure, times = 1) {
      const queue = failures.get(method) ?? [];
      for (let i = 0; i < times; i += 1) queue.push(failure);
      failures.set(method, queue);
    },
    failRandomly(rate, pick = () => ({ status: 500 })) {
      random = { rate, pick };
    },
    holdNext(method) {
      const held = heldAnswer<RecordedCall>();
      holds.set(method, [...(holds.get(method) ?? []), held.hold]);
      return held.answer;
    },
    setUser: (id, profile = {}) => void state.users.set(id, profile),
    setChannelMembers: (channel, ids) => void state.channelMembers.set(channel, [...ids]),
    setChannel: (id, channel) => void state.channels.set(id, channel),
    seedMessage: (channel, message) => state.storeMessage(channel, { type: 'message', text: '', ...message }),
    messages: (channel) => [...(state.messages.get(channel)?.values() ?? [])],
    message: (channel, ts) => state.message(channel, ts),
    homeView: (userId) => state.homeViews.get(userId),
    assistantThread: (channel, threadTs) => state.assistantThreads.get(threadTs ? `${channel}:${threadTs}` : channel),
    passTime(ms) {
      state.clockOffsetMs += ms;
    },
    issueOAuthCode: (grant = {}) =>
      state.issueCode({
        teamId: grant.teamId ?? identity.teamId,
        teamName: grant.teamName ?? identity.teamName,
        installerUserId: grant.installerUserId ?? 'U0INSTALL1',
        scope: grant.scope ?? identity.scope,
        botUserId: grant.botUserId ?? identity.botUserId,
        botId: grant.botId ?? identity.botId,
        redirectUri: grant.redirectUri,
      }),
    revokeToken(token, reason = 'token_revoked') {
      const known = state.tokens.get(token);
      if (known) known.revoked = reason;
    },
    handle: (method, handler) => void handlers.set(method, handler),
    responseUrl: () => `${origin}/hooks/actions/${identity.teamId}/${++responseUrlCount}/standin`,
    responseUrlPosts,
    close: () =>
      new Promise<void>((resolve, reject) => {
        socketMode.close();
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
