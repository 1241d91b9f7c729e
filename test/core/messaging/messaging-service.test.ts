import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import type { App } from '../../../src/app.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import { HOP_LIMIT } from '../../../src/core/messaging/rules.ts';
import type { Agent } from '../../../src/core/entities.ts';
import { pgliteDb } from '../../support/db.ts';
import { makeWorld, testApp, type World } from '../../support/world.ts';

let db: Database;
let app: App;
/** A clock the tests move by hand. */
const clock = {
  t: new Date('2026-11-15T12:00:00Z'),
  now() {
    return new Date(this.t);
  },
};

beforeAll(async () => {
  db = await pgliteDb.open();
  app = await testApp(db, { clock, rateLimit: { max: 5, windowMs: 60_000 } });
});
afterAll(async () => {
  await app.close();
  await db.close();
});

const personAgent = async (handle: string) =>
  (await app.store.agents.personAgent((await app.store.people.get(handle))!.id))!;
const send = (
  w: World,
  sender: Agent,
  input: { to?: string[]; conversationId?: string; replyTo?: string; body?: string },
) => app.messaging.send({ workspace: w.ws, sender, body: 'hello', ...input });
const inbox = async (w: World, a: Agent) =>
  (await app.messaging.checkInbox(a, w.ws, 100)).items.map((i) => i.message.body);

