// The migration that gives Slack teams and Teams tenants one workspace mapping
// and one table of default agents: a database holding rows in the old tables
// (slack_installations.workspace_id, teams_tenants, slack_agent_choices,
// teams_users.agent_id) keeps every mapping and choice after it runs.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator';
import { MIGRATIONS_DIR, openDatabase, type Database } from '../../../src/infra/db/client.ts';
import { DrizzleSlackInstallationRepo } from '../../../src/infra/db/slack-repo.ts';
import { createStore } from '../../../src/infra/db/store.ts';
import { DrizzleTeamsUserRepo } from '../../../src/infra/db/teams-repo.ts';
import { freshPostgresDatabase } from '../../support/db.ts';
import { serviceUrl } from '../../support/services.ts';

/** A copy of the migrations folder whose journal ends just before the shared-surface migration. */
function migrationsBeforeTheMove(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sb-migrations-'));
  cpSync(MIGRATIONS_DIR, dir, { recursive: true });
  const journalFile = path.join(dir, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: Array<{ tag: string }> };
  const move = journal.entries.findIndex((e) => e.tag.endsWith('_shared_surface_tables'));
  if (move < 1) throw new Error('no shared_surface_tables migration in the journal');
  journal.entries = journal.entries.slice(0, move);
  writeFileSync(journalFile, JSON.stringify(journal));
  return dir;
}

interface Kind {
  kind: 'pglite' | 'postgres';
  open(): Promise<{ database: Database; drop(): Promise<void> }>;
}

const kinds: Kind[] = [
  {
    kind: 'pglite',
    async open() {
      return { database: await openDatabase({ dataDir: 'memory://' }), drop: async () => {} };
    },
  },
];
const url = serviceUrl('postgres');
if (url) {
  kinds.push({
    kind: 'postgres',
    async open() {
      const fresh = await freshPostgresDatabase(url);
      return { database: await openDatabase({ databaseUrl: fresh.url, max: 2 }), drop: fresh.drop };
    },
  });
}

