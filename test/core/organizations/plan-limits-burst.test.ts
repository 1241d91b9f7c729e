import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import type { App } from '../../../src/app.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import { usageMonth } from '../../../src/core/organizations/plans.ts';
import { databases } from '../../support/db.ts';
import { makeWorld, testApp } from '../../support/world.ts';

const BURST = 10;

/** Runs every call at once and sorts the outcomes: how many succeeded, and the codes of the refusals. */
async function burst(calls: Array<() => Promise<unknown>>) {
  const results = await Promise.allSettled(calls.map((c) => c()));
  const refused = results.flatMap((r) =>
    r.status === 'rejected' ? [(r.reason as { code?: string }).code ?? String(r.reason)] : [],
  );
  return { ok: results.length - refused.length, refused };
}

describe.each(databases())('plan limits under a concurrent burst on $kind', (testDb) => {
  let db: Database;
  let app: App;
  let n = 0;
  const unique = (p: string) => `${p}-${process.pid.toString(36)}${(n++).toString(36)}`;

  beforeAll(async () => {
    db = await testDb.open();
    app = await testApp(db, { rateLimit: { max: 1_000, windowMs: 60_000 } });
  });
  afterAll(async () => {
    await app?.close();
    await db?.close();
  });

  it(`creates at most the Free plan's 5 agents when ${BURST} are created at once`, async () => {
    const owner = unique('owner');
    await app.orgs.addPerson(SYSTEM, { handle: owner });
    const out = await burst(
      Array.from({ length: BURST }, (_, i) => () => app.agents.add(SYSTEM, { name: `agent-${i}`, owner })),
    );
    expect(out.ok).toBe(5);
    expect(out.refused).toEqual(Array(BURST - 5).fill('PLAN_LIMIT'));
    const home = (await app.store.orgs.listForPerson((await app.store.people.get(owner))!.id)).find(
      (o) => o.personalFor !== null,
    )!;
    expect(await app.store.orgs.countAgents(home.id)).toBe(5);
  });

  it(`lets at most 5 agents into a Free organization when ${BURST} join at once`, async () => {
    const { org } = await app.orgs.init({ org: unique('Joiners'), admin: unique('admin') });
    const ws = await app.orgs.addWorkspace(SYSTEM, { name: unique('team'), org: org.slug });
    const names: string[] = [];
    for (let i = 0; i < BURST; i++) {
      const owner = unique('joiner');
      await app.orgs.addPerson(SYSTEM, { handle: owner, org: org.slug });
      await app.agents.add(SYSTEM, { name: 'helper', owner });
      names.push(`${owner}/helper`);
    }
    const out = await burst(names.map((agent) => () => app.agents.join(SYSTEM, { agent, workspace: ws.slug })));
    expect(out.ok).toBe(5);
    expect(out.refused).toEqual(Array(BURST - 5).fill('PLAN_LIMIT'));
    expect(await app.store.orgs.countAgents(org.id)).toBe(5);
  });

  it(`creates the Free plan's one workspace when ${BURST} are created at once`, async () => {
    const { org } = await app.orgs.init({ org: unique('Spaces'), admin: unique('admin') });
    const out = await burst(
      Array.from(
        { length: BURST },
        (_, i) => () => app.orgs.addWorkspace(SYSTEM, { name: unique(`space-${i}`), org: org.slug }),
      ),
    );
    expect(out.ok).toBe(1);
    expect(out.refused).toEqual(Array(BURST - 1).fill('PLAN_LIMIT'));
    expect(await app.store.orgs.countWorkspaces(org.id)).toBe(1);
  });

  it(`sends no message past the month's allowance when ${BURST} are sent at once`, async () => {
    const w = await makeWorld(app);
    const orgId = (await app.store.orgs.get(w.org))!.id;
    const month = usageMonth(app.clock.now());
    const used = await app.store.orgs.addUsage(orgId, month, 0);
    // Leave room for exactly 4 more (Free allows 300 a month).
    await app.store.orgs.addUsage(orgId, month, 296 - used);
    const out = await burst(
      Array.from(
        { length: BURST },
        (_, i) => () =>
          app.messaging.send({
            workspace: w.ws,
            sender: w.builder.agent,
            to: ['reviewer'],
            body: `burst ${i}`,
          }),
      ),
    );
    expect(out.ok).toBe(4);
    expect(out.refused).toEqual(Array(BURST - 4).fill('PLAN_LIMIT'));
    expect(await app.store.orgs.usage(orgId, month)).toBe(300);
  });
});
