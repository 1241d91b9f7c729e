// The migration that deletes the listening rows left by agents that left a
// workspace before their rows went with the membership: a database holding such
// rows, migrated up to just before it, keeps only the rows of agents still in the
// row's workspace (with or without a token or the receive permission) after it runs.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator';
import { MIGRATIONS_DIR, openDatabase, type Database } from '../../../src/adapters/db/client.ts';
import { freshPostgresDatabase } from '../../support/db.ts';

/** A copy of the migrations folder whose journal ends just before the orphan-listeners migration. */
function migrationsBeforeTheCleanup(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sb-migrations-'));
  cpSync(MIGRATIONS_DIR, dir, { recursive: true });
  const journalFile = path.join(dir, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: Array<{ tag: string }> };
  const cleanup = journal.entries.findIndex((e) => e.tag.endsWith('_orphan_listeners'));
  if (cleanup < 1) throw new Error('no orphan_listeners migration in the journal');
  journal.entries = journal.entries.slice(0, cleanup);
  writeFileSync(journalFile, JSON.stringify(journal));
  return dir;
}

interface Kind { kind: 'pglite' | 'postgres'; open(): Promise<{ database: Database; drop(): Promise<void> }> }

const kinds: Kind[] = [{
  kind: 'pglite',
  async open() { return { database: await openDatabase({ dataDir: 'memory://' }), drop: async () => {} }; },
}];
if (process.env.TEST_DATABASE_URL) {
  const url = process.env.TEST_DATABASE_URL;
  kinds.push({
    kind: 'postgres',
    async open() {
      const fresh = await freshPostgresDatabase(url);
      return { database: await openDatabase({ databaseUrl: fresh.url, max: 2 }), drop: fresh.drop };
    },
  });
}

type Row = { workspace: string; agent: string; channel: string };

describe.each(kinds)('deleting the listening rows of agents no longer in the workspace ($kind)', (kind) => {
  let database: Database;
  let drop: () => Promise<void>;
  const old = migrationsBeforeTheCleanup();
  const names = new Map<string, string>();

  /** The listening rows, by workspace slug, agent name and channel, in a fixed order. */
  const listeners = async (): Promise<Row[]> => {
    const rows = ((await database.db.execute(sql`select workspace_id, agent_id, channel_id from channel_listeners`)) as unknown as {
      rows: Array<{ workspace_id: string; agent_id: string; channel_id: string }>;
    }).rows;
    return rows.map((r) => ({ workspace: names.get(r.workspace_id)!, agent: names.get(r.agent_id)!, channel: r.channel_id }))
      .sort((a, b) => `${a.workspace}/${a.agent}/${a.channel}`.localeCompare(`${b.workspace}/${b.agent}/${b.channel}`));
  };

  beforeAll(async () => {
    ({ database, drop } = await kind.open());
    const db = database.db;
    // Up to the last migration before the cleanup, as a running install had it.
    if (database.kind === 'pglite') await migratePglite(db as never, { migrationsFolder: old });
    else await migrateNodePg(db as never, { migrationsFolder: old });
    const one = async (name: string, q: ReturnType<typeof sql>) => {
      const id = ((await db.execute(q)) as unknown as { rows: Array<{ id: string }> }).rows[0].id;
      names.set(id, name);
      return id;
    };
    const org = await one('acme', sql`insert into organizations (name, slug) values ('Acme', 'acme') returning id`);
    const person = await one('alice', sql`insert into people (handle, display_name) values ('alice', 'Alice') returning id`);
    const eng = await one('eng', sql`insert into workspaces (org_id, name, slug) values (${org}, 'Eng', 'eng') returning id`);
    const ops = await one('ops', sql`insert into workspaces (org_id, name, slug) values (${org}, 'Ops', 'ops') returning id`);
    const agent = (name: string, token: string | null) =>
      one(name, sql`insert into agents (owner_id, name, display_name, token_hash) values (${person}, ${name}, ${name}, ${token}) returning id`);
    // reviewer: in eng, left ops. quiet: in ops without the receive permission. retired: no token, still in eng. gone: in no workspace.
    const [reviewer, quiet, retired, gone] = await Promise.all([agent('reviewer', 'h-reviewer'), agent('quiet', 'h-quiet'), agent('retired', null), agent('gone', 'h-gone')]);
    await db.execute(sql`insert into agent_memberships (agent_id, workspace_id, receive) values
      (${reviewer}, ${eng}, true), (${quiet}, ${ops}, false), (${retired}, ${eng}, true)`);
    await db.execute(sql`insert into channel_listeners (workspace_id, surface, channel_id, agent_id) values
      (${eng}, 'slack', 'C0KEPT001', ${reviewer}), (${ops}, 'slack', 'C0LEFT001', ${reviewer}), (${ops}, 'teams', '19:left@thread.tacv2', ${reviewer}),
      (${ops}, 'slack', 'C0QUIET01', ${quiet}), (${eng}, 'slack', 'C0KEPT001', ${retired}), (${eng}, 'slack', 'C0KEPT001', ${gone})`);
    // Then every migration since, as the next start-up runs them.
    await database.migrate();
  }, 120_000);

  afterAll(async () => {
    await database?.close();
    await drop?.();
    rmSync(old, { recursive: true, force: true });
  });

  it('removes only the rows whose agent is not a member of the row\'s workspace', async () => {
    expect(await listeners()).toEqual([
      { workspace: 'eng', agent: 'retired', channel: 'C0KEPT001' },
      { workspace: 'eng', agent: 'reviewer', channel: 'C0KEPT001' },
      { workspace: 'ops', agent: 'quiet', channel: 'C0QUIET01' },
    ]);
  });

  it('is recorded as run, so the next start-up leaves the rows as they are', async () => {
    const before = await listeners();
    await database.migrate();
    expect(await listeners()).toEqual(before);
  });
});
