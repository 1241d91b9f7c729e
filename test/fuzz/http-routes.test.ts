// A seeded fuzz of the HTTP routes: the web chat API, sign-in, documents and
// link routes (signed in, with the CSRF token, so input reaches the handlers),
// Slack's events endpoint (signed), Teams' (with a token the Bot Framework
// stand-in signs) and MCP over HTTP (an agent's token, on an open session).
// Bodies, query strings and path ids are mutated as in the MCP fuzz, plus
// malformed JSON and wrong content types; no answer may be a 5xx.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slackRuntime } from '../../src/app-surfaces.ts';
import { SYSTEM } from '../../src/core/actor.ts';
import { defaultMounts } from '../../src/server.ts';
import { connectSlackTeam } from '../../src/surfaces/slack/index.ts';
import { connectTeamsTenant } from '../../src/surfaces/teams/index.ts';
import { pgliteDb } from '../support/db.ts';
import { FAMILIES, mutate, prng, Tally, type Family, type Rng } from '../support/fuzz.ts';
import { SLACK_DEFAULTS } from '../support/slack/defaults.ts';
import {
  appMention,
  blockActions,
  eventCallback,
  message,
  signRequest,
  slashCommand,
  viewSubmission,
} from '../support/slack/signed-request.ts';
import { startSlackStandin, type SlackStandin } from '../support/slack/web-api-standin.ts';
import { adaptiveCardAction, channelMention, personalMessage } from '../support/teams/activities.ts';
import { startTeamsStandin, type TeamsStandin } from '../support/teams/standin.ts';
import { HttpBrowser } from '../support/web/browser.ts';
import { seedOrg, startTestServer, type TestServer } from '../support/web/server.ts';

const SEED = 0x0f2a11;
/** Inputs this file sends at least. */
const AT_LEAST = 2000;
/** Besides the mutation families: bodies that are not the JSON they claim to be. */
const RAW = ['malformed-json', 'wrong-content-type'] as const;
type Variant = Family | (typeof RAW)[number];
const VARIANTS: readonly Variant[] = [...FAMILIES, ...RAW];

type Encoding = 'json' | 'form';
interface BodyRoute {
  method: string;
  path: string;
  body: Record<string, unknown>;
  encoding?: Encoding;
  /** Sent in the first round only, with every other variant: each input costs a scrypt (sign-in, password change). */
  costly?: boolean;
}

/** A form field for a mutated value: text as is, anything else as JSON (as a script posting a form might). */
const formField = (v: unknown) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));
const formOf = (o: Record<string, unknown>) =>
  new URLSearchParams(Object.entries(o).map(([k, v]) => [k, formField(v)])).toString();

