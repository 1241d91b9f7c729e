// Chat channel member lists kept in the store: a whole Slack team (tens of
// thousands of people) is written and counted in the database, never sent to
// it as one statement's parameters (PostgreSQL takes at most 65,535).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { createStore } from '../../../src/infra/db/store.ts';
import { OrgService } from '../../../src/core/organizations/org-service.ts';
import { systemClock, type Store } from '../../../src/core/ports.ts';
import { databases } from '../../support/db.ts';

describe.each(databases())('cached chat member lists on $kind', (kind) => {
  let database: Database;
  let store: Store;

  beforeAll(async () => {
    database = await kind.open();
    store = createStore(database.db, systemClock);
    await new OrgService(store, systemClock).init({ org: 'Acme', admin: 'alice' });
  }, 60_000);
  afterAll(() => database?.close());

  it("stores a roster of 20,000 people and counts a public channel's readers against their identities", async () => {
    const roster = Array.from({ length: 20_000 }, (_, i) => `U${String(i).padStart(6, '0')}`);
    await store.audiences.putChannelMembers('slack', 'T1', '*roster', roster, new Date());
    await store.audiences.putChannelMembers('slack', 'T1', 'C1', ['*open', 'U000000', 'U0OUTSIDE'], new Date());
    const alice = (await store.people.get('alice'))!;
    await store.identities.link(
      (await store.identities.upsert({ surface: 'slack', tenantId: 'T1', externalUserId: 'U000005' })).id,
      alice.id,
      new Date(),
    );
    await store.identities.upsert({ surface: 'slack', tenantId: 'T1', externalUserId: 'U000006' });

    expect((await store.audiences.channelMembers('slack', 'T1', '*roster'))?.userIds).toHaveLength(20_000);
    expect((await store.audiences.channelState('slack', 'T1', 'C1'))?.marks).toEqual(['*open']);
    expect((await store.audiences.channelState('slack', 'T1', '*roster'))?.marks).toEqual([]);
    // 20,001 people (the mark is nobody), one of them linked.
    expect(await store.audiences.readers('slack', 'T1', ['C1', '*roster'])).toEqual({
      unlinked: 20_000,
      personIds: [alice.id],
    });
    expect(await store.audiences.readers('slack', 'T1', ['C1'])).toEqual({ unlinked: 2, personIds: [] });
    expect(await store.audiences.readers('slack', 'T2', ['C1', '*roster'])).toEqual({ unlinked: 0, personIds: [] });

    // Many channels in one statement each: their states (marks only where asked), then their readers.
    await store.audiences.putChannelMembers('slack', 'T1', 'C2', ['*outside', 'U000005'], new Date());
    const before = database.queries();
    const states = await store.audiences.channelStates('slack', [
      { tenantId: 'T1', channelId: 'C1', marks: true },
      { tenantId: 'T1', channelId: 'C2', marks: true },
      { tenantId: 'T1', channelId: 'C9', marks: true },
      { tenantId: 'T1', channelId: '*roster', marks: false },
    ]);
    expect(states.map((s) => s?.marks ?? null)).toEqual([['*open'], ['*outside'], null, []]);
    expect(
      await store.audiences.readersOf('slack', [
        { tenantId: 'T1', channelIds: ['C1', '*roster'] },
        { tenantId: 'T1', channelIds: ['C2'] },
        { tenantId: 'T2', channelIds: ['C1'] },
      ]),
    ).toEqual([
      { unlinked: 20_000, personIds: [alice.id] },
      { unlinked: 0, personIds: [alice.id] },
      { unlinked: 0, personIds: [] },
    ]);
    expect(database.queries() - before).toBe(2);
  }, 120_000);
});
