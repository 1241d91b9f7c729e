// Signed Slack requests that can never be handled: refused at the gate with
// 400 and a sentence (Slack does not retry a 400), never stored, never 5xx;
// and a well-formed mention still goes through beside them.
import { count } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { inboundEvents } from '../../../src/infra/db/schema.ts';
import { MAX_DEPTH, slackRequestRefusal } from '../../../src/surfaces/slack/request-shape.ts';
import { SLACK_INBOUND } from '../../../src/surfaces/slack/topics.ts';
import { pgliteDb } from '../../support/db.ts';
import { SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import type { SlackRequestBody } from '../../support/slack/signed-request.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import { mentionAndReceive, startHarness, type Harness } from '../../support/slack/harness.ts';

const raw = (body: string, contentType: SlackRequestBody['contentType'] = 'application/json'): SlackRequestBody => ({
  contentType,
  body,
  payload: null,
});
const event = (e: Record<string, unknown>, envelope: Record<string, unknown> = {}) =>
  raw(
    JSON.stringify({
      token: 'x',
      team_id: SLACK_DEFAULTS.teamId,
      api_app_id: 'A0SWITCHBD',
      type: 'event_callback',
      event_id: 'Ev0HOSTILE01',
      event_time: 1710000000,
      ...envelope,
      event: e,
    }),
  );
const mention = { type: 'app_mention', user: 'U0CAROL01', channel: 'C0GENERAL', text: 'hi', ts: '1710000000.000100' };
const nested = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

/** Each hostile request and what its refusal must name. */
const HOSTILE: Array<[string, SlackRequestBody, RegExp]> = [
  ['a JSON body that is null', raw('null'), /must be a JSON object .*this one is null/],
  ['a JSON body that is an array', raw('[1,2]'), /this one is an array/],
  ['a form whose payload is null', raw('payload=null', 'application/x-www-form-urlencoded'), /this one is null/],
  ['an event that is null', event(null as never), /`event` is missing or of the wrong type/],
  ['an event without a type', event({ channel: 'C0GENERAL' }), /`event.type` is missing/],
  ['a channel id that is not one', event({ ...mention, channel: 'x' }), /`event.channel` is not a Slack id/],
  [
    'a thread that is no timestamp',
    event({ ...mention, thread_ts: 'c;drop' }),
    /`event.thread_ts` is not a Slack message timestamp/,
  ],
  [
    'an event id of 100 KB',
    event(mention, { event_id: `Ev${'A'.repeat(100_000)}` }),
    /`event_id` is longer than any Slack event id/,
  ],
  [
    'a body nested 10,000 deep',
    raw(`{"type":"event_callback","event_id":"Ev1","event":${nested(10_000)}}`),
    /nests more than 40 levels/,
  ],
  [
    'a slash command from a channel that is not one',
    raw(
      `command=%2Fswitchboard&text=help&team_id=${SLACK_DEFAULTS.teamId}&user_id=U0CAROL01&channel_id=%3Bdrop`,
      'application/x-www-form-urlencoded',
    ),
    /`channel_id` is not a Slack id/,
  ],
  [
    'a button click from a channel that is not one',
    raw(
      `payload=${encodeURIComponent(JSON.stringify({ type: 'block_actions', user: { id: 'U0CAROL01' }, team: { id: SLACK_DEFAULTS.teamId }, channel: { id: 'x y' }, actions: [] }))}`,
      'application/x-www-form-urlencoded',
    ),
    /`channel.id` is not a Slack id/,
  ],
  [
    // Past the gate, but its key cannot be stored: refused for good, not answered 503 for Slack to retry.
    'a button click whose type holds a NUL character',
    raw(
      `payload=${encodeURIComponent(JSON.stringify({ type: '\u0000', user: { id: 'U0CAROL01' }, team: { id: SLACK_DEFAULTS.teamId }, channel: { id: 'C0GENERAL' }, actions: [] }))}`,
      'application/x-www-form-urlencoded',
    ),
    /The inbound event cannot be stored: kind contains a NUL character/,
  ],
];

describe('signed Slack requests that can never be handled', () => {
  let db: Database;
  let standin: SlackStandin;
  let h: Harness;

  beforeAll(async () => {
    db = await pgliteDb.open();
    standin = await startSlackStandin();
    h = await startHarness({ database: db, standin, seed: true });
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  it('are refused with 400 and a sentence naming what is wrong, and none is stored', async () => {
    const [before] = await db.db.select({ n: count() }).from(inboundEvents);
    for (const [name, request, says] of HOSTILE) {
      const res = await h.post(request);
      expect(res.status, name).toBe(400);
      expect(await res.text(), name).toMatch(says);
    }
    const [after] = await db.db.select({ n: count() }).from(inboundEvents);
    expect(after.n).toBe(before.n);
  });

  it('leave a well-formed mention beside them to be handled as ever', async () => {
    const { item } = await mentionAndReceive(h, 'still there?');
    expect(item.message.body).toMatch(/^@reviewer still there\?/);
  });

  it('stored before the gate checked them (an older release), are given up at their first attempt, not retried', async () => {
    const { app } = h.server;
    const stored = await app.store.inbound.accept(
      {
        surface: 'slack',
        key: 'event:Ev0STOREDBAD',
        kind: 'event',
        payload: { body: { type: 'event_callback', event_id: 'Ev0STOREDBAD', event: null } },
      },
      { topic: SLACK_INBOUND, orderingKey: null },
    );
    app.queue.kick();
    await expect.poll(async () => (await app.store.outbox.get(stored!.outboxId!))?.status).toBe('failed');
    const entry = await app.store.outbox.get(stored!.outboxId!);
    expect(entry?.attempts).toBe(1);
    expect(entry?.lastError).toMatch(/cannot be handled: The request's `event` is missing or of the wrong type/);
  });

  it('pass the payloads Slack does send, whatever their event', () => {
    for (const e of [
      mention,
      { type: 'channel_created', channel: { id: 'C0NEW', name: 'new', created: 1710000000 } },
      { type: 'user_change', user: { id: 'U0CAROL01', name: 'carol' } },
      {
        type: 'message',
        subtype: 'message_changed',
        channel: 'C0GENERAL',
        message: { ts: '1.2' },
        ts: '1710000000.000200',
      },
      { type: 'app_uninstalled' },
    ])
      expect(slackRequestRefusal(JSON.parse(event(e).body)), e.type).toBeNull();
    expect(slackRequestRefusal({ type: 'url_verification', challenge: 'abc' })).toBeNull();
    expect(slackRequestRefusal(JSON.parse(nested(MAX_DEPTH - 1)))).not.toMatch(/nests/);
  });
});