describe.each(kinds)('moving surface tenants and default agents to the shared tables ($kind)', (kind) => {
  let database: Database;
  let drop: () => Promise<void>;
  let ids: { ws1: string; ws2: string; agent1: string; agent2: string };
  const old = migrationsBeforeTheMove();

  beforeAll(async () => {
    ({ database, drop } = await kind.open());
    const db = database.db;
    // Up to the last migration before the move, as a running install had it.
    if (database.kind === 'pglite') await migratePglite(db as never, { migrationsFolder: old });
    else await migrateNodePg(db as never, { migrationsFolder: old });
    const one = async (q: ReturnType<typeof sql>) =>
      ((await db.execute(q)) as unknown as { rows: Array<{ id: string }> }).rows[0].id;
    const org = await one(sql`insert into organizations (name, slug) values ('Acme', 'acme') returning id`);
    const person = await one(sql`insert into people (handle, display_name) values ('alice', 'Alice') returning id`);
    const ws1 = await one(sql`insert into workspaces (org_id, name, slug) values (${org}, 'One', 'one') returning id`);
    const ws2 = await one(sql`insert into workspaces (org_id, name, slug) values (${org}, 'Two', 'two') returning id`);
    const agent1 = await one(
      sql`insert into agents (owner_id, name, display_name) values (${person}, 'reviewer', 'Reviewer') returning id`,
    );
    const agent2 = await one(
      sql`insert into agents (owner_id, name, display_name) values (${person}, 'tester', 'Tester') returning id`,
    );
    ids = { ws1, ws2, agent1, agent2 };
    await db.execute(sql`insert into slack_installations (team_id, team_name, workspace_id, bot_token_sealed, bot_user_id, bot_id)
      values ('T1', 'Team one', ${ws1}, 'v1.sealed', 'U0BOT', 'B0BOT'), ('T2', 'Not connected', null, null, 'U0BOT2', 'B0BOT2')`);
    await db.execute(
      sql`insert into teams_tenants (tenant_id, workspace_id) values ('tenant-a', ${ws2}), ('tenant-b', null)`,
    );
    await db.execute(sql`insert into slack_agent_choices (team_id, scope, scope_id, agent_id, set_by)
      values ('T1', 'user', 'U1', ${agent1}, 'U1'), ('T1', 'channel', 'C1', ${agent2}, 'U2')`);
    await db.execute(sql`insert into teams_users (tenant_id, aad_object_id, user_id, name, personal_conversation_id, agent_id)
      values ('tenant-a', 'aad-1', '29:one', 'Pat', 'a:personal', ${agent2}), ('tenant-a', 'aad-2', '29:two', 'Sam', null, null)`);
    // Then every migration since, as the next start-up runs them.
    await database.migrate();
  }, 120_000);

  afterAll(async () => {
    await database?.close();
    await drop?.();
    rmSync(old, { recursive: true, force: true });
  });

  it('keeps each connected Slack team and Teams tenant on its workspace, and leaves unconnected ones unconnected', async () => {
    const store = createStore(database.db);
    const slackInstallations = new DrizzleSlackInstallationRepo(database.db);
    expect(await store.tenants.workspaceOf('slack', 'T1')).toBe(ids.ws1);
    expect(await store.tenants.workspaceOf('slack', 'T2')).toBeNull();
    expect(await store.tenants.workspaceOf('teams', 'tenant-a')).toBe(ids.ws2);
    expect(await store.tenants.workspaceOf('teams', 'tenant-b')).toBeNull();
    expect(await slackInstallations.get('T1')).toMatchObject({
      teamName: 'Team one',
      workspaceId: ids.ws1,
      hasOwnToken: true,
    });
    expect(await slackInstallations.get('T2')).toMatchObject({
      teamName: 'Not connected',
      workspaceId: null,
      hasOwnToken: false,
    });
    expect(await slackInstallations.sealedToken('T1')).toBe('v1.sealed');
  });

  it("keeps Slack users' and channels' choices and Teams users' chosen agents", async () => {
    const store = createStore(database.db);
    expect(await store.defaultAgents.get({ surface: 'slack', tenantId: 'T1', scope: 'user', scopeId: 'U1' })).toBe(
      ids.agent1,
    );
    expect(await store.defaultAgents.get({ surface: 'slack', tenantId: 'T1', scope: 'channel', scopeId: 'C1' })).toBe(
      ids.agent2,
    );
    expect(
      await store.defaultAgents.get({ surface: 'teams', tenantId: 'tenant-a', scope: 'user', scopeId: 'aad-1' }),
    ).toBe(ids.agent2);
    expect(
      await store.defaultAgents.get({ surface: 'teams', tenantId: 'tenant-a', scope: 'user', scopeId: 'aad-2' }),
    ).toBeNull();
    expect(await new DrizzleTeamsUserRepo(database.db).get('tenant-a', 'aad-1')).toEqual({
      tenantId: 'tenant-a',
      aadObjectId: 'aad-1',
      userId: '29:one',
      name: 'Pat',
      personalConversationId: 'a:personal',
    });
  });

  it('drops the old tables and columns, so nothing reads a stale copy', async () => {
    const rows = (r: unknown) => (r as { rows: Array<Record<string, unknown>> }).rows;
    const tables = rows(
      await database.db.execute(sql`select table_name from information_schema.tables
      where table_schema = 'public' and table_name in ('teams_tenants', 'slack_agent_choices')`),
    );
    expect(tables).toEqual([]);
    const columns = rows(
      await database.db.execute(sql`select table_name, column_name from information_schema.columns
      where table_schema = 'public' and ((table_name = 'slack_installations' and column_name = 'workspace_id') or (table_name = 'teams_users' and column_name = 'agent_id'))`),
    );
    expect(columns).toEqual([]);
  });
});
