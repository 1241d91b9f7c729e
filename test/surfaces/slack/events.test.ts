// Requests reaching POST /slack/events: Bolt's signature check keeps out what
// Slack did not sign, redeliveries are handled once, and the app never reacts
// to its own posts.
import { count } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { externalIdentities, inboundEvents, messages } from '../../../src/infra/db/schema.ts';
import { pgliteDb } from '../../support/db.ts';
import { SLACK_DEFAULTS, dmChannelId } from '../../support/slack/defaults.ts';
import { appMention, eventCallback, messageIm, urlVerification } from '../../support/slack/signed-request.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import { inbox, startHarness, type Harness } from '../../support/slack/harness.ts';

const BOT = `<@${SLACK_DEFAULTS.botUserId}>`;

describe('POST /slack/events', () => {
  let db: Database;
  let standin: SlackStandin;
  let h: Harness;
  const logLines: string[] = [];
  const rows = async () => {
    const [m] = await db.db.select({ n: count() }).from(messages);
    const [e] = await db.db.select({ n: count() }).from(inboundEvents);
    const [i] = await db.db.select({ n: count() }).from(externalIdentities);
    return { messages: Number(m.n), events: Number(e.n), identities: Number(i.n) };
  };
  /** Sends a fresh mention and waits until the agent has it: everything sent before has been handled too. */
  const marker = async (text: string) => {
    await h.post(
      eventCallback(appMention({ user: 'U0CAROL01', channel: 'C0GENERAL', text: `${BOT} @reviewer ${text}` })),
    );
    // Reading marks items read, so keep every item read while waiting.
    const seen: Awaited<ReturnType<typeof inbox>> = [];
    return vi.waitFor(
      async () => {
        seen.push(...(await inbox(h)));
        expect(seen.map((i) => i.message.body)).toContain(`@reviewer ${text}`);
        return seen;
      },
      { timeout: 20_000, interval: 50 },
    );
  };

  beforeAll(async () => {
    [db, standin] = await Promise.all([pgliteDb.open(), startSlackStandin()]);
    standin.setUser('U0CAROL01', { real_name: 'Carol Chen' });
    h = await startHarness({ database: db, standin, seed: true, logLines });
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  it('refuses unsigned, wrongly signed and stale requests with 401 and stores nothing', async () => {
    const before = await rows();
    const event = () =>
      eventCallback(appMention({ user: 'U0CAROL01', channel: 'C0GENERAL', text: `${BOT} @reviewer hi` }));
    const unsigned = event();
    const bare = await fetch(`${h.server.url}/slack/events`, {
      method: 'POST',
      headers: { 'content-type': unsigned.contentType },
      body: unsigned.body,
    });
    expect(bare.status).toBe(401);
    expect((await h.post(event(), { wrongSecret: true })).status).toBe(401);
    expect((await h.post(event(), { stale: true })).status).toBe(401);
    // A signature for one body does not cover another.
    const signed = event();
    const { headers } = await import('../../support/slack/signed-request.ts').then((m) => m.signRequest(signed));
    const tampered = await fetch(`${h.server.url}/slack/events`, {
      method: 'POST',
      headers,
      body: signed.body.replace('hi', 'transfer everything'),
    });
    expect(tampered.status).toBe(401);

    await marker('after the refusals');
    const after = await rows();
    expect(after.messages - before.messages).toBe(1);
    expect(after.events - before.events).toBe(1);
    // Listeners run only from stored requests (receiver.ts), so one stored event means the refused ones reached none.
  });

  it("answers Slack's url_verification challenge", async () => {
    const res = await h.post(urlVerification('3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P'));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P' });
  });

  it('acknowledges at once and handles the same event_id delivered three times once', async () => {
    const event = eventCallback(
      appMention({ user: 'U0CAROL01', channel: 'C0GENERAL', text: `${BOT} @reviewer only once please` }),
    );
    const responses = await Promise.all([
      h.post(event),
      h.post(event, { retry: { num: 1, reason: 'http_timeout' } }),
      h.post(event, { retry: { num: 2, reason: 'http_timeout' } }),
    ]);
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200]);
    const items = await marker('after the retries');
    const all = [...items, ...(await inbox(h))];
    expect(all.filter((i) => i.message.body === '@reviewer only once please')).toHaveLength(1);
  });

  it('does not react to its own posts or other bots', async () => {
    const calls = standin.callsTo('chat.postMessage').length;
    const own = messageIm({
      user: SLACK_DEFAULTS.botUserId,
      text: 'an agent answer',
      channel: dmChannelId('U0CAROL01'),
      extra: {
        bot_id: SLACK_DEFAULTS.botId,
        subtype: 'bot_message',
        username: 'Reviewer',
        metadata: { event_type: 'switchboard_message', event_payload: { agent: 'alice/reviewer', message_id: 'x' } },
      },
    });
    const otherBot = appMention({
      user: 'U0OTHERBOT',
      channel: 'C0GENERAL',
      text: `${BOT} @reviewer loop?`,
      extra: { bot_id: 'B0OTHER' },
    });
    expect((await h.post(eventCallback(own))).status).toBe(200);
    expect((await h.post(eventCallback(otherBot))).status).toBe(200);
    const items = await marker('after the bots');
    expect(items.map((i) => i.message.body)).not.toContain('an agent answer');
    expect(items.map((i) => i.message.body)).not.toContain('@reviewer loop?');
    // Nothing was said back to either of them.
    expect(standin.callsTo('chat.postMessage').length).toBe(calls);
  });

  it('never logs the bot token, even when Slack cannot be reached', async () => {
    standin.setUser('U0DROPPED', { real_name: 'Dropped' });
    standin.failNext('users.info', { drop: true });
    await h.post(
      eventCallback(
        appMention({ user: 'U0DROPPED', channel: 'C0GENERAL', text: `${BOT} @reviewer through a flaky network` }),
      ),
    );
    await vi.waitFor(
      async () => expect((await inbox(h)).map((i) => i.message.body)).toContain('@reviewer through a flaky network'),
      { timeout: 20_000, interval: 50 },
    );
    expect(logLines.some((l) => l.includes('could not read the Slack profile'))).toBe(true);
    for (const line of logLines) expect(line).not.toContain(standin.botToken);
  });
});
