// Socket Mode (SLACK_APP_TOKEN): Switchboard connects out to Slack's stand-in,
// stores every envelope through the same intake as the HTTP receiver before it
// acknowledges it, and neither loses nor doubles a request when Slack asks for a
// new connection, when the connection drops, or across two servers each holding
// one.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { slackRuntime } from '../../../src/app-surfaces.ts';
import type { Database } from '../../../src/infra/db/client.ts';
import { inboundEvents, slackInstallations } from '../../../src/infra/db/schema.ts';
import { PICK_AGENT } from '../../../src/surfaces/slack/home.ts';
import { pgliteDb } from '../../support/db.ts';
import { dmChannelId, SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { inbox, startHarness, type Harness } from '../../support/slack/harness.ts';
import { appMention, eventCallback, slashCommand, staticSelectAction } from '../../support/slack/payloads.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';

const BOT = `<@${SLACK_DEFAULTS.botUserId}>`;
const CAROL = 'U0CAROL01';
const LONG = { timeout: 20_000, interval: 50 };

describe('Slack over Socket Mode', () => {
  let db: Database;
  let standin: SlackStandin;
  let h: Harness;
  const logLines: string[] = [];
  const mention = (text: string) =>
    eventCallback(appMention({ user: CAROL, channel: 'C0GENERAL', text: `${BOT} @reviewer ${text}` }));

  /** Every body the reviewer has received until all of `bodies` are there, each as many times as it came. */
  const receivedAll = async (bodies: string[]) => {
    const seen: string[] = [];
    await vi.waitFor(async () => {
      seen.push(...(await inbox(h)).map((i) => i.message.body));
      for (const b of bodies) expect(seen).toContain(`@reviewer ${b}`);
    }, LONG);
    return seen;
  };
  const acked = (id: string) => standin.socketMode.acks.filter((a) => a.envelopeId === id);

  /** Holds the intake's store until `release()`; `calls` counts the requests that reached it. */
  function holdStorage() {
    const events = slackRuntime(h.server.app).core.inboundEvents;
    const original = events.accept.bind(events);
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const order: string[] = [];
    const spy = vi.spyOn(events, 'accept').mockImplementation(async (e, job) => {
      await held;
      const stored = await original(e, job);
      order.push(`stored ${e.key}`);
      return stored;
    });
    return {
      spy,
      order,
      release: () => {
        release();
        spy.mockRestore();
      },
    };
  }

  beforeAll(async () => {
    [db, standin] = await Promise.all([pgliteDb.open(), startSlackStandin()]);
    standin.setUser(CAROL, { real_name: 'Carol Chen' });
    h = await startHarness({ database: db, standin, seed: true, socketMode: true, logLines });
    await vi.waitFor(() => expect(standin.socketMode.open()).toHaveLength(1), LONG);
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  it('connects out with the app-level token, says so at start-up, and serves no HTTP request route', async () => {
    const opens = standin.callsTo('apps.connections.open');
    expect(opens.map((c) => [c.token, c.status])).toEqual([[standin.appToken, 200]]);
    await vi.waitFor(() => expect(logLines.join('\n')).toContain('connected to Slack over Socket Mode'));
    expect(logLines.join('\n')).toContain('Slack requests arrive over Socket Mode (SLACK_APP_TOKEN is set)');
    const res = await h.post(mention('over HTTP'));
    expect(res.status).toBe(404);
    expect(await res.text()).toMatch(/over Socket Mode .*turn Socket Mode on in the Slack app's settings/);
  });

  it('refuses the app-level token where a bot token belongs, and a bot token for apps.connections.open', async () => {
    const call = (method: string, token: string) =>
      fetch(`${standin.url}${method}`, { method: 'POST', headers: { authorization: `Bearer ${token}` } }).then(
        (r) => r.json() as Promise<{ ok: boolean; error?: string }>,
      );
    expect(await call('apps.connections.open', standin.botToken)).toEqual({
      ok: false,
      error: 'not_allowed_token_type',
    });
    expect(await call('auth.test', standin.appToken)).toEqual({ ok: false, error: 'not_allowed_token_type' });
  });

  it('hands a mention to the agent once and acknowledges its envelope, with no response payload', async () => {
    const id = standin.socketMode.send(mention('once over the socket'));
    const seen = await receivedAll(['once over the socket']);
    expect(seen.filter((b) => b === '@reviewer once over the socket')).toHaveLength(1);
    await vi.waitFor(() => expect(acked(id).length).toBeGreaterThan(0), LONG);
    expect(acked(id)[0].payload).toEqual({});
  });

  it('answers a slash command at its response_url and handles a click on the Home tab picker', async () => {
    const url = standin.responseUrl();
    standin.socketMode.send(
      slashCommand({
        command: '/switchboard',
        text: 'agents',
        user_id: CAROL,
        channel_id: 'C0GENERAL',
        response_url: url,
      }),
    );
    const answer = await vi.waitFor(() => {
      const post = standin.responseUrlPosts.find((p) => p.url === url);
      expect(post).toBeDefined();
      return post!.body as { text: string };
    }, LONG);
    expect(answer.text).toContain('reviewer');

    standin.socketMode.send(
      staticSelectAction({ user: CAROL, action_id: PICK_AGENT, selected: { value: h.reviewer.id, text: 'Reviewer' } }),
    );
    await vi.waitFor(() => {
      const told = standin.messages(dmChannelId(CAROL)).map((m) => m.text ?? '');
      expect(told.some((t) => t.startsWith('You are now talking to *Reviewer*'))).toBe(true);
    }, LONG);
  });

  it('acknowledges an envelope only once it is stored', async () => {
    const hold = holdStorage();
    const id = standin.socketMode.send(mention('stored first'));
    standin.socketMode.onAck = (a) => {
      if (a.envelopeId === id) hold.order.push('acked');
    };
    await vi.waitFor(() => expect(hold.spy).toHaveBeenCalled(), LONG);
    // In the store and not out of it: no acknowledgement yet.
    expect(acked(id)).toEqual([]);
    hold.release();
    await vi.waitFor(() => expect(hold.order).toContain('acked'), LONG);
    expect(hold.order[0]).toMatch(/^stored event:/);
    standin.socketMode.onAck = undefined;
  });

  it('loses and doubles nothing when Slack asks for a new connection mid-stream, or the connection drops', async () => {
    const socket = standin.socketMode;
    /** Envelopes sent while storing is held, then the connection goes: their acknowledgements cannot arrive. */
    const whileGoing = async (texts: string[], go: (connection: number) => void) => {
      const [connection] = socket.open();
      const hold = holdStorage();
      const ids = texts.map((t) => socket.send(mention(t), { connection }));
      await vi.waitFor(() => expect(hold.spy.mock.calls.length).toBeGreaterThanOrEqual(texts.length), LONG);
      go(connection);
      await vi.waitFor(() => {
        expect(socket.open()).not.toContain(connection);
        expect(socket.open()).toHaveLength(1);
      }, LONG);
      hold.release();
      return ids;
    };
    const refreshed = await whileGoing(['refresh 1', 'refresh 2', 'refresh 3'], (c) =>
      socket.disconnect('refresh_requested', c),
    );
    const dropped = await whileGoing(['drop 1', 'drop 2', 'drop 3'], (c) => socket.drop(c));
    // Sent right after the drop, before the new connection opened: held by Slack, then delivered.
    const after = socket.send(mention('after the drop'));

    const texts = ['refresh 1', 'refresh 2', 'refresh 3', 'drop 1', 'drop 2', 'drop 3', 'after the drop'];
    const seen = await receivedAll(texts);
    await vi.waitFor(() => expect(socket.unacked()).toEqual([]), LONG);
    for (const t of texts) expect(seen.filter((b) => b === `@reviewer ${t}`)).toHaveLength(1);
    // Each envelope whose connection went before its acknowledgement was sent again, and acknowledged then.
    for (const id of [...refreshed, ...dropped]) {
      const sent = socket.deliveries.filter((d) => d.envelope.envelope_id === id);
      expect(sent.map((d) => d.envelope.retry_attempt)).toContain(1);
      expect(acked(id).length).toBeGreaterThan(0);
    }
    expect(acked(after).length).toBeGreaterThan(0);
    expect(socket.abandoned).toEqual([]);
  });

  it('acknowledges a request that can never be handled without storing it, so Slack does not send it again', async () => {
    const bad = eventCallback({ ...appMention({ user: CAROL, channel: 'C0GENERAL', text: 'x' }), channel: 'general' });
    const id = standin.socketMode.send(bad);
    await vi.waitFor(() => expect(acked(id)).toHaveLength(1), LONG);
    expect(logLines.join('\n')).toContain('refused a Slack request that cannot be handled');
    const key = `event:${bad.payload.event_id}`;
    expect(await db.db.select().from(inboundEvents).where(eq(inboundEvents.key, key))).toEqual([]);
  });

  it('says what to do when Slack refuses the app-level token, and keeps trying', async () => {
    const lines: string[] = [];
    const wrong = 'xapp-1-A0SWBOARD-3000000004-notthisone';
    const h3 = await startHarness({
      database: db,
      standin,
      socketMode: true,
      env: { SLACK_APP_TOKEN: wrong },
      logLines: lines,
    });
    try {
      await vi.waitFor(() => {
        expect(lines.join('\n')).toContain('Slack refused SLACK_APP_TOKEN (invalid_auth)');
        expect(standin.callsTo('apps.connections.open').filter((c) => c.token === wrong).length).toBeGreaterThan(1);
      }, LONG);
      expect(standin.socketMode.open()).toHaveLength(1);
    } finally {
      await h3.stop();
    }
  });

  it('serves the OAuth install pages in Socket Mode, with no signing secret', async () => {
    const team = { teamId: 'T0SOCKET1', teamName: 'Socket Team', botUserId: 'U0SOCBOT1', botId: 'B0SOCBOT1' };
    const h3 = await startHarness({
      database: db,
      standin,
      socketMode: true,
      env: { SLACK_CLIENT_ID: SLACK_DEFAULTS.clientId, SLACK_CLIENT_SECRET: SLACK_DEFAULTS.clientSecret },
    });
    try {
      const started = await fetch(`${h3.server.url}/slack/install`, { redirect: 'manual' });
      expect(started.status).toBe(302);
      const state = new URL(started.headers.get('location')!).searchParams.get('state')!;
      const cookie = started.headers.get('set-cookie')!.split(';')[0];
      const query = new URLSearchParams({ code: standin.issueOAuthCode(team), state });
      const done = await fetch(`${h3.server.url}/slack/oauth_redirect?${query}`, { headers: { cookie } });
      expect(done.status).toBe(200);
      const [row] = await db.db.select().from(slackInstallations).where(eq(slackInstallations.teamId, team.teamId));
      expect(row).toMatchObject({ teamName: 'Socket Team', botUserId: team.botUserId });
    } finally {
      await h3.stop();
    }
  });

  it('shares the envelopes between two servers each holding a connection, each request handled once', async () => {
    const lines: string[] = [];
    const h2 = await startHarness({ database: db, standin, socketMode: true, logLines: lines });
    try {
      await vi.waitFor(() => expect(standin.socketMode.open()).toHaveLength(2), LONG);
      await vi.waitFor(() => expect(lines.join('\n')).toContain('"connections":2'), LONG);
      const texts = Array.from({ length: 6 }, (_, i) => `shared ${i}`);
      const ids = texts.map((t) => standin.socketMode.send(mention(t)));
      const seen = await receivedAll(texts);
      for (const t of texts) expect(seen.filter((b) => b === `@reviewer ${t}`)).toHaveLength(1);
      const via = new Set(
        standin.socketMode.deliveries.filter((d) => ids.includes(d.envelope.envelope_id)).map((d) => d.connection),
      );
      expect(via.size).toBe(2);
      await vi.waitFor(() => expect(standin.socketMode.unacked()).toEqual([]), LONG);
    } finally {
      await h2.stop();
    }
    // The stopped server's connection closed; the other takes everything.
    await vi.waitFor(() => expect(standin.socketMode.open()).toHaveLength(1), LONG);
    standin.socketMode.send(mention('after one server stopped'));
    await receivedAll(['after one server stopped']);
  });
});
