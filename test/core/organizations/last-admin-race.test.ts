// Two admins, the organization's only two, demoted or removed at the same moment:
// each request checks that another admin is left, and without a lock each sees
// the other still an admin and the organization ends with none.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { rowsOf } from '../../../src/infra/db/org-repo.ts';
import { createStore } from '../../../src/infra/db/store.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import { OrgService } from '../../../src/core/organizations/org-service.ts';
import { systemClock, type Store } from '../../../src/core/ports.ts';
import { databases } from '../../support/db.ts';

/** `store` whose transactions run `afterCheck` once the organization's members were read (the last-admin check). */
function pausing(store: Store, afterCheck: () => Promise<void>): Store {
  return {
    ...store,
    transaction: (fn) =>
      store.transaction((tx) => {
        const orgs = Object.create(tx.orgs) as Store['orgs'];
        orgs.listMembers = async (orgId) => {
          const members = await tx.orgs.listMembers(orgId);
          await afterCheck();
          return members;
        };
        return fn({ ...tx, orgs });
      }),
  };
}

describe.each(databases())('the last admin of an organization under concurrent changes on $kind', (testDb) => {
  let db: Database;
  let store: Store;
  let n = 0;
  const unique = (p: string) => `${p}-${process.pid.toString(36)}${(n++).toString(36)}`;

  beforeAll(async () => {
    db = await testDb.open();
    store = createStore(db.db);
  });
  afterAll(async () => {
    await db?.close();
  });

  /** Whether a statement on this database is waiting for a row lock another transaction holds. */
  const waitingForLock = async () =>
    rowsOf<{ n: number }>(
      await db.db.execute(sql`
    select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`),
    )[0].n > 0;

  /**
   * Runs `first` up to just after its last-admin check and holds it there until `second` has passed its own check
   * or waits for `first`'s lock; then lets both finish. On PGlite, whose one connection runs one transaction at
   * a time, `second` cannot start before `first` ends, so both simply run at once.
   */
  async function interleave(
    first: (orgs: OrgService) => Promise<unknown>,
    second: (orgs: OrgService) => Promise<unknown>,
  ) {
    if (db.kind === 'pglite')
      return Promise.allSettled([
        first(new OrgService(store, systemClock)),
        second(new OrgService(store, systemClock)),
      ]);
    let firstChecked!: () => void;
    const checked = new Promise<void>((resolve) => {
      firstChecked = resolve;
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const settledA = Promise.allSettled([
      first(
        new OrgService(
          pausing(store, async () => {
            firstChecked();
            await released;
          }),
          systemClock,
        ),
      ),
    ]);
    await Promise.race([checked, settledA]);
    let secondGoesOn = false;
    const settledB = Promise.allSettled([
      second(
        new OrgService(
          pausing(store, async () => {
            secondGoesOn = true;
          }),
          systemClock,
        ),
      ),
    ]).finally(() => {
      secondGoesOn = true;
    });
    await vi.waitFor(async () => {
      if (!secondGoesOn && !(await waitingForLock()))
        throw new Error('The second change has neither passed its check nor waits for a lock.');
    });
    release();
    return [(await settledA)[0], (await settledB)[0]];
  }

  async function twoAdmins() {
    const [alice, bob] = [unique('alice'), unique('bob')];
    const orgs = new OrgService(store, systemClock);
    const { org } = await orgs.init({ org: unique('Acme'), admin: alice });
    await orgs.putPerson(SYSTEM, { handle: bob, org: org.slug, role: 'admin' });
    return { org, alice, bob };
  }

  async function admins(orgId: string) {
    return (await store.orgs.listMembers(orgId)).filter((m) => m.role === 'admin').map((m) => m.person.handle);
  }

  function expectOneRefused(results: PromiseSettledResult<unknown>[]) {
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as Error & { code?: string }] : []));
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/is the last admin of .*; make someone else an admin first/),
    });
  }

  it('demotes one of the only two admins and refuses the other when both are demoted at once', async () => {
    const { org, alice, bob } = await twoAdmins();
    const results = await interleave(
      (orgs) => orgs.putPerson(SYSTEM, { handle: alice, org: org.slug, role: 'member' }),
      (orgs) => orgs.putPerson(SYSTEM, { handle: bob, org: org.slug, role: 'member' }),
    );
    expectOneRefused(results);
    expect(await admins(org.id)).toHaveLength(1);
  });

  it('keeps one admin when one of the only two is demoted while the other is removed', async () => {
    const { org, alice, bob } = await twoAdmins();
    const results = await interleave(
      (orgs) => orgs.removePerson(SYSTEM, org.slug, alice),
      (orgs) => orgs.putPerson(SYSTEM, { handle: bob, org: org.slug, role: 'member' }),
    );
    expectOneRefused(results);
    expect(await admins(org.id)).toHaveLength(1);
  });

  it('refuses an admin demoted while their own change waited for the lock', async () => {
    const { org, alice, bob } = await twoAdmins();
    const carol = unique('carol');
    await new OrgService(store, systemClock).putPerson(SYSTEM, { handle: carol, org: org.slug, role: 'admin' });
    const [a, b] = await Promise.all([alice, bob].map((h) => store.people.get(h)));
    const [first, second] = await interleave(
      (orgs) => orgs.putPerson({ kind: 'person', personId: a!.id }, { handle: bob, org: org.slug, role: 'member' }),
      (orgs) => orgs.putPerson({ kind: 'person', personId: b!.id }, { handle: carol, org: org.slug, role: 'member' }),
    );
    expect(first.status).toBe('fulfilled');
    expect(second).toMatchObject({
      status: 'rejected',
      reason: { code: 'NOT_PERMITTED', message: 'Only an organization admin can add people to this organization.' },
    });
    expect((await admins(org.id)).sort()).toEqual([alice, carol].sort());
  });
});