describe('messaging rules', () => {
  it('refuses to send without the send permission, and to read without receive', async () => {
    const w = await makeWorld(app, { builder: { send: false }, reviewer: { receive: false } });
    await expect(send(w, w.builder.agent, { to: ['reviewer'] })).rejects.toThrow(
      'You do not have the send permission in this workspace; ask your owner to grant it.',
    );
    await expect(app.messaging.checkInbox(w.reviewer.agent, w.ws, 10)).rejects.toMatchObject({
      code: 'NOT_PERMITTED',
      message:
        'You do not have the receive permission in this workspace, so you cannot read messages; ask your owner to grant it.',
    });
    const r = await send(w, await personAgent(w.alice), { to: ['reviewer'] });
    expect(r.recipients[0]).toMatchObject({ status: 'refused', rule: 'receive' });
  });

  it('applies can_message and takes_messages_from, per recipient', async () => {
    const w = await makeWorld(app, { builder: { canMessage: [] }, reviewer: { takesFrom: ['builder'] } });
    await app.agents.join(SYSTEM, { agent: w.builder.name, workspace: w.ws.slug, canMessage: [w.bob] });
    const r = await send(w, w.builder.agent, { to: ['reviewer', w.bob] });
    expect(r.recipients).toEqual([
      {
        to: 'reviewer',
        agent_id: w.reviewer.agent.id,
        status: 'refused',
        rule: 'can_message',
        reason: `Your can_message list in this workspace does not include ${w.reviewer.name}; ask your owner to add it, or message someone on the list.`,
      },
      { to: w.bob, agent_id: (await personAgent(w.bob)).id, status: 'delivered' },
    ]);
    const fromAlice = await send(w, await personAgent(w.alice), { to: ['reviewer'] });
    expect(fromAlice.recipients[0]).toMatchObject({ status: 'refused', rule: 'takes_messages_from' });
    expect(fromAlice.message).toBeNull();
  });

  it('lets only a monitor search messages it neither sent nor received', async () => {
    const w = await makeWorld(app);
    const watcher = await app.agents.add(SYSTEM, { name: 'watcher', owner: w.alice });
    await app.agents.join(SYSTEM, { agent: `${w.alice}/watcher`, workspace: w.ws.slug, monitor: true });
    const nosy = await app.agents.add(SYSTEM, { name: 'nosy', owner: w.alice });
    await app.agents.join(SYSTEM, { agent: `${w.alice}/nosy`, workspace: w.ws.slug });
    await send(w, w.builder.agent, { to: ['reviewer'], body: 'the quarterly budget is ready' });
    const search = (a: Agent) => app.messaging.search(a, w.ws, { text: 'budget', limit: 10 });
    expect(await search(watcher.agent)).toHaveLength(1);
    expect(await search(nosy.agent)).toHaveLength(0);
    expect(await search(w.reviewer.agent)).toHaveLength(1);
    await expect(
      app.messaging.search(watcher.agent, w.ws, { text: 'budget', conversationId: 'not-an-id', limit: 10 }),
    ).rejects.toThrow(
      'There is no conversation not-an-id in this workspace; leave `conversation` out to search them all.',
    );
    // Monitoring is reading, not speaking: a monitor cannot post into others' conversations.
    const conv = (await search(watcher.agent))[0].message.conversationId;
    await expect(send(w, watcher.agent, { conversationId: conv })).rejects.toThrow(
      'You are not part of that conversation',
    );
  });

  it("ranks a monitor's whole-workspace search within the newest stretch of history holding a full page of matches", async () => {
    const w = await makeWorld(app);
    const watcher = await app.agents.add(SYSTEM, { name: 'watcher', owner: w.alice });
    await app.agents.join(SYSTEM, { agent: `${w.alice}/watcher`, workspace: w.ws.slug, monitor: true });
    const start = clock.t;
    try {
      clock.t = new Date(start.getTime() - 3 * 86_400_000);
      await send(w, w.builder.agent, { to: ['reviewer'], body: 'kiwi kiwi kiwi, all about kiwi' });
      clock.t = new Date(start.getTime() - 20 * 60_000);
      await send(w, w.builder.agent, { to: ['reviewer'], body: 'one kiwi' });
      clock.t = new Date(start.getTime() - 10 * 60_000);
      await send(w, w.builder.agent, { to: ['reviewer'], body: 'another kiwi' });
    } finally {
      clock.t = start;
    }
    const bodies = async (a: Agent, limit: number) =>
      (await app.messaging.search(a, w.ws, { text: 'kiwi', limit })).map((h) => h.message.body);
    // The last hour holds a full page of two: the best match, three days old, is not ranked.
    expect(await bodies(watcher.agent, 2)).toEqual(['another kiwi', 'one kiwi']);
    // A page of three reaches back to the week, which holds all three: best match first.
    expect(await bodies(watcher.agent, 3)).toEqual(['kiwi kiwi kiwi, all about kiwi', 'another kiwi', 'one kiwi']);
    // An agent searching its own messages always has every match ranked.
    expect(await bodies(w.reviewer.agent, 2)).toEqual(['kiwi kiwi kiwi, all about kiwi', 'another kiwi']);
  });

  it('refuses a message past the monthly limit with PLAN_LIMIT, the limit, the count and the reset date', async () => {
    const w = await makeWorld(app);
    const org = (await app.store.orgs.get(w.org))!;
    await app.store.orgs.addUsage(org.id, '2026-11', 299);
    const ok = await send(w, w.builder.agent, { to: ['reviewer'] });
    expect(ok.message).not.toBeNull();
    const refused = send(w, w.builder.agent, { to: ['reviewer', w.bob] });
    await expect(refused).rejects.toMatchObject({
      code: 'PLAN_LIMIT',
      message:
        'This organization has used 300 of the 300 messages its free plan allows this month, and this message would count 2 more; the count resets on 2026-12-01 (UTC). Ask an organization admin to raise the plan.',
      details: { limit: 300, used: 300, adding: 2, resets_at: '2026-12-01T00:00:00.000Z' },
    });
    expect(await app.store.orgs.usage(org.id, '2026-11')).toBe(300);
  });

  it('keeps history only as long as the plan says, and purges older messages for good', async () => {
    const w = await makeWorld(app);
    const start = clock.t;
    try {
      clock.t = new Date(start.getTime() - 8 * 86_400_000);
      await send(w, w.builder.agent, { to: ['reviewer'], body: 'an ancient remark about turnips' });
      clock.t = start;
      await send(w, w.builder.agent, { to: ['reviewer'], body: 'a fresh remark about turnips' });
      const hits = await app.messaging.search(w.builder.agent, w.ws, { text: 'turnips', limit: 10 });
      expect(hits.map((h) => h.message.body)).toEqual(['a fresh remark about turnips']);
      expect(await app.messaging.purgeHistory()).toBeGreaterThanOrEqual(1);
      expect(await inbox(w, w.reviewer.agent)).toEqual(['a fresh remark about turnips']);
    } finally {
      clock.t = start;
    }
  });

  it("delivers an agent's reply in a group conversation only to the people, unless it names agents", async () => {
    const w = await makeWorld(app);
    const first = await send(w, w.builder.agent, { to: ['reviewer', w.bob], body: 'group kickoff' });
    const conv = first.conversation!.id;
    const reply = await send(w, w.reviewer.agent, { conversationId: conv, body: 'noted' });
    expect(reply.recipients.map((r) => r.to)).toEqual([`@${w.bob}`]);
    expect(await inbox(w, w.builder.agent)).toEqual([]);
    const addressed = await send(w, w.reviewer.agent, {
      conversationId: conv,
      to: ['builder'],
      body: 'builder, over to you',
    });
    expect(addressed.recipients).toMatchObject([{ status: 'delivered' }]);
    expect(await inbox(w, w.builder.agent)).toEqual(['builder, over to you']);
    // In a two-party DM the other side is addressed by being there.
    const dm = await send(w, w.builder.agent, { to: ['reviewer'], body: 'just us' });
    const back = await send(w, w.reviewer.agent, { conversationId: dm.conversation!.id, body: 'just us, yes' });
    expect(back.recipients).toMatchObject([{ to: w.builder.name, status: 'delivered' }]);
  });

  it('never widens a DM by naming someone outside it: they are refused, and neither join it nor get the message', async () => {
    const w = await makeWorld(app);
    const alice = await personAgent(w.alice);
    const dm = await send(w, alice, { to: ['reviewer'], body: 'between us: the launch slips a week' });
    const conv = dm.conversation!.id;
    const before = (await app.store.messages.participants(conv)).sort();
    const r = await send(w, w.reviewer.agent, { conversationId: conv, to: [w.alice, w.bob], body: 'fyi' });
    expect(r.recipients).toMatchObject([
      { to: w.alice, status: 'delivered' },
      {
        to: w.bob,
        status: 'refused',
        rule: 'not_in_conversation',
        reason: expect.stringMatching(/without `conversation`/),
      },
    ]);
    expect((await app.store.messages.participants(conv)).sort()).toEqual(before);
    expect(await inbox(w, await personAgent(w.bob))).toEqual([]);
  });

  it(`stops an agent-to-agent chain after ${HOP_LIMIT} hops and tells the person who started it, once`, async () => {
    const w = await makeWorld(app);
    const alice = await personAgent(w.alice);
    await send(w, alice, { to: ['builder'], body: 'builder, please coordinate with reviewer' });
    const agents = [w.builder, w.reviewer];
    const outcomes: string[] = [];
    for (let i = 0; i < HOP_LIMIT + 2; i++) {
      // They take turns until the limit; then the one refused tries again.
      const from = agents[Math.min(i, HOP_LIMIT) % 2];
      const to = agents[(Math.min(i, HOP_LIMIT) + 1) % 2];
      // Each agent writes with `to` only, never naming a parent: the chain is still followed.
      const r = await send(w, from.agent, { to: [to.agent.name], body: `hop ${i + 1}` });
      outcomes.push(r.recipients[0].status);
    }
    expect(outcomes).toEqual([...Array(HOP_LIMIT).fill('delivered'), 'refused', 'refused']);
    const told = (await app.messaging.checkInbox(alice, w.ws, 10)).items;
    expect(told).toHaveLength(1);
    expect(told[0].message.body).toContain(
      `stopped a chain of agent-to-agent messages started by your request after ${HOP_LIMIT} hops`,
    );
    // A person answering starts a new chain, so the agents may talk again.
    await send(w, alice, { to: ['builder'], body: 'go on' });
    expect((await send(w, w.builder.agent, { to: ['reviewer'], body: 'continuing' })).recipients[0].status).toBe(
      'delivered',
    );
  });

  it('rate-limits one agent in one conversation, also when it writes with `to` only', async () => {
    const w = await makeWorld(app);
    for (let i = 0; i < 5; i++) await send(w, w.builder.agent, { to: [w.bob], body: `update ${i}` });
    await expect(send(w, w.builder.agent, { to: [w.bob], body: 'one more' })).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      message:
        'You have sent 5 messages to this conversation in the last 60 seconds, the most the rate limit allows; wait 60 seconds before sending more there.',
    });
    // Another conversation is counted on its own.
    expect((await send(w, w.builder.agent, { to: ['reviewer'] })).message).not.toBeNull();
  });

  it('refuses a reply in a conversation the sender is not part of as if it did not exist, or to a message of another conversation', async () => {
    const w = await makeWorld(app);
    const a = await send(w, w.builder.agent, { to: ['reviewer'] });
    const b = await send(w, w.builder.agent, { to: [w.bob] });
    // A conversation the sender cannot see answers like an unknown id: a refusal never tells which conversations exist.
    const made = b.conversation!.id.replace(/.$/, (c) => (c === '0' ? '1' : '0'));
    for (const id of [b.conversation!.id, made]) {
      await expect(send(w, w.reviewer.agent, { conversationId: id })).rejects.toMatchObject({
        code: 'NOT_FOUND',
        message: `There is no conversation ${id} in this workspace; use the conversation id of a message you received.`,
      });
    }
    await expect(
      send(w, w.builder.agent, { conversationId: a.conversation!.id, replyTo: b.message!.id }),
    ).rejects.toThrow('belongs to another conversation');
  });

  it('refuses an empty or oversized body, and a message with no recipient', async () => {
    const w = await makeWorld(app);
    await expect(send(w, w.builder.agent, { to: ['reviewer'], body: '  ' })).rejects.toThrow(
      'The message body is empty; write something to send.',
    );
    await expect(send(w, w.builder.agent, { to: ['reviewer'], body: 'x'.repeat(16_001) })).rejects.toThrow(
      'the limit is 16000',
    );
    await expect(send(w, w.builder.agent, {})).rejects.toThrow('Say who the message is for');
  });
});
