// The migration that deletes the listening rows left by agents that left a
// workspace before their rows went with the membership: its statement, run on a
// database holding such rows, keeps only the rows of agents still in the row's
// workspace (with or without a token or the receive permission). It runs on the
// migrated test database (running every migration up to it, per test file, cost
// seconds of CPU), as it ran after 0015 at an install's start-up.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { MIGRATIONS_DIR, type Database } from '../../../src/infra/db/client.ts';
import { databases } from '../../support/db.ts';

const MIGRATION = readFileSync(path.join(MIGRATIONS_DIR, '0016_orphan_listeners.sql'), 'utf8');

type Row = { workspace: string; agent: string; channel: string };

describe.each(databases())('deleting the listening rows of agents no longer in the workspace ($kind)', (source) => {
  let database: Database;
  const names = new Map<string, string>();

  /** The listening rows, by workspace slug, agent name and channel, in a fixed order. */
  const listeners = async (): Promise<Row[]> => {
    const rows = (
      (await database.db.execute(sql`select workspace_id, agent_id, channel_id from channel_listeners`)) as unknown as {
        rows: Array<{ workspace_id: string; agent_id: string; channel_id: string }>;
      }
    ).rows;
    return rows
      .map((r) => ({ workspace: names.get(r.workspace_id)!, agent: names.get(r.agent_id)!, channel: r.channel_id }))
      .sort((a, b) => `${a.workspace}/${a.agent}/${a.channel}`.localeCompare(`${b.workspace}/${b.agent}/${b.channel}`));
  };

  beforeAll(async () => {
    database = await source.open();
    const db = database.db;
    const one = async (name: string, q: ReturnType<typeof sql>) => {
      const id = ((await db.execute(q)) as unknown as { rows: Array<{ id: string }> }).rows[0].id;
      names.set(id, name);
      return id;
    };
    const org = await one('acme', sql`insert into organizations (name, slug) values ('Acme', 'acme') returning id`);
    const person = await one(
      'alice',
      sql`insert into people (handle, display_name) values ('alice', 'Alice') returning id`,
    );
    const eng = await one(
      'eng',
      sql`insert into workspaces (org_id, name, slug) values (${org}, 'Eng', 'eng') returning id`,
    );
    const ops = await one(
      'ops',
      sql`insert into workspaces (org_id, name, slug) values (${org}, 'Ops', 'ops') returning id`,
    );
    const agent = (name: string, token: string | null) =>
      one(
        name,
        sql`insert into agents (owner_id, name, display_name, token_hash) values (${person}, ${name}, ${name}, ${token}) returning id`,
      );
    // reviewer: in eng, left ops. quiet: in ops without the receive permission. retired: no token, still in eng. gone: in no workspace.
    const [reviewer, quiet, retired, gone] = await Promise.all([
      agent('reviewer', 'h-reviewer'),
      agent('quiet', 'h-quiet'),
      agent('retired', null),
      agent('gone', 'h-gone'),
    ]);
    await db.execute(sql`insert into agent_memberships (agent_id, workspace_id, receive) values
      (${reviewer}, ${eng}, true), (${quiet}, ${ops}, false), (${retired}, ${eng}, true)`);
    await db.execute(sql`insert into channel_listeners (workspace_id, surface, channel_id, agent_id) values
      (${eng}, 'slack', 'C0KEPT001', ${reviewer}), (${ops}, 'slack', 'C0LEFT001', ${reviewer}), (${ops}, 'teams', '19:left@thread.tacv2', ${reviewer}),
      (${ops}, 'slack', 'C0QUIET01', ${quiet}), (${eng}, 'slack', 'C0KEPT001', ${retired}), (${eng}, 'slack', 'C0KEPT001', ${gone})`);
    // The migration's statements, as the start-up after 0015 ran them.
    for (const statement of MIGRATION.split('--> statement-breakpoint')) await db.execute(sql.raw(statement));
  });

  afterAll(async () => {
    await database?.close();
  });

  it("removes only the rows whose agent is not a member of the row's workspace", async () => {
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
