import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPostgresDatabase } from '../support/db.ts';
import { cliIn as cli } from '../support/cli.ts';
import { serviceUrl } from '../support/services.ts';

const run = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, '../../bin/switchboard.mjs');

const pgUrl = serviceUrl('postgres');

describe.runIf(pgUrl)('the CLI against PostgreSQL', () => {
  let env: Record<string, string>;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const db = await freshPostgresDatabase(pgUrl!);
    drop = db.drop;
    env = { DATABASE_URL: db.url, DATA_DIR: mkdtempSync(path.join(tmpdir(), 'sb-cli-')), LOG_LEVEL: 'silent' };
  });
  afterAll(async () => {
    await drop();
    rmSync(env.DATA_DIR, { recursive: true, force: true });
  });

  it('initialises an organization and prints a one-time sign-in URL', async () => {
    const r = await cli(env, '--json', 'init', '--org', 'Acme', '--admin', 'alice');
    expect(r.code).toBe(0);
    const data = JSON.parse(r.out);
    expect(data.org).toMatchObject({ slug: 'acme', plan: 'free' });
    expect(data.signin_url).toMatch(/^http:\/\/localhost:3000\/signin\?token=[\w-]{43}$/);
  });

  it('adds a person and an agent, printing its token once', async () => {
    expect((await cli(env, 'person', 'add', 'bob', '--org', 'acme')).code).toBe(0);
    const r = await cli(env, 'agent', 'add', 'builder', '--owner', 'alice', '--role', 'Builds things');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/Created agent alice\/builder\.\nIts token \(shown once, store it now\): sb_[\w-]{43}/);
  });

  it('refuses the same agent name for the same owner with a conflict and a non-zero exit', async () => {
    const r = await cli(env, 'agent', 'add', 'builder', '--owner', 'alice');
    expect(r.code).toBe(1);
    expect(r.err).toContain('Error (CONFLICT): This owner already has an agent named "builder"');
  });

  it('accepts the same name under another owner', async () => {
    const r = await cli(env, '--json', 'agent', 'add', 'builder', '--owner', 'bob');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ agent: { name: 'bob/builder' }, token: expect.stringMatching(/^sb_/) });
  });

  it('refuses the 6th agent on a Free organization with the limit stated', async () => {
    for (const n of ['a2', 'a3', 'a4', 'a5'])
      expect((await cli(env, 'agent', 'add', n, '--owner', 'alice')).code).toBe(0);
    const r = await cli(env, 'agent', 'add', 'a6', '--owner', 'alice');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/PLAN_LIMIT.*already has 5 agents and its free plan allows 5/);
  });

  it('refuses the 2nd workspace on a Free organization with the limit stated', async () => {
    expect((await cli(env, 'workspace', 'add', 'Eng', '--org', 'acme')).code).toBe(0);
    const r = await cli(env, '--json', 'workspace', 'add', 'Ops', '--org', 'acme');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.err).error).toMatchObject({
      code: 'PLAN_LIMIT',
      message: expect.stringContaining('free plan allows 1'),
    });
  });

  it('joins an agent with permissions and manages members, seats and plans', async () => {
    expect((await cli(env, 'member', 'add', 'eng', 'bob', '--role', 'editor')).code).toBe(0);
    expect((await cli(env, 'seat', 'grant', 'bob', '--org', 'acme')).out).toContain('now holds a seat');
    const join = await cli(
      env,
      '--json',
      'agent',
      'join',
      'alice/builder',
      'eng',
      '--no-send',
      '--can-message',
      'bob',
      '--monitor',
    );
    expect(JSON.parse(join.out)).toMatchObject({ send: false, receive: true, monitor: true, can_message: ['bob'] });
    const plan = await cli(env, '--json', 'plan', 'set', 'acme', 'team', '--messages', '20000');
    expect(JSON.parse(plan.out)).toMatchObject({
      plan: 'team',
      messages_per_month: 20000,
      agents: 200,
      workspaces: null,
      history_days: 90,
    });
  });

  it('refuses an allow-list naming an agent not in the workspace yet with the command that puts it there, not an MCP tool', async () => {
    const r = await cli(env, 'agent', 'join', 'alice/builder', 'eng', '--can-message', 'bob/builder');
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      'Error (NOT_FOUND): There is no agent or person "bob/builder" in this workspace; did you mean alice/builder? Only agents already in eng and people who can reach it can be named: ' +
        "put that agent in first with `switchboard agent join bob/builder eng` (`switchboard agent list` shows every agent's name).",
    );
    expect(r.err).not.toContain('list_agents');
    // Doing what it says works.
    expect((await cli(env, 'agent', 'join', 'bob/builder', 'eng')).code).toBe(0);
    const join = await cli(
      env,
      '--json',
      'agent',
      'join',
      'alice/builder',
      'eng',
      '--can-message',
      'bob/builder',
      '--takes-from',
      'bob/builder',
    );
    expect(JSON.parse(join.out)).toMatchObject({ can_message: ['bob/builder'], takes_messages_from: ['bob/builder'] });
  });

  it('rotates a token', async () => {
    const r = await cli(env, '--json', 'agent', 'rotate-token', 'bob/builder');
    expect(JSON.parse(r.out).token).toMatch(/^sb_/);
  });

  it('explains bad input with exit code 2', async () => {
    const r = await cli(env, 'member', 'add', 'eng', 'bob', '--role', 'boss');
    expect(r.code).toBe(2);
    expect(r.err).toContain('--role must be one of: owner, editor, viewer');
  });

  it('refuses a monthly message limit too large to store with a sentence and exit code 2', async () => {
    const r = await cli(env, 'plan', 'set', 'acme', 'team', '--messages', '3000000000');
    expect(r.code).toBe(2);
    expect(r.err).toContain('--messages can be at most 2147483647');
    expect(r.err).not.toMatch(/INTERNAL|out of range/);
    expect(
      JSON.parse((await cli(env, '--json', 'plan', 'set', 'acme', 'team', '--messages', '2147483647')).out),
    ).toMatchObject({ messages_per_month: 2_147_483_647 });
    expect((await cli(env, 'plan', 'set', 'acme', 'team', '--messages', '20000')).code).toBe(0);
  });

  it('runs as the package bin and exits non-zero on a refusal', async () => {
    const err = await run('node', [BIN, 'agent', 'add', 'builder', '--owner', 'alice'], {
      env: { ...process.env, ...env },
    }).catch((e) => e);
    expect(err.code).toBe(1);
    expect(err.stderr).toContain('CONFLICT');
  });
});

