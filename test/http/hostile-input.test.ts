import { gzipSync } from 'node:zlib';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYSTEM } from '../../src/core/actor.ts';
import { LOG_SAFETY } from '../../src/infra/logger.ts';
import { defaultMounts } from '../../src/server.ts';
import { pgliteDb, postgresDb } from '../support/db.ts';
import { HttpBrowser } from '../support/web/browser.ts';
import { seedOrg, startTestServer, type TestServer } from '../support/web/server.ts';

/** Every route family, with ids that exist, so malformed input reaches past the lookups. */
function routes(ids: { general: string; agent: string }) {
  const ws = '/api/chat/w/acme';
  return [
    ['POST', `${ws}/conversations/${ids.general}/messages`],
    ['POST', `${ws}/channels`],
    ['POST', `${ws}/channels/${ids.general}/members`],
    ['POST', `${ws}/dms`],
    ['POST', `${ws}/agents`],
    ['POST', `${ws}/agents/${ids.agent}/join`],
    ['POST', `${ws}/conversations/${ids.general}/read`],
    ['GET', `${ws}/search?q=a%00b`],
    ['GET', `${ws}/conversations/%20`],
    ['POST', `${ws}/conversations/%20/messages`],
    ['POST', `${ws}/conversations//messages`],
    ['GET', `${ws}/conversations/%ZZ`],
    ['POST', '/api/chat/w/%ZZ/channels'],
    ['GET', '/api/chat/approvals/%ZZ'],
    ['POST', '/api/chat/approvals/x/decision'],
    ['GET', '/api/docs/w/acme/documents/%ZZ'],
    ['POST', '/api/docs/w/acme/documents/x/move'],
    ['PATCH', '/api/docs/w/acme/collections/x'],
    ['PUT', '/api/docs/w/acme/seats/bob'],
    ['GET', '/docs/%ZZ'],
    ['POST', '/docs/acme/c/x'],
    ['GET', '/api/links'],
    ['DELETE', '/api/links/%ZZ'],
    ['DELETE', '/api/links/'],
    ['GET', '/link/%ZZ'],
    ['GET', '/link/a%00b'],
    ['POST', '/link/nonce-that-is-not-there'],
    ['POST', '/account/links/%ZZ/unlink'],
    ['POST', '/signin'],
    ['POST', '/signin/link'],
    ['POST', '/account/password'],
    ['POST', '/api/messages'],
    ['POST', '/slack/events'],
    ['POST', '/mcp/acme'],
    ['POST', '/mcp/%ZZ'],
    ['GET', '/%ZZ'],
    ['GET', '/assets/%ZZ'],
    ['GET', '/readyz?x=%ZZ'],
    // Last: it ends the session the routes above are reached with.
    ['POST', '/signout'],
  ] as const;
}

