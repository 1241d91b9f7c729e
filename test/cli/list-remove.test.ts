// `list` and `remove` for people, agents and workspaces, run as the CLI runs
// them (the same command functions the control socket calls), on one PGlite.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/infra/db/client.ts';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { pgliteDb } from '../support/db.ts';
import { commandRunner } from '../support/cli.ts';

describe('list and remove from the CLI', () => {
  let database: Database;
  let app: App;
  let dataDir: string;
  const { run, ok } = commandRunner(() => app);

  beforeAll(async () => {
    database = await pgliteDb.open();
    dataDir = mkdtempSync(path.join(tmpdir(), 'sb-cli-list-'));
    app = await createApp(loadConfig({ DATA_DIR: dataDir, SWITCHBOARD_SECRET: 'x'.repeat(32) }), {
      database,
      logger: pino({ level: 'silent' }),
    });
    await ok('init', { org: 'Acme', admin: 'alice' });
    await ok('person add', { handle: 'bob', org: 'acme', role: 'member' });
    await ok('workspace add', { name: 'Eng', org: 'acme' });
    await ok('member add', { workspace: 'eng', handle: 'bob', role: 'editor' });
  });
  afterAll(async () => {
    await app.close();
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("lists an organization's people with role and seat, and everyone without --org", async () => {
    await ok('seat grant', { handle: 'bob', org: 'acme' });
    expect((await ok('person list', { org: 'acme' })).data.people).toEqual([
      { handle: 'alice', display_name: 'alice', email: null, role: 'admin', seat: false },
      { handle: 'bob', display_name: 'bob', email: null, role: 'member', seat: true },
    ]);
    const everyone = await ok('person list', {});
    expect((everyone.data.people as Array<{ handle: string }>).map((p) => p.handle)).toEqual(['alice', 'bob']);
    expect(everyone.text).toBe('@alice  alice\n@bob  bob');
  });

  it('lists workspaces of one organization', async () => {
    const out = await ok('workspace list', { org: 'acme' });
    expect(out.data.workspaces).toEqual([{ slug: 'eng', name: 'Eng', kind: 'structured', restricted: false }]);
    expect(out.text).toBe('eng  Eng (structured)');
  });

  it('removes an agent: its token stops working, it leaves its workspaces, and the list shows it removed', async () => {
    const added = await ok('agent add', { name: 'builder', owner: 'bob' });
    const token = added.data.token as string;
    await ok('agent join', { agent: 'bob/builder', workspace: 'eng' });
    expect(await app.agents.authenticate(token)).not.toBeNull();

    expect((await ok('agent remove', { agent: 'bob/builder' })).text).toContain('its token no longer works');
    expect(await app.agents.authenticate(token)).toBeNull();
    const agent = (await app.store.agents.byQualifiedName('bob', 'builder'))!;
    const ws = (await app.store.workspaces.get('eng'))!;
    expect(await app.store.agents.membership(agent.id, ws.id)).toBeNull();
    expect((await ok('agent list', { owner: 'bob' })).data.agents).toEqual([
      { name: 'bob/builder', display_name: 'builder', role: '', token: 'none (removed)' },
    ]);
  });

  it('refuses to remove a person agent, or an agent that does not exist, saying why', async () => {
    expect((await run('agent remove', { agent: 'bob/bob' })).error).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('person agent'),
    });
    expect((await run('agent remove', { agent: 'bob/nobody' })).error).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses to remove the last admin of an organization, and removes a member with their roles there', async () => {
    const last = await run('person remove', { handle: 'alice', org: 'acme' });
    expect(last.error).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/last admin of Acme; make someone else an admin first/),
    });

    await ok('agent add', { name: 'helper', owner: 'bob' });
    await ok('agent join', { agent: 'bob/helper', workspace: 'eng' });
    await ok('person remove', { handle: 'bob', org: 'acme' });
    const [bob, ws, org] = await Promise.all([
      app.store.people.get('bob'),
      app.store.workspaces.get('eng'),
      app.store.orgs.get('acme'),
    ]);
    expect(await app.store.orgs.member(org!.id, bob!.id)).toBeNull();
    expect(await app.store.workspaces.directRole(ws!.id, bob!.id)).toBeNull();
    const helper = (await app.store.agents.byQualifiedName('bob', 'helper'))!;
    expect(await app.store.agents.membership(helper.id, ws!.id)).toBeNull();
    // Their account and own organization stay.
    expect((await app.store.orgs.listForPerson(bob!.id)).map((o) => o.slug)).toEqual(['~bob']);
    expect((await run('person remove', { handle: 'bob', org: 'acme' })).error).toMatchObject({ code: 'NOT_FOUND' });
    expect((await run('person remove', { handle: 'bob', org: '~bob' })).error).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('own organization'),
    });
  });

  it('removes a workspace only with --yes, saying what goes with it', async () => {
    const unconfirmed = await run('workspace remove', { workspace: 'eng' });
    expect(unconfirmed.error).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/deletes its conversations, messages, documents.*--yes/),
    });
    expect(await app.store.workspaces.get('eng')).not.toBeNull();
    await ok('workspace remove', { workspace: 'eng', yes: true });
    expect(await app.store.workspaces.get('eng')).toBeNull();
    expect((await ok('workspace list', { org: 'acme' })).data.workspaces).toEqual([]);
  });
});
