// The read cache keeps workspaces, directories, bridges, listeners and identities
// in memory, so it must never answer with a row another process (or this one)
// changed for longer than a NOTIFY takes, and must serve nothing while it cannot
// hear those NOTIFYs.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../../src/infra/db/client.ts';
import { ReadCache } from '../../../src/infra/db/read-cache.ts';
import { createStore } from '../../../src/infra/db/store.ts';
import { writtenTables } from '../../../src/infra/db/table-changes.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import { AgentService } from '../../../src/core/agents/agent-service.ts';
import { OrgService } from '../../../src/core/organizations/org-service.ts';
import { systemClock, type Store } from '../../../src/core/ports.ts';
import { databases, freshPostgresDatabase } from '../../support/db.ts';
import { serviceUrl } from '../../support/services.ts';

describe('writtenTables', () => {
  it('names the watched tables a statement writes, and nothing for reads or other tables', () => {
    expect(writtenTables('insert into "agents" ("id") values ($1)')).toEqual(['agents']);
    expect(writtenTables('update "workspaces" set "require_linking" = $1 where "workspaces"."id" = $2')).toEqual([
      'workspaces',
    ]);
    expect(writtenTables('delete from "channel_listeners" where 1 = 1')).toEqual(['channel_listeners']);
    expect(
      writtenTables(
        'with a as (insert into "bridges" values (1) returning *), b as (update org_members set role = 1) select 1',
      ).sort(),
    ).toEqual(['bridges', 'org_members']);
    expect(
      writtenTables('insert into "external_identities" (x) values (1) on conflict (x) do update set x = excluded.x'),
    ).toEqual(['external_identities']);
    expect(writtenTables('select * from "agents" where "agents"."name" = $1')).toEqual([]);
    expect(writtenTables('insert into "messages" (x) values (1)')).toEqual([]);
  });
});

describe.each(databases())('read cache on $kind, in one process', (kind) => {
  let database: Database;
  let store: Store;
  let cache: ReadCache;

  beforeAll(async () => {
    database = await kind.open();
    cache = new ReadCache(database.changes);
    store = createStore(database.db, systemClock, false, cache);
    await new OrgService(store, systemClock).init({ org: 'Acme', admin: 'alice' });
  });
  afterAll(() => database.close());

  it("answers a repeated read from memory, and a read after this process's write (in a transaction or not) from the database", async () => {
    const orgs = new OrgService(store, systemClock);
    const ws = await orgs.addWorkspace(SYSTEM, { name: 'Eng', org: 'acme' });
    // Until it hears changes (PostgreSQL: the LISTEN connection is up) nothing is kept.
    await expect
      .poll(async () => {
        await store.workspaces.get(ws.id);
        return database.changes.live;
      })
      .toBe(true);
    const before = database.queries();
    expect((await store.workspaces.get(ws.id))?.requireLinking).toBe(false);
    expect((await store.workspaces.get(ws.id))?.requireLinking).toBe(false);
    expect(database.queries() - before).toBeLessThanOrEqual(1);

    await store.workspaces.update(ws.id, { requireLinking: true });
    expect((await store.workspaces.get(ws.id))?.requireLinking).toBe(true);
    await store.transaction((tx) => tx.workspaces.update(ws.id, { requireLinking: false }));
    expect((await store.workspaces.get(ws.id))?.requireLinking).toBe(false);
  });

  it('gives out frozen rows, so no caller can change what others are served', async () => {
    const ws = (await store.workspaces.get('eng'))!;
    const again = (await store.workspaces.get('eng'))!;
    expect(Object.isFrozen(again)).toBe(true);
    expect(() => {
      (again as { name: string }).name = 'changed';
    }).toThrow(TypeError);
    expect((await store.workspaces.get('eng'))!.name).toBe(ws.name);
  });
});

const url = serviceUrl('postgres');

describe.runIf(url)('read cache across processes (PostgreSQL)', () => {
  let fresh: Awaited<ReturnType<typeof freshPostgresDatabase>>;
  /** This process: reads through the cache. */
  let here: Database;
  let store: Store;
  let cache: ReadCache;
  /** Another process on the same database, writing without a cache. */
  let there: Database;
  let theirs: Store;
  let admin: pg.Client;

  beforeAll(async () => {
    fresh = await freshPostgresDatabase(url!);
    here = await openDatabase({ databaseUrl: fresh.url, max: 4 });
    await here.migrate();
    there = await openDatabase({ databaseUrl: fresh.url, max: 2 });
    cache = new ReadCache(here.changes);
    store = createStore(here.db, systemClock, false, cache);
    theirs = createStore(there.db, systemClock);
    admin = new pg.Client({ connectionString: fresh.url });
    admin.on('error', () => {});
    await admin.connect();
    const orgs = new OrgService(theirs, systemClock);
    await orgs.init({ org: 'Acme', admin: 'alice' });
    await orgs.addWorkspace(SYSTEM, { name: 'Eng', org: 'acme' });
  });
  afterAll(async () => {
    await admin?.end().catch(() => {});
    await there?.close();
    await here?.close();
    await fresh?.drop();
  });

  const directoryNames = async () => {
    const ws = (await store.workspaces.get('eng'))!;
    return (await new AgentService(store, new OrgService(store, systemClock)).directory(ws))
      .map((d) => d.agent.name)
      .sort();
  };

  it("serves another process's change once its NOTIFY arrives: a new agent in the directory, a changed workspace", async () => {
    await expect
      .poll(async () => {
        await directoryNames();
        return here.changes.live;
      })
      .toBe(true);
    expect(await directoryNames()).toEqual(['alice']);
    // Served from memory now: the same answer without a statement.
    const before = here.queries();
    expect(await directoryNames()).toEqual(['alice']);
    expect(here.queries()).toBe(before);

    const agents = new AgentService(theirs, new OrgService(theirs, systemClock));
    await agents.add(SYSTEM, { name: 'reviewer', owner: 'alice' });
    await agents.join(SYSTEM, { agent: 'alice/reviewer', workspace: 'eng' });
    await expect.poll(directoryNames).toEqual(['alice', 'reviewer']);

    // A change made by hand, outside Switchboard, is heard the same way (the tables' triggers send it).
    await admin.query(`update workspaces set require_linking = true where slug = 'eng'`);
    await expect.poll(async () => (await store.workspaces.get('eng'))?.requireLinking).toBe(true);
  });

  it('serves nothing while its LISTEN connection is down, and drops everything once it listens again', async () => {
    await expect
      .poll(async () => {
        await store.workspaces.get('eng');
        return here.changes.live;
      })
      .toBe(true);
    expect((await store.workspaces.get('eng'))?.description).toBe('');
    const cached = cache.size;
    expect(cached).toBeGreaterThan(0);

    // Cut this process's LISTEN connection; while it is down the other process changes the row, and its NOTIFY is lost.
    await admin.query(
      `select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query like 'listen %'`,
    );
    await expect.poll(() => here.changes.live).toBe(false);
    await theirs.workspaces.update((await theirs.workspaces.get('eng'))!.id, { description: 'changed during the gap' });
    expect((await store.workspaces.get('eng'))?.description).toBe('changed during the gap');
    expect(cache.size).toBe(0);
    // Listening again (after a backoff of a quarter second), it keeps rows again, read afresh.
    await expect.poll(() => here.changes.live, { timeout: 10_000 }).toBe(true);
    expect((await store.workspaces.get('eng'))?.description).toBe('changed during the gap');
    expect(cache.size).toBeGreaterThan(0);
  });
});
