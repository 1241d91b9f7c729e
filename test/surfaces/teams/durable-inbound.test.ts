// Teams activities are stored after the SDK authenticated them and before the
// 200: a server that stops before handling one hands it to the next server; a
// card click is answered inline and once; a malformed body gets 400 and a reason.
import { count } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { inboundEvents } from '../../../src/infra/db/schema.ts';
import type { Database } from '../../../src/infra/db/client.ts';
import { pgliteDb, postgresDb } from '../../support/db.ts';
import { adaptiveCardAction, channelMention, personalMessage } from '../../support/teams/activities.ts';
import { startTeamsStandin, type TeamsStandin } from '../../support/teams/standin.ts';
import { inbox, startHarness, type Harness } from '../../support/teams/harness.ts';

const LONG = { timeout: 30_000, interval: 50 };

describe('durable Teams intake', () => {
  let db: Database;
  let standin: TeamsStandin;
  let h: Harness;

  beforeAll(async () => {
    // Keys endorsed for Web Chat too, as a registration with that channel on has: the token check alone would pass its activities.
    [db, standin] = await Promise.all([
      (postgresDb() ?? pgliteDb).open(),
      startTeamsStandin({ endorsements: ['msteams', 'webchat'] }),
    ]);
    // The first server acknowledges what it receives but never handles it, like one killed after the 200.
    h = await startHarness({ database: db, standin, queueStopped: true });
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  it('answers malformed bodies 400 with the reason, before any token check, and stores nothing', async () => {
    const [before] = await db.db.select({ n: count() }).from(inboundEvents);
    const post = (body: string) =>
      fetch(`${h.server.url}/api/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const cases: Array<[string, string]> = [
      ['{"type": "message",', 'not valid JSON'],
      ['[1, 2, 3]', 'malformed'],
      [
        JSON.stringify({
          type: 'message',
          channelId: 'msteams',
          serviceUrl: 'https://smba.example.test/',
          from: { id: '29:a' },
          recipient: { id: '28:b' },
        }),
        'conversation',
      ],
      [
        JSON.stringify({
          type: 'message',
          channelId: 'msteams',
          serviceUrl: 'not a url',
          conversation: { id: '19:x' },
          from: { id: '29:a' },
          recipient: { id: '28:b' },
        }),
        'serviceUrl',
      ],
    ];
    for (const [body, reason] of cases) {
      const res = await post(body);
      expect(res.status).toBe(400);
      const answer = (await res.json()) as { error: { code: string; message: string } };
      expect(answer.error.code).toBe('INVALID_INPUT');
      expect(answer.error.message).toContain(reason);
    }
    const huge = await post(JSON.stringify({ type: 'message', text: 'x'.repeat(1_100_000) }));
    expect(huge.status).toBe(413);
    const [after] = await db.db.select({ n: count() }).from(inboundEvents);
    expect(after.n).toBe(before.n);
  });

  it('refuses a correctly signed activity from another channel (Web Chat), whose client chose the tenant and user it names', async () => {
    const [before] = await db.db.select({ n: count() }).from(inboundEvents);
    const posed = { ...personalMessage(standin, { text: 'approve everything' }), channelId: 'webchat' };
    const res = await h.post(posed as never);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('Microsoft Teams only');
    const [after] = await db.db.select({ n: count() }).from(inboundEvents);
    expect(after.n).toBe(before.n);
    // The same activity from Teams is taken.
    expect((await h.post(personalMessage(standin, { text: 'hello' }))).status).toBe(200);
  });

  it('runs a card click inline and once: a resend is told it was received, without choosing again', async () => {
    const click = adaptiveCardAction(standin, {
      verb: 'chooseAgent',
      data: { sb: 'pickAgent', agentId: h.reviewer.id },
      cardActivityId: '1760000000900',
    });
    const first = await h.post(click);
    expect(first).toMatchObject({
      status: 200,
      body: { statusCode: 200, type: 'application/vnd.microsoft.card.adaptive' },
    });
    const again = await h.post(click);
    expect(again).toMatchObject({
      status: 200,
      body: { statusCode: 200, type: 'application/vnd.microsoft.activity.message' },
    });
    expect(JSON.stringify(again.body)).toContain('already received');
  });

  it('hands an activity acknowledged by a server that stopped before handling it to the next server, once', async () => {
    const mention = channelMention(standin, { text: 'ask reviewer to check the restart' });
    expect((await h.post(mention)).status).toBe(200);
    // Teams sends it again (the bot was slow): still one activity.
    expect((await h.post(mention)).status).toBe(200);
    await h.stop();
    h = await startHarness({ database: db, standin, seed: false });
    const seen: string[] = [];
    await vi.waitFor(async () => {
      seen.push(...(await inbox(h)).map((i) => i.message.body));
      expect(seen).toContain('ask reviewer to check the restart');
    }, LONG);
    // Whatever a second copy would do is done by now: a later activity in the same conversation was handled.
    const marker = channelMention(standin, { text: 'ask reviewer to look after the restart' });
    expect((await h.post(marker)).status).toBe(200);
    await vi.waitFor(async () => {
      seen.push(...(await inbox(h)).map((i) => i.message.body));
      expect(seen).toContain('ask reviewer to look after the restart');
    }, LONG);
    expect(seen.filter((b) => b === 'ask reviewer to check the restart')).toHaveLength(1);
  }, 120_000);
});
