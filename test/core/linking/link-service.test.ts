// LinkService against the real database (PGlite and PostgreSQL): a nonce is
// stored only as its hash and works once, also when two people try it at the
// same moment; a chat account links to one person; the prompt is claimed once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import type { App } from '../../../src/app.ts';
import { audit } from '../../../src/infra/db/schema.ts';
import type { Database } from '../../../src/infra/db/client.ts';
import { commands } from '../../../src/cli/commands.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import { LinkService, linkDoneTopic } from '../../../src/core/linking/link-service.ts';
import type { ExternalIdentity } from '../../../src/core/surfaces/surface-ports.ts';
import type { Person } from '../../../src/core/entities.ts';
import { testApp } from '../../support/world.ts';
import { databases } from '../../support/db.ts';

const nonceOf = (url: string) => url.split('/link/')[1];

describe.each(databases())('account links on $kind', (kind) => {
  let database: Database;
  let app: App;
  let alice: Person;
  let bob: Person;
  let n = 0;
  const identity = (displayName = 'Chat User'): Promise<ExternalIdentity> =>
    app.store.identities.upsert(
      { surface: 'slack', tenantId: 'T0LINKS', externalUserId: `U0LINK${(n++).toString().padStart(3, '0')}` },
      { displayName, fetchedAt: new Date() },
    );

  beforeAll(async () => {
    database = await kind.open();
    app = await testApp(database);
    await app.orgs.init({ org: 'Links', admin: 'alice' });
    alice = (await app.store.people.get('alice'))!;
    bob = await app.orgs.addPerson(SYSTEM, { handle: 'bob', org: 'links' });
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('links once: the nonce is used up, the surface is told through the outbox, and the link is audited', async () => {
    const carol = await identity('Carol');
    const offer = await app.links.offer(carol, { tenantName: 'Acme' });
    const check = await app.links.check(nonceOf(offer.url));
    expect(check).toMatchObject({
      state: 'valid',
      identity: { id: carol.id },
      subject: { tenantName: 'Acme' },
      linkedTo: null,
    });
    const done = await app.links.confirm(nonceOf(offer.url), alice.id);
    expect(done.identity).toMatchObject({ id: carol.id, personId: alice.id });
    expect((await app.links.check(nonceOf(offer.url))).state).toBe('used');
    await expect(app.links.confirm(nonceOf(offer.url), alice.id)).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringContaining('already used'),
    });
    const jobs = await app.store.outbox.list({ topic: linkDoneTopic('slack') });
    expect(jobs.map((j) => j.payload)).toContainEqual({ identityId: carol.id, personId: alice.id });
    expect((await app.links.linked(alice.id)).map((i) => i.id)).toContain(carol.id);
    const audited = await database.db
      .select()
      .from(audit)
      .where(and(eq(audit.action, 'link_account'), eq(audit.target, carol.id)));
    expect(audited).toEqual([expect.objectContaining({ onBehalfOf: alice.id, result: 'linked' })]);
  });

  it('lets a person link several chat accounts, and unlink only their own', async () => {
    const [one, two] = [await identity('One'), await identity('Two')];
    for (const i of [one, two]) await app.links.confirm(nonceOf((await app.links.offer(i)).url), bob.id);
    expect((await app.links.linked(bob.id)).map((i) => i.displayName)).toEqual(expect.arrayContaining(['One', 'Two']));
    await expect(app.links.unlink(alice.id, one.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await app.store.identities.get(one.id))?.personId).toBe(bob.id);
    await app.links.unlink(bob.id, one.id);
    expect((await app.store.identities.get(one.id))?.personId).toBeNull();
    expect(await app.links.unlinkChatUser(one)).toBeNull();
    expect(await app.links.unlinkChatUser(two)).toMatchObject({
      handle: 'bob',
      identity: { id: two.id, personId: null },
    });
  });

  it('refuses a second person, and the same person again, and leaves the other nonce unused', async () => {
    const dan = await identity('Dan');
    const [first, second] = [await app.links.offer(dan), await app.links.offer(dan)];
    await app.links.confirm(nonceOf(first.url), alice.id);
    await expect(app.links.confirm(nonceOf(second.url), bob.id)).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringContaining('already linked to @alice'),
    });
    await expect(app.links.confirm(nonceOf(second.url), alice.id)).rejects.toMatchObject({
      message: expect.stringContaining('already linked to your account'),
    });
    expect(await app.links.check(nonceOf(second.url))).toMatchObject({ state: 'valid', linkedTo: { handle: 'alice' } });
    await expect(app.links.offer((await app.store.identities.get(dan.id))!)).rejects.toMatchObject({
      code: 'CONFLICT',
    });
  });

  it('refuses expired and forged nonces', async () => {
    const erin = await identity('Erin');
    const old = new LinkService(app.store, { now: () => new Date(Date.now() - 15 * 60_000 - 1) }, app.config.publicUrl);
    const expired = nonceOf((await old.offer(erin)).url);
    expect((await app.links.check(expired)).state).toBe('expired');
    await expect(app.links.confirm(expired, alice.id)).rejects.toMatchObject({
      message: expect.stringContaining('expired'),
    });
    for (const forged of ['x'.repeat(43), 'short', '']) {
      expect((await app.links.check(forged)).state).toBe('unknown');
      await expect(app.links.confirm(forged, alice.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    }
    expect((await app.store.identities.get(erin.id))?.personId).toBeNull();
  });

  it('lets exactly one of two people racing with two links to the same account win', async () => {
    for (let round = 0; round < 5; round += 1) {
      const frank = await identity(`Frank ${round}`);
      const [a, b] = [await app.links.offer(frank), await app.links.offer(frank)];
      const results = await Promise.allSettled([
        app.links.confirm(nonceOf(a.url), alice.id),
        app.links.confirm(nonceOf(b.url), bob.id),
      ]);
      const winners = results.filter((r) => r.status === 'fulfilled');
      expect(winners, `round ${round}`).toHaveLength(1);
      const winner = (winners[0] as PromiseFulfilledResult<{ person: Person }>).value.person;
      expect((await app.store.identities.get(frank.id))?.personId).toBe(winner.id);
    }
  });

  it('lets only a workspace owner require linking, also from the CLI', async () => {
    const ws = await app.orgs.addWorkspace(SYSTEM, { name: `Linking ${kind.kind}`, org: 'links' });
    await expect(app.links.setRequired({ kind: 'person', personId: bob.id }, ws.slug, true)).rejects.toMatchObject({
      code: 'NOT_PERMITTED',
    });
    expect((await app.links.setRequired({ kind: 'person', personId: alice.id }, ws.slug, true)).requireLinking).toBe(
      true,
    );
    const off = await commands['workspace linking'](app, { workspace: ws.slug, mode: 'optional' });
    expect(off.data).toEqual({ workspace: ws.slug, require_linking: false });
    expect((await app.store.workspaces.get(ws.id))?.requireLinking).toBe(false);
    await expect(commands['workspace linking'](app, { workspace: ws.slug, mode: 'sometimes' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });

  it('claims the unprompted link DM once per chat user, also when asked at the same moment', async () => {
    const gus = await identity('Gus');
    const claims = await Promise.all(Array.from({ length: 6 }, () => app.links.firstPrompt(gus)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await app.links.firstPrompt(gus)).toBe(false);
  });
});