describe('the CLI configuration check', () => {
  it('stops with a sentence saying what to set', async () => {
    const r = await cli({ DATABASE_URL: 'mysql://nope', LOG_LEVEL: 'silent' }, 'person', 'add', 'x');
    expect(r.code).toBe(2);
    expect(r.err).toContain('DATABASE_URL must start with postgres://');
  });

  it('refuses a PUBLIC_URL without a scheme before making a sign-in link, with exit code 2', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'sb-cli-'));
    try {
      const r = await cli(
        { PUBLIC_URL: 'localhost:3000', DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
        'init',
        '--org',
        'Acme',
        '--admin',
        'alice',
      );
      expect(r.code).toBe(2);
      expect(r.err).toContain(
        'PUBLIC_URL: PUBLIC_URL must be an http(s) address such as https://switchboard.example.com',
      );
      expect(r.out).not.toContain('signin');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses a TRUST_PROXY express cannot read with the other configuration errors (exit code 2), before serving', async () => {
    const r = await cli({ TRUST_PROXY: 'maybe', PORT: '0', LOG_LEVEL: 'silent' }, 'serve');
    expect(r.code).toBe(2);
    expect(r.err).toContain(
      'Switchboard cannot start because of its environment:\n- TRUST_PROXY: TRUST_PROXY must be true, false, a number of proxy hops, or a comma-separated list of proxy addresses, subnets and the names loopback, linklocal or uniquelocal, such as loopback,10.0.0.0/8',
    );
    expect(r.err).not.toContain('INTERNAL');
  });
});
