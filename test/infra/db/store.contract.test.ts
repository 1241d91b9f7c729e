import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { messages } from '../../../src/infra/db/schema.ts';
import { createStore } from '../../../src/infra/db/store.ts';
import { AgentService } from '../../../src/core/agents/agent-service.ts';
import { hashSecret } from '../../../src/core/agents/tokens.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import type { SwitchboardError } from '../../../src/core/errors.ts';
import { OrgService } from '../../../src/core/organizations/org-service.ts';
import { systemClock, type SendGate, type Store } from '../../../src/core/ports.ts';
import { databases } from '../../support/db.ts';
import { rowsReadBy } from '../../support/explain.ts';

const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    return (e as SwitchboardError).code;
  }
  return 'OK';
};

describe.each(databases())('store on $kind', (kind) => {
  let database: Database;
  let store: Store;
  let orgs: OrgService;
  let agents: AgentService;

  beforeAll(async () => {
    database = await kind.open();
    store = createStore(database.db);
    orgs = new OrgService(store, systemClock);
    agents = new AgentService(store, orgs);
    await orgs.init({ org: 'Acme', admin: 'alice' });
    await orgs.addPerson(SYSTEM, { handle: 'bob', org: 'acme' });
    await orgs.addPerson(SYSTEM, { handle: 'carol' });
  });
  afterAll(() => database.close());

  it('gives every person their own Free organization, as its admin, and a person agent', async () => {
    const bob = (await store.people.get('bob'))!;
    const own = (await store.orgs.listForPerson(bob.id)).find((o) => o.personalFor === bob.id)!;
    expect(own).toMatchObject({ plan: 'free', role: 'admin' });
    const personAgent = await store.agents.personAgent(bob.id);
    expect(personAgent).toMatchObject({ name: 'bob', kind: 'person', hasToken: false });
  });

  it('turns a duplicate handle into a CONFLICT, not a database error', async () => {
    await expect(orgs.addPerson(SYSTEM, { handle: 'bob' })).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringContaining('"bob"'),
    });
  });

  it("changes a member's role and keeps their seat; does nothing for a non-member", async () => {
    const [org, erin, frank] = await Promise.all([
      orgs.createOrg('Roles'),
      orgs.addPerson(SYSTEM, { handle: 'erin' }),
      orgs.addPerson(SYSTEM, { handle: 'frank' }),
    ]);
    await store.orgs.addMember(org.id, erin.id, 'member');
    await store.orgs.setSeat(org.id, erin.id, true);
    await store.orgs.setRole(org.id, erin.id, 'admin');
    expect(await store.orgs.member(org.id, erin.id)).toMatchObject({ role: 'admin', hasSeat: true });
    await store.orgs.setRole(org.id, frank.id, 'admin');
    expect(await store.orgs.member(org.id, frank.id)).toBeNull();
  });

  it('keeps agent names unique per owner, not globally', async () => {
    await agents.add(SYSTEM, { name: 'builder', owner: 'alice' });
    expect(await codeOf(agents.add(SYSTEM, { name: 'builder', owner: 'alice' }))).toBe('CONFLICT');
    expect(await codeOf(agents.add(SYSTEM, { name: 'builder', owner: 'bob' }))).toBe('OK');
  });

  it('stores only the hash of a token and never returns it in an agent', async () => {
    const { agent, token } = await agents.add(SYSTEM, { name: 'hashy', owner: 'carol' });
    expect(token).toMatch(/^sb_[A-Za-z0-9_-]{43}$/);
    expect(Object.keys(agent)).not.toContain('tokenHash');
    expect(JSON.stringify(await store.agents.get(agent.id))).not.toContain(hashSecret(token));
    expect((await agents.authenticate(token))?.id).toBe(agent.id);
  });

  it('invalidates the old token at once when it is rotated', async () => {
    const { token: old } = await agents.add(SYSTEM, { name: 'rotor', owner: 'carol' });
    const { token: fresh } = await agents.rotateToken(SYSTEM, 'carol/rotor');
    expect(await agents.authenticate(old)).toBeNull();
    expect((await agents.authenticate(fresh))?.name).toBe('rotor');
  });

  it('refuses the 6th agent in a Free organization with a plan-limit sentence', async () => {
    await orgs.addPerson(SYSTEM, { handle: 'dana' });
    for (let i = 1; i <= 5; i++) await agents.add(SYSTEM, { name: `a${i}`, owner: 'dana' });
    const sixth = agents.add(SYSTEM, { name: 'a6', owner: 'dana' });
    await expect(sixth).rejects.toMatchObject({ code: 'PLAN_LIMIT', message: expect.stringContaining('allows 5') });
  });

  it('refuses a second workspace on the Free plan and allows it on Team', async () => {
    await orgs.addWorkspace(SYSTEM, { name: 'Eng', org: 'acme' });
    await expect(orgs.addWorkspace(SYSTEM, { name: 'Ops', org: 'acme' })).rejects.toMatchObject({ code: 'PLAN_LIMIT' });
    await orgs.setPlan(SYSTEM, 'acme', 'team', 10_000);
    await expect(orgs.addWorkspace(SYSTEM, { name: 'Ops', org: 'acme', restricted: true })).resolves.toMatchObject({
      slug: 'ops',
      restricted: true,
    });
  });

  it('opens unrestricted workspaces to members and restricted ones only to admins and direct members', async () => {
    const bob = (await store.people.get('bob'))!;
    const reach = async () => (await store.workspaces.listForPerson(bob.id)).map((w) => `${w.slug}:${w.role}`).sort();
    expect(await reach()).toEqual(['eng:viewer']);
    await orgs.addWorkspaceMember(SYSTEM, 'ops', 'bob', 'editor');
    expect(await reach()).toEqual(['eng:viewer', 'ops:editor']);
    const people = (await store.workspaces.reachablePeople((await store.workspaces.get('ops'))!)).map(
      (p) => `${p.person.handle}:${p.role}`,
    );
    expect(people).toEqual(['alice:owner', 'bob:editor']);
  });

  it('lists person agents of everyone who can reach a workspace, and joined agents', async () => {
    await agents.join(SYSTEM, { agent: 'alice/builder', workspace: 'eng' });
    const dir = await agents.directory((await store.workspaces.get('eng'))!);
    expect(dir.map((d) => `${d.agent.ownerHandle}/${d.agent.name}:${d.agent.kind}`).sort()).toEqual([
      'alice/alice:person',
      'alice/builder:agent',
      'bob/bob:person',
    ]);
  });

  it('refuses to join an agent to a workspace its owner cannot reach', async () => {
    await expect(agents.join(SYSTEM, { agent: 'carol/hashy', workspace: 'ops' })).rejects.toMatchObject({
      code: 'NOT_PERMITTED',
      message: expect.stringContaining('@carol cannot reach'),
    });
  });

  it('lets only admins assign seats, and only to members', async () => {
    const bob = (await store.people.get('bob'))!;
    await expect(orgs.setSeat({ kind: 'person', personId: bob.id }, 'acme', 'bob', true)).rejects.toMatchObject({
      code: 'NOT_PERMITTED',
    });
    await expect(orgs.setSeat(SYSTEM, 'acme', 'carol', true)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await orgs.setSeat(SYSTEM, 'acme', 'bob', true);
    expect((await store.orgs.member((await store.orgs.get('acme'))!.id, bob.id))?.hasSeat).toBe(true);
  });

  it('lets a member change only their own agents', async () => {
    const bob = (await store.people.get('bob'))!;
    await expect(agents.rotateToken({ kind: 'person', personId: bob.id }, 'alice/builder')).rejects.toMatchObject({
      code: 'NOT_PERMITTED',
    });
    await expect(agents.rotateToken({ kind: 'person', personId: bob.id }, 'bob/builder')).resolves.toMatchObject({
      token: expect.any(String),
    });
  });

  it('consumes a one-time token once, and never after it expires', async () => {
    const carol = (await store.people.get('carol'))!;
    const now = new Date();
    await store.tokens.create({
      purpose: 'signin',
      tokenHash: 'h1',
      personId: carol.id,
      expiresAt: new Date(now.getTime() + 60_000),
    });
    const [a, b] = await Promise.all([
      store.tokens.consume('h1', 'signin', now),
      store.tokens.consume('h1', 'signin', now),
    ]);
    expect([a, b].filter(Boolean)).toHaveLength(1);
    await store.tokens.create({
      purpose: 'signin',
      tokenHash: 'h2',
      personId: carol.id,
      expiresAt: new Date(now.getTime() - 1),
    });
    expect(await store.tokens.consume('h2', 'signin', now)).toBeNull();
    expect(await store.tokens.consume('h1', 'link', now)).toBeNull();
  });

  it('records an inbound event id once', async () => {
    expect(await store.firstSeen('slack', 'Ev1')).toBe(true);
    expect(await store.firstSeen('slack', 'Ev1')).toBe(false);
    expect(await store.firstSeen('teams', 'Ev1')).toBe(true);
  });

  it('rolls back everything a failed transaction wrote', async () => {
    await expect(
      store.transaction(async (tx) => {
        await tx.people.create({ handle: 'ghost', displayName: 'Ghost' });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await store.people.get('ghost')).toBeNull();
  });

  it('adds monthly usage atomically', async () => {
    const acme = (await store.orgs.get('acme'))!;
    await Promise.all(Array.from({ length: 10 }, () => store.orgs.addUsage(acme.id, '2026-11', 3)));
    expect(await store.orgs.usage(acme.id, '2026-11')).toBe(30);
    expect(await store.orgs.usage(acme.id, '2026-12')).toBe(0);
  });

  it('posts a message with its participants and deliveries in one statement, an addressed delivery winning over overhearing', async () => {
    const ws = (await store.workspaces.get('eng'))!;
    const [alice, bob, carol] = await Promise.all(
      ['alice', 'bob', 'carol'].map(async (h) => (await store.agents.personAgent((await store.people.get(h))!.id))!),
    );
    const conv = await store.messages.conversation({
      workspaceId: ws.id,
      kind: 'channel',
      key: 'post-test',
      title: 'post test',
    });
    // Found again by its key, in one statement, with what it was created with.
    const counted = database.queries();
    expect(
      await store.messages.conversation({
        workspaceId: ws.id,
        kind: 'channel',
        key: 'post-test',
        title: 'another title',
      }),
    ).toEqual(conv);
    expect(database.queries() - counted).toBe(1);
    expect(conv).toMatchObject({ kind: 'channel', key: 'post-test', title: 'post test', createdAt: expect.any(Date) });
    // A chat conversation's title quoting its opening message follows an edit of it; a channel's name never does.
    const chat = await store.messages.conversation({
      workspaceId: ws.id,
      kind: 'external',
      surface: 'slack',
      key: 'title-test',
      title: 'Slack: hi 👋 my key is sk-1',
    });
    expect(await store.messages.requoteTitle(chat.id, 'hi 👋 my key is sk-1', 'hi 👋 my key is in the vault')).toBe(
      true,
    );
    expect((await store.messages.getConversation(ws.id, chat.id))?.title).toBe('Slack: hi 👋 my key is in the vault');
    expect(await store.messages.requoteTitle(chat.id, 'my key is', 'x')).toBe(false);
    expect(await store.messages.requoteTitle(conv.id, 'test', 'x')).toBe(false);
    const before = database.queries();
    const { message: m } = await store.messages.post(
      {
        workspaceId: ws.id,
        conversationId: conv.id,
        senderId: alice.id,
        body: 'hello',
        replyTo: null,
        chainId: crypto.randomUUID(),
        hop: 0,
        askerPersonId: null,
        askerIdentityId: null,
        surface: 'slack',
        externalId: '1700000000.000100',
      },
      { participants: [alice.id, bob.id, bob.id], deliverTo: [bob.id], overheard: [bob.id, carol.id] },
    );
    expect(database.queries() - before).toBe(1);
    expect(m).toMatchObject({ body: 'hello', conversationId: conv.id, externalId: '1700000000.000100' });
    expect((await store.messages.participants(conv.id)).sort()).toEqual([alice.id, bob.id].sort());
    expect(await store.messages.unreadCounts(bob.id, ws.id)).toEqual({ addressed: 1, overheard: 0 });
    expect(await store.messages.unreadCounts(carol.id, ws.id)).toEqual({ addressed: 0, overheard: 1 });
    expect(await store.messages.unreadCount(alice.id, ws.id)).toBe(0);
    // Who took part in which messages, for many at once: its sender, an addressee, one who overheard it; nobody else.
    const other = crypto.randomUUID();
    for (const a of [alice, bob, carol])
      expect(await store.messages.involvedIn(a.id, [m!.id, other, 'not-an-id'])).toEqual(new Set([m!.id]));
    expect(await store.messages.involvedIn(crypto.randomUUID(), [m!.id])).toEqual(new Set());

    // With a gate, the same statement checks the message, and counts it when it passes (`total`: the month's new count).
    const gate = (over: Partial<SendGate> = {}): SendGate => ({
      externalId: null,
      since: new Date(Date.now() - 60_000),
      rateMax: 5,
      count: { orgId: ws.orgId, month: '2031-01', n: 2, limit: 5 },
      ...over,
    });
    const send = (g: SendGate, senderId = alice.id) =>
      store.messages.post(
        { ...m, id: undefined, senderId, externalId: g.externalId },
        { participants: [senderId, carol.id], deliverTo: [carol.id] },
        g,
      );
    const gated = database.queries();
    const first = await send(gate({ externalId: 'new-1' }));
    expect(database.queries() - gated).toBe(1);
    expect(first).toMatchObject({
      message: { externalId: 'new-1', senderId: alice.id },
      earlier: null,
      sentSince: 1,
      total: 2,
    });
    expect(await store.messages.unreadCounts(carol.id, ws.id)).toEqual({ addressed: 1, overheard: 1 });
    // A redelivery: the message stored with that platform id comes back, nothing is stored or counted.
    expect(await send(gate({ externalId: '1700000000.000100' }))).toMatchObject({
      message: null,
      earlier: { id: m.id },
      total: null,
    });
    // The rate: alice wrote 2 there in the window, bob none.
    expect(await send(gate({ rateMax: 2 }))).toMatchObject({ message: null, earlier: null, sentSince: 2, total: null });
    expect(await send(gate({ since: new Date(Date.now() + 60_000), rateMax: 1 }))).toMatchObject({
      message: { senderId: alice.id },
      sentSince: 0,
      total: 4,
    });
    // The plan: 4 of 5 used, so a message counted twice does not fit, and one counted once does.
    expect(await send(gate({ externalId: 'new-2' }))).toMatchObject({
      message: null,
      earlier: null,
      sentSince: 3,
      total: null,
    });
    expect(await send(gate({ count: { orgId: ws.orgId, month: '2031-01', n: 1, limit: 5 } }), bob.id)).toMatchObject({
      message: { senderId: bob.id },
      total: 5,
    });
    expect(await store.orgs.usage(ws.orgId, '2031-01')).toBe(5);
    expect(await store.messages.unreadCounts(carol.id, ws.id)).toEqual({ addressed: 3, overheard: 1 });
  });

  it("checks a gated message by reading a few rows, however long its conversation and its sender's part in it", async () => {
    const ws = (await store.workspaces.get('eng'))!;
    const [alice, carol] = await Promise.all(
      ['alice', 'carol'].map(async (h) => (await store.agents.personAgent((await store.people.get(h))!.id))!),
    );
    const conv = await store.messages.conversation({
      workspaceId: ws.id,
      kind: 'external',
      surface: 'slack',
      key: 'busy-channel',
      title: 'busy',
    });
    // A busy channel: 3,000 of alice's messages from Slack in the last minute, each with its platform id.
    await database.db.execute(sql`insert into ${messages} (workspace_id, conversation_id, sender_id, body, chain_id, surface, external_id, created_at)
      select ${ws.id}::uuid, ${conv.id}::uuid, ${alice.id}::uuid, 'm' || i, gen_random_uuid(), 'slack', '1700000000.' || i, now() - i * interval '10 milliseconds'
      from generate_series(1, 3000) i`);
    await database.db.execute(sql`analyze ${messages}`);
    const gate: SendGate = {
      externalId: 'new',
      since: new Date(Date.now() - 60_000),
      rateMax: 30,
      count: { orgId: ws.orgId, month: '2031-02', n: 1, limit: null },
    };
    const send = (externalId: string) =>
      rowsReadBy(database, 'with gate as', () =>
        store.messages.post(
          {
            workspaceId: ws.id,
            conversationId: conv.id,
            senderId: alice.id,
            body: 'one more',
            replyTo: null,
            chainId: crypto.randomUUID(),
            hop: 0,
            askerPersonId: null,
            askerIdentityId: null,
            surface: 'slack',
            externalId,
          },
          { participants: [alice.id], deliverTo: [carol.id] },
          { ...gate, externalId },
        ),
      );
    // The redelivery check finds the platform id by its index, and the rate is counted up to the limit, no further.
    const redelivered = await send('1700000000.2999');
    expect(redelivered.result).toMatchObject({ message: null, earlier: { body: 'm2999' } });
    const refused = await send('1700000000.new');
    expect(refused.result).toMatchObject({ message: null, earlier: null, sentSince: 30 });
    // The check a streamed message makes before it starts counts the same way.
    const counted = await rowsReadBy(database, ') recent) as n', () =>
      store.messages.sentSince(alice.id, conv.id, gate.since, 30),
    );
    expect(counted.result).toBe(30);
    for (const { reads } of [redelivered, refused, counted]) {
      expect(reads).toHaveLength(1);
      expect(reads[0]).toBeLessThan(200);
    }
  });

  it('marks read only the deliveries of the messages it is given, and none for an empty list; hands read ones back unread', async () => {
    const ws = (await store.workspaces.get('eng'))!;
    const [alice, dana] = await Promise.all(
      ['alice', 'dana'].map(async (h) => (await store.agents.personAgent((await store.people.get(h))!.id))!),
    );
    const conv = await store.messages.conversation({
      workspaceId: ws.id,
      kind: 'dm',
      key: 'mark-read-test',
      title: 'mark read test',
    });
    const post = async (body: string) =>
      (
        await store.messages.post(
          {
            workspaceId: ws.id,
            conversationId: conv.id,
            senderId: alice.id,
            body,
            replyTo: null,
            chainId: crypto.randomUUID(),
            hop: 0,
            askerPersonId: null,
            askerIdentityId: null,
            surface: 'mcp',
          },
          { participants: [alice.id, dana.id], deliverTo: [dana.id] },
        )
      ).message!;
    const [one, , three] = [await post('one'), await post('two'), await post('three')];

    await store.chat.markDeliveriesRead(dana.id, ws.id, new Date(), undefined, []);
    expect(await store.messages.unreadCount(dana.id, ws.id)).toBe(3);
    await store.chat.markDeliveriesRead(dana.id, ws.id, new Date(), undefined, [one.id, three.id]);
    const inbox = await store.chat.inbox(dana.id, ws.id, 10);
    expect(Object.fromEntries(inbox.map((e) => [e.message.body, e.readAt === null ? 'unread' : 'read']))).toEqual({
      one: 'read',
      two: 'unread',
      three: 'read',
    });
    expect(await store.messages.unreadCount(dana.id, ws.id)).toBe(1);
    // Handed back (an answer that never left): only read ones of hers count; ids that are not hers or not ids change nothing.
    expect(await store.messages.returnUnread(dana.id, ws.id, [one.id, crypto.randomUUID(), 'not-an-id'])).toBe(1);
    expect(await store.messages.returnUnread(alice.id, ws.id, [three.id])).toBe(0);
    expect(await store.messages.unreadCount(dana.id, ws.id)).toBe(2);
  });
});
