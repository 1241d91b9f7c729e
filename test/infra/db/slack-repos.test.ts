// The repositories behind the chat surfaces (identities, installs, the shared
// tenant mapping and default agents), on PGlite and on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { DrizzleExternalIdentityRepo } from '../../../src/infra/db/identity-repo.ts';
import { DrizzleSlackInstallationRepo } from '../../../src/infra/db/slack-repo.ts';
import { createStore } from '../../../src/infra/db/store.ts';
import type { Store } from '../../../src/core/ports.ts';
import { databases } from '../../support/db.ts';

describe.each(databases())('Slack repositories ($kind)', (kind) => {
  let db: Database;
  let identities: DrizzleExternalIdentityRepo;
  let installations: DrizzleSlackInstallationRepo;
  let store: Store;
  let people: { alice: string; bob: string };
  let workspaces: { one: string; two: string };
  let agentId: string;

  beforeAll(async () => {
    db = await kind.open();
    identities = new DrizzleExternalIdentityRepo(db.db);
    installations = new DrizzleSlackInstallationRepo(db.db);
    store = createStore(db.db);
    const alice = await store.people.create({ handle: 'alice', displayName: 'Alice' });
    const bob = await store.people.create({ handle: 'bob', displayName: 'Bob' });
    people = { alice: alice.id, bob: bob.id };
    const org = await store.orgs.create({ name: 'Acme', slug: 'acme', plan: 'free' });
    const one = await store.workspaces.create({
      orgId: org.id,
      name: 'One',
      slug: 'one',
      restricted: false,
      kind: 'structured',
    });
    const two = await store.workspaces.create({
      orgId: org.id,
      name: 'Two',
      slug: 'two',
      restricted: false,
      kind: 'structured',
    });
    workspaces = { one: one.id, two: two.id };
    agentId = (
      await store.agents.create({ ownerId: alice.id, name: 'reviewer', displayName: 'Reviewer', kind: 'agent' })
    ).id;
  });
  afterAll(async () => {
    await db?.close();
  });

  const key = { surface: 'slack' as const, tenantId: 'T1', externalUserId: 'U1' };

  it('makes one identity of a chat user even when two first messages arrive at once', async () => {
    const profile = {
      displayName: 'Carol',
      email: 'carol@example.test',
      avatarUrl: null,
      fetchedAt: new Date('2030-01-01T00:00:00Z'),
    };
    const made = await Promise.all([
      identities.upsert(key),
      identities.upsert(key, profile),
      identities.upsert(key),
      identities.upsert(key, profile),
    ]);
    expect(new Set(made.map((m) => m.id)).size).toBe(1);
    const found = await identities.find(key);
    expect(found).toMatchObject({ id: made[0].id, displayName: 'Carol', email: 'carol@example.test', personId: null });
    expect(await identities.get(found!.id)).toEqual(found);
    expect(await identities.find({ ...key, tenantId: 'T2' })).toBeNull();
  });

  it('keeps the stored profile when upserted without one, and replaces it with a newer one', async () => {
    await identities.upsert(key);
    expect((await identities.find(key))!.displayName).toBe('Carol');
    await identities.upsert(key, { displayName: 'Carol C.', fetchedAt: new Date('2030-02-01T00:00:00Z') });
    expect(await identities.find(key)).toMatchObject({ displayName: 'Carol C.', email: null });
  });

  it('links an identity to one person only, never silently moving it', async () => {
    const id = (await identities.find(key))!.id;
    const linked = await identities.link(id, people.alice, new Date());
    expect(linked?.personId).toBe(people.alice);
    expect(await identities.link(id, people.bob, new Date())).toBeNull();
    expect((await identities.get(id))!.personId).toBe(people.alice);
    expect(await identities.link('not-a-uuid', people.bob, new Date())).toBeNull();
  });

  it('keeps installation tokens out of the default read, and keeps the workspace mapping across a re-install', async () => {
    const base = { teamId: 'T1', teamName: 'Team', botUserId: 'U0BOT', botId: 'B0BOT', scopes: 'chat:write' };
    const first = await installations.put({ ...base, botTokenSealed: 'v1.sealed', workspaceId: workspaces.one });
    expect(first).toMatchObject({ teamId: 'T1', workspaceId: workspaces.one, hasOwnToken: true });
    expect(Object.keys(first)).not.toContain('botTokenSealed');
    expect(await installations.sealedToken('T1')).toBe('v1.sealed');

    const reinstalled = await installations.put({ ...base, teamName: 'Team renamed', botTokenSealed: 'v1.newer' });
    expect(reinstalled).toMatchObject({ teamName: 'Team renamed', workspaceId: workspaces.one });
    const env = await installations.put({ ...base, botTokenSealed: null, workspaceId: workspaces.two });
    expect(env).toMatchObject({ hasOwnToken: false, workspaceId: workspaces.two });
    expect(await installations.sealedToken('T1')).toBeNull();

    await installations.remove('T1');
    expect(await installations.get('T1')).toBeNull();
    expect(await store.tenants.workspaceOf('slack', 'T1')).toBeNull();
  });

  it("saves, replaces and clears a user's or channel's default agent, per surface and tenant", async () => {
    const choices = store.defaultAgents;
    const key = { surface: 'slack', tenantId: 'T1', scope: 'user', scopeId: 'U1' } as const;
    expect(await choices.get(key)).toBeNull();
    await choices.set(key, agentId, 'U1');
    await choices.set(key, agentId, 'U1');
    expect(await choices.get(key)).toBe(agentId);
    expect(await choices.get({ ...key, tenantId: 'T2' })).toBeNull();
    expect(await choices.get({ ...key, surface: 'teams' })).toBeNull();
    expect(await choices.get({ ...key, scope: 'channel' })).toBeNull();
    await choices.set(key, null, 'U1');
    expect(await choices.get(key)).toBeNull();
  });

  it('maps a team or tenant to one workspace per surface, and moves it on reconnect', async () => {
    const { tenants } = store;
    await tenants.connect('teams', 'tid-1', workspaces.one);
    await tenants.connect('slack', 'tid-1', workspaces.two);
    expect(await tenants.workspaceOf('teams', 'tid-1')).toBe(workspaces.one);
    expect(await tenants.workspaceOf('slack', 'tid-1')).toBe(workspaces.two);
    await tenants.connect('teams', 'tid-1', workspaces.two);
    expect(await tenants.workspaceOf('teams', 'tid-1')).toBe(workspaces.two);
    expect(await tenants.tenantsOf('teams', workspaces.two)).toEqual(['tid-1']);
    expect(await tenants.tenantsOf('teams', workspaces.one)).toEqual([]);
    await tenants.connect('teams', 'tid-1', null);
    expect(await tenants.workspaceOf('teams', 'tid-1')).toBeNull();
    expect(await tenants.workspaceOf('slack', 'tid-1')).toBe(workspaces.two);
  });
});
