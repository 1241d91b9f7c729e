// `person add` for a handle that exists: it puts that person in the organization
// (or changes their role there) instead of failing on the taken handle.
// Run as the CLI runs it (the same command functions the control socket calls), on one PGlite.
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

describe('person add for someone who already exists', () => {
  let database: Database;
  let app: App;
  let dataDir: string;
  const { run, ok } = commandRunner(() => app);
  const roleOf = async (handle: string, org: string) => {
    const [p, o] = await Promise.all([app.store.people.get(handle), app.store.orgs.get(org)]);
    return (await app.store.orgs.member(o!.id, p!.id))?.role ?? null;
  };

  beforeAll(async () => {
    database = await pgliteDb.open();
    dataDir = mkdtempSync(path.join(tmpdir(), 'sb-cli-person-add-'));
    app = await createApp(loadConfig({ DATA_DIR: dataDir, SWITCHBOARD_SECRET: 'x'.repeat(32) }), {
      database,
      logger: pino({ level: 'silent' }),
    });
    await ok('init', { org: 'Acme', admin: 'alice' });
    await ok('person add', { handle: 'bob', org: 'acme', role: 'member', name: 'Bob' });
    await ok('init', { org: 'Beta', admin: 'carol' });
  });
  afterAll(async () => {
    await app.close();
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("follows the last admin's refusal: making a member admin lets the former last admin be removed", async () => {
    const refused = await run('person remove', { handle: 'alice', org: 'acme' });
    expect(refused.error?.message).toContain('`switchboard person add HANDLE --org acme --role admin`');

    const promoted = await ok('person add', { handle: 'bob', org: 'acme', role: 'admin' });
    expect(promoted.text).toBe("Changed @bob's role in acme from member to admin.");
    expect(promoted.data).toMatchObject({ created: false, org: 'acme', role: 'admin', previous_role: 'member' });
    expect(await roleOf('bob', 'acme')).toBe('admin');

    await ok('person remove', { handle: 'alice', org: 'acme' });
    expect(await roleOf('alice', 'acme')).toBeNull();
  });

  it('adds a removed person back, keeping their account', async () => {
    const bob = (await app.store.people.get('bob'))!;
    const back = await ok('person add', { handle: 'alice', org: 'acme', role: 'member' });
    expect(back.text).toBe('Added @alice, who already had an account, to acme as member.');
    expect(await roleOf('alice', 'acme')).toBe('member');
    // Nobody new was created: still one person per handle, each with one own organization.
    expect((await ok('person list', {})).data.people).toHaveLength(3);
    expect((await app.store.people.get('bob'))!.id).toBe(bob.id);
  });

  it('adds an existing person of one organization to another, leaving their name and e-mail as they were', async () => {
    const added = await ok('person add', {
      handle: 'bob',
      org: 'beta',
      role: 'member',
      name: 'Robert',
      email: 'rob@example.com',
    });
    expect(added.text).toBe(
      'Added @bob, who already had an account, to beta as member. Their name and e-mail stay as they were (--name and --email apply only to new people).',
    );
    expect(await roleOf('bob', 'beta')).toBe('member');
    expect(await roleOf('bob', 'acme')).toBe('admin');
    expect(await app.store.people.get('bob')).toMatchObject({ displayName: 'Bob', email: null });
  });

  it('says when nothing changed', async () => {
    expect((await ok('person add', { handle: 'bob', org: 'beta', role: 'member' })).text).toBe(
      '@bob is already in beta as member; nothing changed.',
    );
  });

  it('refuses to make the last admin a member, saying what to do', async () => {
    const refused = await run('person add', { handle: 'carol', org: 'beta', role: 'member' });
    expect(refused.error).toMatchObject({
      code: 'INVALID_INPUT',
      message:
        '@carol is the last admin of Beta; make someone else an admin first (`switchboard person add HANDLE --org beta --role admin`).',
    });
    expect(await roleOf('carol', 'beta')).toBe('admin');
  });

  it('refuses a taken handle without --org or --invite, saying what to do', async () => {
    const refused = await run('person add', { handle: 'bob', role: 'member' });
    expect(refused.error).toMatchObject({
      code: 'CONFLICT',
      message:
        'The handle "bob" is already taken: choose another, pass --org ORG to add @bob to an organization, or --invite for a new sign-in link.',
    });
  });

  it("keeps an existing member's role when none is given: asking for a new link does not demote an admin", async () => {
    await ok('person add', { handle: 'bob', org: 'acme', role: 'admin' });
    const again = await ok('person add', { handle: 'bob', org: 'acme', invite: true });
    expect(again.text).toMatch(/^@bob is already in acme as admin; nothing changed\./);
    expect(await roleOf('bob', 'acme')).toBe('admin');
  });

  it('prints a new sign-in link for an existing person with --invite, saying their password keeps working', async () => {
    const bob = (await app.store.people.get('bob'))!;
    const plain = await ok('person add', { handle: 'bob', role: 'member', invite: true });
    expect(plain.text).toMatch(
      /^@bob already exists; here is a new sign-in link for them\.\nSign-in link: http\S+\/signin\?token=\S+$/,
    );

    await app.store.people.setPasswordHash(bob.id, 'scrypt$not-a-real-hash');
    const withPassword = await ok('person add', { handle: 'bob', org: 'beta', role: 'member', invite: true });
    expect(withPassword.text).toMatch(
      /^@bob is already in beta as member; nothing changed\.\nSign-in link: \S+ \(@bob's password keeps working too\)$/,
    );
    expect(withPassword.data.signin_url).toEqual(expect.stringContaining('/signin?token='));
  });
});
