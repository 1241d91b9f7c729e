import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isConnectionLost } from '../../../src/infra/db/errors.ts';
import { startPgliteThread, type PgliteThread } from '../../../src/infra/db/pglite-thread.ts';

// PGlite's thread runs a statement it has seen a few times as a named statement (parsed and analysed once), as a
// PostgreSQL server keeps them per connection: same results, errors and transactions; dropped on a schema change.
// It tells the CPU time it has used (benches read it). Once closed, it answers like a lost connection.
describe('PGlite thread', () => {
  let db: PgliteThread;
  const named = async () =>
    (await db.query('select statement from pg_prepared_statements order by prepare_time')).rows as Array<{
      statement: string;
    }>;

  beforeAll(async () => {
    db = await startPgliteThread('memory://');
    await db.query('create table items (id int primary key, label text not null, seen timestamptz)');
  });
  afterAll(async () => {
    await db?.close();
  });

  it('names a statement on its third run and returns the same rows, fields and counts through it', async () => {
    const insert = 'insert into items (id, label, seen) values ($1, $2, $3) returning id, label, seen';
    const seen = '2031-01-02T03:04:05.678Z';
    const results = [];
    for (let i = 1; i <= 5; i++) results.push(await db.query(insert, [i, `item ${i}`, seen]));
    expect((await named()).map((n) => n.statement)).toEqual([insert]);
    for (const [i, r] of results.entries()) {
      expect(r.rows).toEqual([{ id: i + 1, label: `item ${i + 1}`, seen: new Date(seen) }]);
      expect(r.fields.map((f) => f.name)).toEqual(['id', 'label', 'seen']);
      expect(r.affectedRows).toBe(1);
    }
    // Array rows and parsers given per call still apply (drizzle asks for both).
    const select = 'select id, seen from items where id = $1';
    for (let i = 0; i < 3; i++) await db.query(select, [1]);
    const asArrays = await db.query(select, [2], { rowMode: 'array', parsers: { 1184: (v: string) => v } });
    expect((await named()).map((n) => n.statement)).toContain(select);
    expect(asArrays.rows).toEqual([[2, expect.stringMatching(/^2031-01-02 03:04:05\.678/)]]);
    // The parsers one call gave are not kept for the next, which gives none.
    expect((await db.query(select, [2])).rows).toEqual([{ id: 2, seen: new Date(seen) }]);
  });

  it("reports a named statement's error with PostgreSQL's fields and goes on working", async () => {
    const insert = 'insert into items (id, label) values ($1, $2)';
    for (let i = 10; i < 13; i++) await db.query(insert, [i, 'fine']);
    await expect(db.query(insert, [10, 'again'])).rejects.toMatchObject({ code: '23505', constraint: 'items_pkey' });
    await expect(db.query(insert, [13, null])).rejects.toMatchObject({ code: '23502' });
    await db.query(insert, [14, 'after the errors']);
    expect((await db.query('select label from items where id = $1', [14])).rows).toEqual([
      { label: 'after the errors' },
    ]);
  });

  it('runs named statements inside transactions, which commit or roll back as a whole', async () => {
    const insert = 'insert into items (id, label) values ($1, $2)';
    await db.transaction(async (tx) => {
      await tx.query(insert, [20, 'kept']);
      await tx.query(insert, [21, 'kept']);
    });
    await expect(
      db.transaction(async (tx) => {
        await tx.query(insert, [22, 'rolled back']);
        await tx.query(insert, [20, 'duplicate']);
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect((await db.query('select id from items where id between 20 and 29 order by id')).rows).toEqual([
      { id: 20 },
      { id: 21 },
    ]);
  });

  it('drops its named statements on a schema change, so none returns rows of the old shape', async () => {
    const select = 'select * from items where id = $1';
    for (let i = 0; i < 4; i++) await db.query(select, [1]);
    expect((await named()).map((n) => n.statement)).toContain(select);
    await db.query('alter table items add column note text');
    expect(await named()).toEqual([]);
    expect((await db.query(select, [1])).rows).toEqual([
      { id: 1, label: 'item 1', seen: expect.any(Date), note: null },
    ]);
  });

  // Last: it closes the thread.
  it('tells the CPU time its thread has used, which grows with the work it runs (for benches)', async () => {
    const before = await db.cpuMs();
    expect(before).toEqual(expect.any(Number)); // Linux, where CI runs
    await db.query('select count(*) from generate_series(1, 3000000)');
    expect(await db.cpuMs()).toBeGreaterThan(before!);
  });

  it("answers every call after it closed with a lost connection's code, which callers take for an outage", async () => {
    await db.close();
    const err = await db.query('select 1').then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: '08003', message: 'PGlite is closed' });
    expect(isConnectionLost(err)).toBe(true);
  });
});
