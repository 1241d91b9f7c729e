// The latest message addressed to an agent in a conversation is read from its addressed deliveries there, by the time
// each copies from its message: the newest by the message's own time (then the delivery's, then the hop), whatever
// order the messages were stored in, and never one the agent only overheard.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { createStore } from '../../../src/infra/db/store.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import { OrgService } from '../../../src/core/organizations/org-service.ts';
import { systemClock, type Store } from '../../../src/core/ports.ts';
import { databases } from '../../support/db.ts';

describe.each(databases())('latest message received, on $kind', (kind) => {
  let database: Database;
  let store: Store;
  let workspaceId: string;
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    database = await kind.open();
    store = createStore(database.db);
    const orgs = new OrgService(store, systemClock);
    const { org, admin } = await orgs.init({ org: 'Acme', admin: 'alice' });
    const b = await orgs.addPerson(SYSTEM, { handle: 'bob', org: 'acme' });
    workspaceId = (
      await store.workspaces.create({ orgId: org.id, name: 'Eng', slug: 'eng', restricted: false, kind: 'structured' })
    ).id;
    alice = (await store.agents.personAgent(admin.id))!.id;
    bob = (await store.agents.personAgent(b.id))!.id;
  });
  afterAll(() => database.close());

  const at = (minutes: number) => new Date(Date.UTC(2031, 0, 1, 12, minutes));
  const post = (conversationId: string, body: string, createdAt: Date, to: 'addressed' | 'overheard', hop = 0) =>
    store.messages.post(
      {
        workspaceId,
        conversationId,
        senderId: alice,
        body,
        replyTo: null,
        chainId: randomUUID(),
        hop,
        askerPersonId: null,
        askerIdentityId: null,
        surface: 'mcp',
        createdAt,
      },
      { participants: [alice], deliverTo: to === 'addressed' ? [bob] : [], overheard: to === 'overheard' ? [bob] : [] },
    );

  it("is the newest by the message's time among the conversation's newest messages, not the last stored", async () => {
    const conv = await store.messages.conversation({ workspaceId, kind: 'dm', key: 'direct', title: 'direct' });
    await post(conv.id, 'later', at(30), 'addressed');
    await post(conv.id, 'earlier, stored last', at(20), 'addressed');
    await post(conv.id, 'newest, overheard', at(40), 'overheard');
    const latest = await store.messages.latestReceived(bob, conv.id);
    expect(latest).toMatchObject({ body: 'later', conversationId: conv.id, hop: 0, createdAt: at(30) });
    expect(latest!.createdAt).toBeInstanceOf(Date);
    expect(await store.messages.latestReceived(alice, conv.id)).toBeNull();
  });

  it("is the same when every one of the conversation's newest messages was only overheard", async () => {
    const conv = await store.messages.conversation({
      workspaceId,
      kind: 'channel',
      key: 'listened',
      title: 'listened',
    });
    // Two at the same time: the one delivered last is the later, before their hops count.
    await post(conv.id, 'tied, stored first', at(10), 'addressed', 2);
    await post(conv.id, 'tied, stored last', at(10), 'addressed', 1);
    await post(conv.id, 'earlier, stored last', at(5), 'addressed');
    for (let i = 0; i < 30; i++) await post(conv.id, `overheard ${i}`, at(20 + i), 'overheard');
    // Not addressed in another conversation since, either.
    const other = await store.messages.conversation({ workspaceId, kind: 'dm', key: 'other', title: 'other' });
    await post(other.id, 'elsewhere', at(59), 'addressed');
    expect(await store.messages.latestReceived(bob, conv.id)).toMatchObject({
      body: 'tied, stored last',
      hop: 1,
      createdAt: at(10),
    });
  });
});