/** A query string for mutated values, arrays as repeated keys and objects in bracket notation (as qs reads them). */
function queryOf(o: Record<string, unknown>): string {
  const parts: string[] = [];
  const add = (k: string, v: unknown) => {
    if (Array.isArray(v)) for (const x of v) add(k, x);
    else if (v && typeof v === 'object') for (const [kk, x] of Object.entries(v)) add(`${k}[${kk}]`, x);
    else parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(v === null ? '' : String(v)).slice(0, 20_000)}`);
  };
  for (const [k, v] of Object.entries(o)) {
    try {
      add(k, v);
    } catch {
      // A lone surrogate cannot be percent-encoded; send it as the %ED%A0%80 a client might.
      parts.push(`${encodeURIComponent(k.replace(/[\ud800-\udfff]/g, ''))}=%ED%A0%80`);
    }
  }
  return parts.join('&');
}

/** A path segment for a mutated id. */
function segment(v: unknown): string {
  const s = typeof v === 'string' ? v : (JSON.stringify(v) ?? 'undefined');
  try {
    return encodeURIComponent(s);
  } catch {
    return `x%ED%A0%80${encodeURIComponent(s.replace(/[\ud800-\udfff]/g, ''))}`;
  }
}

function rawBody(r: Rng, variant: 'malformed-json' | 'wrong-content-type', body: Record<string, unknown>) {
  const json = JSON.stringify(body);
  if (variant === 'malformed-json')
    return {
      type: 'application/json',
      body: r.pick([
        json.slice(0, Math.max(1, json.length - 2)),
        `${json},`,
        `{${json}`,
        "{'a': 1}",
        'nul',
        '\u0000',
        '',
      ]),
    };
  return r.pick([
    { type: 'text/plain', body: json },
    { type: 'application/xml', body: '<body>hi</body>' },
    {
      type: 'multipart/form-data; boundary=x',
      body: `--x\r\nContent-Disposition: form-data; name="body"\r\n\r\nhi\r\n--x--`,
    },
    { type: 'application/x-www-form-urlencoded', body: formOf(body) },
    { type: 'application/json; charset=utf-16', body: json },
    { type: 'application/octet-stream', body: json },
    { type: '', body: json },
  ]);
}

describe('every HTTP route under seeded hostile input', () => {
  let server: TestServer;
  let slack: SlackStandin;
  let teams: TeamsStandin;
  const logLines: string[] = [];

  beforeAll(async () => {
    [slack, teams] = await Promise.all([startSlackStandin(), startTeamsStandin()]);
    server = await startTestServer({
      db: pgliteDb,
      mounts: await defaultMounts(),
      env: {
        SLACK_SIGNING_SECRET: SLACK_DEFAULTS.signingSecret,
        SLACK_API_URL: slack.url,
        MICROSOFT_APP_ID: teams.appId,
        MICROSOFT_APP_PASSWORD: teams.appPassword,
        MICROSOFT_OPENID_METADATA_URL: teams.openIdMetadataUrl,
        MICROSOFT_ENTRA_OPENID_METADATA_URL: teams.entraMetadataUrl,
        MICROSOFT_LOGIN_URL: teams.origin,
      },
      logger: pino({ level: 'warn' }, { write: (line: string) => void logLines.push(line) }),
    });
  });
  afterAll(async () => {
    await server?.close();
    await Promise.all([slack?.close(), teams?.close()]);
  });

  it('answers every input below 500', async () => {
    const r = prng(SEED);
    const { app } = server;
    const seed = await seedOrg(server, { org: 'Acme', workspace: 'acme', admin: 'alice', member: 'bob' });
    const { agent, token: agentToken } = await app.agents.add(SYSTEM, { name: 'helper', owner: 'alice' });
    await app.agents.join(SYSTEM, { agent: 'alice/helper', workspace: 'acme' });
    await connectSlackTeam(slackRuntime(app), {
      workspace: 'acme',
      teamId: SLACK_DEFAULTS.teamId,
      botToken: slack.botToken,
    });
    await connectTeamsTenant(
      { orgs: app.orgs, tenants: app.store.tenants },
      { workspace: 'acme', tenantId: teams.userTenantId },
    );

    const browser = new HttpBrowser(server.url);
    await browser.signIn('alice', seed.password);
    const sidebar = (await browser.api('GET', '/w/acme/sidebar')).json();
    const general: string = sidebar.channels.find((c: { name: string }) => c.name === 'general').id;
    const posted = (await browser.api('POST', `/w/acme/conversations/${general}/messages`, { body: 'hello' })).json();
    const messageId: string = posted.message?.id ?? general;
    const docs = await browser.request('GET', '/api/docs/w/acme/');
    const collection: string =
      (docs.status === 200 && (docs.json().collections?.[0]?.key as string | undefined)) || 'notes';

    const ws = '/api/chat/w/acme';
    const bodyRoutes: BodyRoute[] = [
      { method: 'POST', path: `${ws}/conversations/${general}/messages`, body: { body: 'hello there' } },
      { method: 'PATCH', path: `${ws}/messages/${messageId}`, body: { body: 'edited' } },
      { method: 'POST', path: `${ws}/messages/${messageId}/reactions`, body: { emoji: 'thumbsup' } },
      { method: 'POST', path: `${ws}/channels`, body: { name: 'fuzz', restricted: false, description: 'a channel' } },
      { method: 'POST', path: `${ws}/channels/${general}/members`, body: { handle: 'bob' } },
      { method: 'POST', path: `${ws}/dms`, body: { agentId: agent.id } },
      { method: 'POST', path: `${ws}/agents`, body: { name: 'fz', displayName: 'Fuzz', roleLine: 'fuzzes' } },
      { method: 'POST', path: `${ws}/approvals/${r.uuid()}/decision`, body: { decision: 'approve', reason: 'fine' } },
      { method: 'POST', path: `${ws}/channels/${general}/listeners`, body: { agent: 'alice/helper' } },
      {
        method: 'POST',
        path: `${ws}/channels/${general}/bridges`,
        body: { surface: 'slack', channel: 'C0GENERAL', allowPrivate: false },
      },
      { method: 'POST', path: '/api/chat/me/notices', body: { on: true } },
      { method: 'PATCH', path: `${ws}/intake/${r.uuid()}`, body: { status: 'triaged', note: 'a note' } },
      { method: 'POST', path: `${ws}/intake/${r.uuid()}/merge`, body: { into: r.uuid() } },
      { method: 'POST', path: '/api/docs/w/acme/documents/NOTE-1/move', body: { collection, status: 'draft' } },
      { method: 'PATCH', path: `/api/docs/w/acme/collections/${collection}`, body: { name: 'Notes', active: true } },
      { method: 'PUT', path: '/api/docs/w/acme/seats/bob', body: { has_seat: true } },
      { method: 'POST', path: `/docs/acme/c/${collection}`, body: { name: 'Notes', active: 'on' }, encoding: 'form' },
      { method: 'POST', path: '/docs/acme/seats/bob', body: { has_seat: 'on' }, encoding: 'form' },
      {
        method: 'POST',
        path: '/signin/link',
        body: { token: 'a-token-that-is-not-there', next: '/' },
        encoding: 'form',
      },
      // Never the right password: these must not sign anyone in or change a password, and each costs a scrypt.
      {
        method: 'POST',
        path: '/signin',
        body: { handle: 'nobody', password: 'wrong', next: '/' },
        encoding: 'form',
        costly: true,
      },
      {
        method: 'POST',
        path: '/account/password',
        body: { current: 'not the password', password: 'a new long password', confirm: 'a new long password' },
        encoding: 'form',
        costly: true,
      },
    ];
    const queryRoutes: Array<{ path: string; query: Record<string, unknown> }> = [
      { path: `${ws}/search`, query: { q: 'hello' } },
      { path: `${ws}/inbox`, query: { page: 1 } },
      { path: `${ws}/intake`, query: { status: 'open', kind: 'request', surface: 'web' } },
      { path: `${ws}/approvals`, query: { conversation: general } },
      {
        path: '/api/docs/w/acme/documents',
        query: { collection, status: 'draft', archived: 'false', q: 'x', offset: 0 },
      },
      { path: '/docs/acme', query: { collection, q: 'x', offset: 0, notice: 'n' } },
    ];
    const pathRoutes: Array<{ method: string; path: (id: string) => string; id: string }> = [
      { method: 'GET', path: (id) => `${ws}/conversations/${id}`, id: general },
      { method: 'POST', path: (id) => `${ws}/channels/${id}/join`, id: general },
      { method: 'POST', path: (id) => `${ws}/messages/${id}/thread`, id: messageId },
      { method: 'DELETE', path: (id) => `${ws}/messages/${messageId}/reactions/${id}`, id: 'thumbsup' },
      { method: 'GET', path: (id) => `${ws}/channels/${id}/settings`, id: general },
      { method: 'DELETE', path: (id) => `${ws}/channels/${general}/listeners/${id}`, id: agent.id },
      { method: 'GET', path: (id) => `/api/chat/w/${id}/sidebar`, id: 'acme' },
      { method: 'GET', path: (id) => `/api/docs/w/acme/documents/${id}`, id: 'NOTE-1' },
      { method: 'DELETE', path: (id) => `/api/links/${id}`, id: r.uuid() },
      { method: 'GET', path: (id) => `/link/${id}`, id: 'nonce' },
      { method: 'POST', path: (id) => `/account/links/${id}/unlink`, id: r.uuid() },
    ];

    const tally = new Tally();
    const broken: string[] = [];
    const send = async (target: string, family: string, method: string, path: string, type?: string, body?: string) => {
      const res = await fetch(server.url + path, {
        method,
        redirect: 'manual',
        body,
        headers: {
          ...browser.headers(),
          'x-csrf-token': browser.csrf,
          ...(type ? { 'content-type': type } : {}),
        },
      }).catch((e: Error) => e);
      if (res instanceof Error) {
        tally.add(family, 'network error', target);
        broken.push(`${method} ${path.slice(0, 120)} [${family}]: ${res.message}`);
        return;
      }
      const text = await res.text();
      tally.add(family, res.status, target);
      if (res.status >= 500)
        broken.push(
          `${method} ${path.slice(0, 120)} [${family}] ${(body ?? '').slice(0, 200)}: ${res.status} ${text.slice(0, 200)}`,
        );
    };

    // Slack: an app mention, a channel message, a slash command, a button click and a modal submission, signed.
    const slackBases = () => [
      eventCallback(
        appMention({ user: 'U0CAROL01', channel: 'C0GENERAL', text: `<@${SLACK_DEFAULTS.botUserId}> @helper hi` }),
      ),
      eventCallback(message({ user: 'U0CAROL01', channel: 'C0GENERAL', text: 'hello', channel_type: 'channel' })),
      slashCommand({
        command: '/switchboard',
        text: 'help',
        user_id: 'U0CAROL01',
        channel_id: 'C0GENERAL',
        response_url: slack.responseUrl(),
      }),
      blockActions({
        user: 'U0CAROL01',
        channel: 'C0GENERAL',
        message: { ts: '1700000000.000100', text: 'card' },
        actions: [{ action_id: 'approval_approve', value: r.uuid() }],
      }),
      viewSubmission({ user: 'U0CAROL01', view: { callback_id: 'link_account', private_metadata: '{}' } }),
    ];
    // Teams: a channel mention, a personal message and a card action, with a valid token.
    const teamsBases = () => [
      channelMention(teams, { text: 'ask helper to look' }),
      personalMessage(teams, { text: 'hello' }),
      adaptiveCardAction(teams, { verb: 'approve', data: { approval: r.uuid() }, cardActivityId: '1:card' }),
    ];

    const msPerTarget: Record<string, number> = {};
    let mark = performance.now();
    const lap = (target: string) => {
      const now = performance.now();
      msPerTarget[target] = Math.round((msPerTarget[target] ?? 0) + now - mark);
      mark = now;
    };
    // MCP over HTTP with the agent's token: an initialize, then requests on the session it opened.
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
    };
    const opened = await fetch(`${server.url}/mcp/acme`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${agentToken}`,
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
      },
      body: JSON.stringify(initialize),
    });
    await opened.text();
    const mcpSession = opened.headers.get('mcp-session-id') ?? '';
    expect(mcpSession, 'an MCP session to fuzz in').not.toBe('');
    await fetch(`${server.url}/mcp/acme`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${agentToken}`,
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        'mcp-session-id': mcpSession,
      },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    }).then((res) => res.text());
    let rpcId = 10;
    const mcpBases = (): Array<Record<string, unknown>> => [
      initialize,
      { jsonrpc: '2.0', id: rpcId++, method: 'tools/list', params: {} },
      {
        jsonrpc: '2.0',
        id: rpcId++,
        method: 'tools/call',
        params: { name: 'send_message', arguments: { to: 'helper', body: 'hello', conversation: general } },
      },
      {
        jsonrpc: '2.0',
        id: rpcId++,
        method: 'tools/call',
        params: { name: 'search_messages', arguments: { query: 'hello' } },
      },
      { jsonrpc: '2.0', id: rpcId++, method: 'resources/read', params: { uri: 'switchboard://inbox' } },
    ];

    const total = bodyRoutes.length + queryRoutes.length + pathRoutes.length + 5 + 3 + 5;
    const rounds = Math.ceil(AT_LEAST / (total * VARIANTS.length));
    for (let round = 0; round < rounds; round++) {
      for (const route of queryRoutes) {
        for (const v of VARIANTS) {
          const query = RAW.includes(v as never)
            ? { ...route.query, [`${v}`]: '%ZZ' }
            : mutate(r, v as Family, route.query);
          await send('web query strings', v, 'GET', `${route.path}?${queryOf(query)}`);
        }
      }
      lap('web query strings');
      for (const route of pathRoutes) {
        for (const v of VARIANTS) {
          const id = RAW.includes(v as never)
            ? r.pick(['%ZZ', '%00', '%', '..%2F..', '%2e%2e'])
            : mutate(r, v as Family, { id: route.id }).id;
          const seg = RAW.includes(v as never) ? String(id) : segment(id ?? '');
          await send('web path ids', v, route.method, route.path(seg));
        }
      }
      lap('web path ids');
      for (const base of slackBases()) {
        for (const v of VARIANTS) {
          const signed = (body: string, type: string) =>
            signRequest({ contentType: type as 'application/json', body, payload: null });
          let type: string = base.contentType;
          let body: string;
          if (v === 'malformed-json' || v === 'wrong-content-type') {
            const raw = rawBody(r, v, base.payload as Record<string, unknown>);
            ({ type, body } = raw);
          } else if (base.contentType === 'application/json') {
            const p = base.payload as Record<string, unknown>;
            const inner = r.int(2) === 0 && p.event;
            body = JSON.stringify(
              inner ? { ...p, event: mutate(r, v, p.event as Record<string, unknown>) } : mutate(r, v, p),
            );
          } else if (new URLSearchParams(base.body).has('payload')) {
            body = new URLSearchParams({
              payload: JSON.stringify(mutate(r, v, base.payload as Record<string, unknown>)),
            }).toString();
          } else {
            body = formOf(mutate(r, v, base.payload as Record<string, unknown>));
          }
          const { headers } = signed(body, type);
          if (type) headers['content-type'] = type;
          else delete headers['content-type'];
          const res = await fetch(`${server.url}/slack/events`, { method: 'POST', headers, body }).catch(
            (e: Error) => e,
          );
          if (res instanceof Error) {
            tally.add(v, 'network error', 'slack');
            broken.push(`slack [${v}]: ${res.message}`);
            continue;
          }
          tally.add(v, res.status, 'slack (signed)');
          const text = await res.text();
          if (res.status >= 500) broken.push(`slack [${v}] ${body.slice(0, 200)}: ${res.status} ${text.slice(0, 200)}`);
        }
      }
      lap('slack');
      for (const base of teamsBases()) {
        for (const v of VARIANTS) {
          const token = teams.signActivityToken({ serviceUrl: teams.serviceUrl });
          let type = 'application/json';
          let body: string;
          if (v === 'malformed-json' || v === 'wrong-content-type') ({ type, body } = rawBody(r, v, base as never));
          else body = JSON.stringify(mutate(r, v, base as unknown as Record<string, unknown>));
          const res = await fetch(`${server.url}/api/messages`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, ...(type ? { 'content-type': type } : {}) },
            body,
          }).catch((e: Error) => e);
          if (res instanceof Error) {
            tally.add(v, 'network error', 'teams');
            broken.push(`teams [${v}]: ${res.message}`);
            continue;
          }
          tally.add(v, res.status, 'teams (valid token)');
          const text = await res.text();
          if (res.status >= 500) broken.push(`teams [${v}] ${body.slice(0, 200)}: ${res.status} ${text.slice(0, 200)}`);
        }
      }
      lap('teams');
      for (const base of mcpBases()) {
        for (const v of VARIANTS) {
          let type = 'application/json';
          let body: string;
          if (v === 'malformed-json' || v === 'wrong-content-type') ({ type, body } = rawBody(r, v, base));
          else if (base.params && r.int(2) === 0) {
            const params = base.params as Record<string, unknown>;
            const inner =
              params.arguments && r.int(2) === 0
                ? { ...params, arguments: mutate(r, v, params.arguments as Record<string, unknown>) }
                : mutate(r, v, params);
            body = JSON.stringify({ ...base, params: inner });
          } else body = JSON.stringify(mutate(r, v, base));
          const res = await fetch(`${server.url}/mcp/acme`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${agentToken}`,
              accept: 'application/json, text/event-stream',
              ...(base.method === 'initialize' ? {} : { 'mcp-session-id': mcpSession }),
              ...(type ? { 'content-type': type } : {}),
            },
            body,
          }).catch((e: Error) => e);
          if (res instanceof Error) {
            tally.add(v, 'network error', 'mcp over http');
            broken.push(`mcp [${v}]: ${res.message}`);
            continue;
          }
          const text = await res.text();
          tally.add(v, res.status, 'mcp over http (valid token)');
          // A JSON-RPC internal error or an INTERNAL tool refusal is a defect as much as a 5xx is.
          if (res.status >= 500 || /"code":\s*-32603|"code":\s*"INTERNAL"/.test(text))
            broken.push(`mcp [${v}] ${body.slice(0, 200)}: ${res.status} ${text.slice(0, 300)}`);
        }
      }
      lap('mcp');
      for (const route of bodyRoutes) {
        if (route.costly && round > 0) continue;
        // The last round stops once enough was sent (these come last in a round: the other targets get every round).
        if (round === rounds - 1 && tally.total >= AT_LEAST) break;
        for (const [i, v] of VARIANTS.entries()) {
          if (route.costly && i % 2 === 1) continue;
          if (v === 'malformed-json' || v === 'wrong-content-type') {
            const raw = rawBody(r, v, route.body);
            await send('web bodies', v, route.method, route.path, raw.type, raw.body);
          } else {
            const body = mutate(r, v, route.body);
            if (route.encoding === 'form')
              await send('web bodies', v, route.method, route.path, 'application/x-www-form-urlencoded', formOf(body));
            else await send('web bodies', v, route.method, route.path, 'application/json', JSON.stringify(body));
          }
        }
      }
      lap('web bodies');
    }

    const fiveHundreds = Object.entries(tally.statuses)
      .filter(([s]) => Number(s) >= 500)
      .reduce((n, [, k]) => n + k, 0);
    const errorsLogged = logLines.filter((l) => /"level":(50|60)/.test(l));
    console.log(
      JSON.stringify(
        {
          httpFuzz: {
            seed: SEED,
            inputs: tally.total,
            perTarget: tally.perTarget,
            perFamily: tally.perFamily,
            statuses: tally.statuses,
            statusesPerTarget: tally.statusesPerTarget,
            msPerTarget,
            fiveHundreds,
            errorsLogged: errorsLogged.length,
            firstErrors: errorsLogged.slice(0, 5).map((l) => l.slice(0, 300)),
          },
        },
        null,
        1,
      ),
    );
    expect(broken).toEqual([]);
    expect(tally.total).toBeGreaterThanOrEqual(AT_LEAST);
  }, 180_000);
});
