import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import type { App } from '../../../src/app.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import { usageMonth } from '../../../src/core/organizations/plans.ts';
import { databases } from '../../support/db.ts';
import { makeWorld, testApp } from '../../support/world.ts';

// What depends on the database itself: full-text ranking and the monthly count under concurrency.
describe.each(databases())('messaging on $kind', (kind) => {
  let db: Database;
  let app: App;
  beforeAll(async () => {
    db = await kind.open();
    app = await testApp(db);
  });
  afterAll(async () => {
    await app?.close();
    await db?.close();
  });

  it('ranks full-text matches, marks them in the snippet, and filters by sender and time', async () => {
    const w = await makeWorld(app);
    const send = (body: string, from = w.builder.agent) =>
      app.messaging.send({
        workspace: w.ws,
        sender: from,
        to: [from === w.builder.agent ? 'reviewer' : 'builder'],
        body,
      });
    await send('The invoice for March is late.');
    await send('Invoices, invoices everywhere: the invoice backlog keeps growing, chase every invoice.');
    await send('Nothing to see here.');
    await send('Reviewer here: the invoice looks fine.', w.reviewer.agent);
    const hits = await app.messaging.search(w.builder.agent, w.ws, { text: 'invoice', limit: 10 });
    expect(hits.map((h) => h.message.body)).toHaveLength(3);
    expect(hits[0].message.body).toContain('backlog');
    expect(hits[0].rank).toBeGreaterThan(hits[2].rank);
    expect(hits[0].snippet).toMatch(/\*\*[Ii]nvoice/);
    const fromReviewer = await app.messaging.search(w.builder.agent, w.ws, {
      text: 'invoice',
      from: w.reviewer.name,
      limit: 10,
    });
    expect(fromReviewer.map((h) => h.sender.name)).toEqual(['reviewer']);
    const later = await app.messaging.search(w.builder.agent, w.ws, {
      text: 'invoice',
      since: new Date(Date.now() + 60_000),
      limit: 10,
    });
    expect(later).toEqual([]);
    expect(
      await app.messaging.search(w.builder.agent, w.ws, { text: '"late invoice" OR -march', limit: 10 }),
    ).toBeInstanceOf(Array);
  });

  it('marks a hit once in the snippet even when the message itself makes the word bold', async () => {
    const w = await makeWorld(app);
    await app.messaging.send({
      workspace: w.ws,
      sender: w.builder.agent,
      to: ['reviewer'],
      body: 'The **quarterly** report and `code` are [ready](https://x.test).',
    });
    const [hit] = await app.messaging.search(w.builder.agent, w.ws, { text: 'quarterly', limit: 1 });
    expect(hit.snippet).toContain('**quarterly**');
    expect(hit.snippet).not.toContain('***');
    expect(hit.snippet).toMatch(/^(The )?\*\*quarterly\*\* report and code are ready/);
  });

  it('never lets concurrent senders take the organization past its monthly limit', async () => {
    const w = await makeWorld(app);
    const org = (await app.store.orgs.get(w.org))!;
    const month = usageMonth(new Date());
    await app.store.orgs.addUsage(org.id, month, 295);
    const extra = await Promise.all(
      ['one', 'two', 'three'].map(async (name) => {
        await app.agents.add(SYSTEM, { name, owner: w.bob });
        await app.agents.join(SYSTEM, { agent: `${w.bob}/${name}`, workspace: w.ws.slug });
        return (await app.store.agents.byQualifiedName(w.bob, name))!;
      }),
    );
    const senders = [w.builder.agent, w.reviewer.agent, ...extra];
    const outcomes = await Promise.allSettled(
      senders.flatMap((s) =>
        [1, 2].map((i) => app.messaging.send({ workspace: w.ws, sender: s, to: [w.alice], body: `report ${i}` })),
      ),
    );
    const sent = outcomes.filter((o) => o.status === 'fulfilled').length;
    const refused = outcomes
      .filter((o) => o.status === 'rejected')
      .map((o) => (o as PromiseRejectedResult).reason.code);
    expect(sent).toBe(5);
    expect(refused).toEqual(Array(5).fill('PLAN_LIMIT'));
    expect(await app.store.orgs.usage(org.id, month)).toBe(300);
  });
});