// Just over the largest body limit (Teams' 1 MB).
const big = 'x'.repeat(1024 * 1024 + 1024);
const nul = 'a\u0000b';
/** The fixed corpus of bodies, each with the headers it is sent with. */
const CORPUS: Array<{ name: string; body?: string | Buffer; type?: string; headers?: Record<string, string> }> = [
  { name: 'no body' },
  { name: 'truncated JSON', body: '{"body": "hi', type: 'application/json' },
  { name: 'JSON with a trailing comma', body: '{"body": "hi",}', type: 'application/json' },
  { name: 'a JSON array', body: '[1, 2, 3]', type: 'application/json' },
  { name: 'JSON null', body: 'null', type: 'application/json' },
  { name: 'a JSON string', body: '"hello"', type: 'application/json' },
  { name: 'deeply nested JSON', body: '{"a":'.repeat(5000) + '1' + '}'.repeat(5000), type: 'application/json' },
  {
    name: 'wrong types',
    body: JSON.stringify({ body: 42, name: ['x'], handle: { a: 1 }, title: null, role: true, to: 7 }),
    type: 'application/json',
  },
  {
    name: 'NUL in every text field',
    type: 'application/json',
    body: JSON.stringify({
      body: nul,
      name: nul,
      description: nul,
      handle: nul,
      title: nul,
      summary: nul,
      content: nul,
      reason: nul,
      decision: nul,
      role: nul,
      instructions: nul,
      password: nul,
      displayName: nul,
      roleLine: nul,
    }),
  },
  { name: 'a NUL key', body: '{"a\\u0000":"b"}', type: 'application/json' },
  {
    name: 'a lone surrogate in every text field',
    type: 'application/json',
    body: JSON.stringify(
      Object.fromEntries(
        ['body', 'name', 'description', 'handle', 'title', 'summary', 'content', 'reason', 'decision', 'role']
          .concat(['instructions', 'password', 'displayName', 'roleLine'])
          .map((k) => [k, 'half \ud800 a character']),
      ),
    ),
  },
  { name: 'an oversized JSON body', body: JSON.stringify({ body: big }), type: 'application/json' },
  { name: 'a JSON body in an unknown charset', body: '{"body":"hi"}', type: 'application/json; charset=klingon' },
  {
    name: 'a body claiming gzip that is not',
    body: '{"body":"hi"}',
    type: 'application/json',
    headers: { 'content-encoding': 'gzip' },
  },
  {
    name: 'an unknown content encoding',
    body: '{"body":"hi"}',
    type: 'application/json',
    headers: { 'content-encoding': 'brotli-9000' },
  },
  {
    name: 'a gzip bomb',
    body: gzipSync(Buffer.alloc(8 * 1024 * 1024, 32)),
    type: 'application/json',
    headers: { 'content-encoding': 'gzip' },
  },
  {
    name: 'a form with NUL',
    body: `handle=${encodeURIComponent(nul)}&password=${encodeURIComponent(nul)}&body=%00&name=%00&decision=%00`,
    type: 'application/x-www-form-urlencoded',
  },
  { name: 'an oversized form', body: `handle=${big}`, type: 'application/x-www-form-urlencoded' },
  {
    name: 'a form with thousands of fields',
    body: Array.from({ length: 5000 }, (_, i) => `f${i}=1`).join('&'),
    type: 'application/x-www-form-urlencoded',
  },
  {
    name: 'invalid UTF-8',
    body: Buffer.from([0x7b, 0x22, 0x62, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
    type: 'application/json',
  },
];

describe('every route under a corpus of malformed, oversized and NUL-laden input', () => {
  let server: TestServer;
  let browser: HttpBrowser;
  let ids: { general: string; agent: string };
  const logLines: string[] = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _enc, done) {
        logLines.push(String(chunk));
        done();
      },
    });
    server = await startTestServer({
      // What is tested is HTTP input handling: PostgreSQL when there is one, whose ~700 requests' queries cost
      // about 2 s less CPU than PGlite's.
      db: postgresDb() ?? pgliteDb,
      // Every mount a server has, the web chat among the surfaces.
      mounts: await defaultMounts(),
      env: {
        SLACK_SIGNING_SECRET: 'fuzz-signing-secret',
        SLACK_BOT_TOKEN: 'xoxb-fuzz',
        SLACK_API_URL: 'http://127.0.0.1:9/api/',
        MICROSOFT_APP_ID: 'fuzz-app',
        MICROSOFT_APP_PASSWORD: 'fuzz-password',
        MICROSOFT_OPENID_METADATA_URL: 'http://127.0.0.1:9/openid',
        MICROSOFT_LOGIN_URL: 'http://127.0.0.1:9/login',
      },
      logger: pino({ level: 'debug', ...LOG_SAFETY }, sink),
    });
    const seed = await seedOrg(server, { org: 'Acme', workspace: 'acme', admin: 'alice', member: 'bob' });
    const { agent } = await server.app.agents.add(SYSTEM, { name: 'helper', owner: 'alice' });
    await server.app.agents.join(SYSTEM, { agent: 'alice/helper', workspace: 'acme' });
    browser = new HttpBrowser(server.url);
    await browser.signIn('alice', seed.password);
    const sidebar = (await browser.api('GET', '/w/acme/sidebar')).json();
    ids = { general: sidebar.channels.find((c: { name: string }) => c.name === 'general').id, agent: agent.id };
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers every input with a status below 500 and, for a refusal, a sentence saying what was wrong', async () => {
    const broken: string[] = [];
    let sent = 0;
    for (const [method, path] of routes(ids)) {
      for (const c of CORPUS) {
        if (method === 'GET' && c.body !== undefined) continue;
        // Signed in, with the CSRF token, so the input reaches the handlers and not only the sign-in wall.
        const headers: Record<string, string> = {
          ...browser.headers(),
          'x-csrf-token': browser.csrf,
          ...(c.type ? { 'content-type': c.type } : {}),
          ...c.headers,
        };
        const body = typeof c.body === 'string' || c.body === undefined ? c.body : new Uint8Array(c.body);
        const res = await fetch(server.url + path, { method, headers, body, redirect: 'manual' }).catch(
          (e: Error) => e,
        );
        sent++;
        if (res instanceof Error) {
          broken.push(`${method} ${path} with ${c.name}: ${res.message}`);
          continue;
        }
        const text = await res.text();
        if (res.status >= 500) broken.push(`${method} ${path} with ${c.name}: ${res.status} ${text.slice(0, 200)}`);
        else if (res.status >= 400 && res.headers.get('content-type')?.includes('json')) {
          const message = JSON.parse(text).error?.message ?? JSON.parse(text).error;
          if (
            !(typeof message === 'string' && message.length > 10) &&
            !path.startsWith('/mcp') &&
            !path.startsWith('/slack')
          ) {
            broken.push(`${method} ${path} with ${c.name}: ${res.status} without a sentence: ${text.slice(0, 200)}`);
          }
        }
      }
    }
    expect(sent).toBeGreaterThan(500);
    expect(broken).toEqual([]);
  }, 300_000);

  it('says which problem it was: 400 for malformed JSON, 413 for an oversized body, 400 naming NUL or a lone surrogate, 400 for %ZZ', async () => {
    browser = new HttpBrowser(server.url);
    await browser.signIn('alice', 'correct horse battery');
    const post = (path: string, body: string, type = 'application/json') =>
      fetch(server.url + path, {
        method: 'POST',
        body,
        headers: { ...browser.headers(), 'x-csrf-token': browser.csrf, 'content-type': type },
      });
    const messages = `/api/chat/w/acme/conversations/${ids.general}/messages`;
    const malformed = await post(messages, '{"body": ');
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error.message).toMatch(/could not be parsed/);
    const oversized = await post(messages, JSON.stringify({ body: big }));
    expect(oversized.status).toBe(413);
    expect((await oversized.json()).error.message).toMatch(/accepts at most/);
    const withNul = await post(messages, JSON.stringify({ body: nul }));
    expect(withNul.status).toBe(400);
    expect((await withNul.json()).error.message).toMatch(/^body: Text may not contain the NUL character/);
    const halfCharacter = await post(messages, JSON.stringify({ body: 'half \udc00 a character' }));
    expect(halfCharacter.status).toBe(400);
    expect((await halfCharacter.json()).error.message).toMatch(/^body: Text may not contain a lone UTF-16 surrogate/);
    const signin = await post(
      '/signin',
      `handle=${encodeURIComponent(nul)}&password=x`,
      'application/x-www-form-urlencoded',
    );
    expect(signin.status).toBeLessThan(500);
    const badPath = await fetch(`${server.url}/api/chat/w/acme/conversations/%ZZ`, { headers: browser.headers() });
    expect(badPath.status).toBe(400);
    expect((await badPath.json()).error.message).toMatch(/malformed percent-encoding/);
    const blank = await browser.api('POST', '/w/acme/conversations/%20/messages', { body: 'hi' });
    expect([400, 404]).toContain(blank.status);
    expect(blank.json().error.code).not.toBe('INTERNAL');
  });

  it('never hands the browser a non-http(s) permalink, whatever a platform API returned', async () => {
    const { app } = server;
    const ws = (await app.store.workspaces.get('acme'))!;
    const helper = (await app.store.agents.personAgent((await app.store.people.get('alice'))!.id))!;
    // Speaking once in #general makes alice a participant there.
    expect((await browser.api('POST', `/w/acme/conversations/${ids.general}/messages`, { body: 'hello' })).status).toBe(
      201,
    );
    await app.messaging.send({
      workspace: ws,
      sender: helper,
      conversationId: ids.general,
      body: 'from Slack',
      surface: 'slack',
      permalink: 'javascript:alert(document.cookie)',
    });
    await app.messaging.send({
      workspace: ws,
      sender: helper,
      conversationId: ids.general,
      body: 'also from Slack',
      surface: 'slack',
      permalink: 'https://acme.slack.com/archives/C1/p2',
    });
    const page = (await browser.api('GET', `/w/acme/conversations/${ids.general}`)).json();
    const byBody = new Map(
      (page.messages as Array<{ body: string; permalink: string | null }>).map((m) => [m.body, m.permalink]),
    );
    expect(byBody.get('from Slack')).toBeNull();
    expect(byBody.get('also from Slack')).toBe('https://acme.slack.com/archives/C1/p2');
  });

  it('writes no message body, link nonce or token into the logs, even at debug', async () => {
    const secretBody = `a body nobody may log ${Date.now()}`;
    await browser.api('POST', `/w/acme/conversations/${ids.general}/messages`, { body: secretBody });
    await fetch(`${server.url}/link/live-nonce-abcdef123456`);
    server.app.logger.debug(
      { url: `${server.url}/link/live-nonce-abcdef123456`, body: secretBody },
      `visited ${server.url}/signin?token=sign-in-secret-1`,
    );
    server.app.logger
      .child({ component: 'x' })
      .warn(new Error(`failed at /link/live-nonce-abcdef123456 with sb_abcdefghijklmnop`));
    const all = logLines.join('');
    expect(all.length).toBeGreaterThan(0);
    expect(all).toContain('/link/[redacted]');
    for (const leak of [secretBody, 'live-nonce-abcdef123456', 'sign-in-secret-1', 'sb_abcdefghijklmnop'])
      expect(all).not.toContain(leak);
  });
});

describe('the per-address sign-in limit behind no proxy', () => {
  let server: TestServer;
  beforeAll(async () => {
    // PostgreSQL when there is one: a copy of the migrated template costs this process nothing, where starting an
    // in-memory PGlite costs it about 1.5 s of CPU; the limit is the web layer's, whatever the database.
    server = await startTestServer({
      db: postgresDb() ?? pgliteDb,
      signinLimits: { perAddress: 3, perAccount: 100, windowMs: 15 * 60_000 },
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('cannot be dodged by rotating X-Forwarded-For, because TRUST_PROXY is off unless set', async () => {
    expect(server.app.config.trustProxy).toBe(false);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const browser = new HttpBrowser(server.url);
      await browser.get('/signin');
      const res = await browser.request('POST', '/signin', {
        body: new URLSearchParams({ _csrf: browser.csrf, handle: `nobody${i}`, password: 'wrong password' }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': `203.0.113.${i + 1}` },
      });
      statuses.push(res.status);
    }
    expect(statuses.slice(0, 3).every((s) => s !== 429)).toBe(true);
    expect(statuses.slice(3)).toEqual([429, 429]);
  });
});
