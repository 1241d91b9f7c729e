// createApp is the one composition root: every process built from the same
// config (serve, worker, mcp-stdio, the CLI) knows the same chat surfaces, so
// an approval asked in a process that mounts no route (mcp-stdio) is still
// shown in Slack and Teams, and a surface without credentials is left out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/infra/db/client.ts';
import { TEAMS_APPROVAL_SHOW, teamsRuntime } from '../src/surfaces/teams/index.ts';
import { createApp, type App } from '../src/app.ts';
import { SYSTEM } from '../src/core/actor.ts';
import { silent, testConfig } from './support/world.ts';
import { pgliteDb } from './support/db.ts';
import { SLACK_APPROVAL_SHOW } from '../src/surfaces/slack/topics.ts';

const BOTH = {
  SLACK_SIGNING_SECRET: 'composition-signing-secret',
  SLACK_BOT_TOKEN: 'xoxb-composition',
  MICROSOFT_APP_ID: '00000000-0000-4000-8000-00000000c0de',
  MICROSOFT_APP_PASSWORD: 'composition-password',
};

describe('the composition root', () => {
  let database: Database;
  const apps: App[] = [];
  const build = async (env: Record<string, string>) => {
    const app = await createApp(testConfig(env), { database, logger: silent, migrate: false });
    apps.push(app);
    return app;
  };

  beforeAll(async () => {
    database = await pgliteDb.open();
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await database?.close();
  });

  it('builds every configured surface without mounting anything, so approvals asked there get Slack and Teams cards', async () => {
    const app = await build(BOTH);
    expect([...app.surfaces].sort()).toEqual(['slack', 'teams']);
    // The web chat is built too, but keeps its cards in Switchboard: no job shows them.
    expect([...app.surfaceModules.keys()].sort()).toEqual(['slack', 'teams', 'web']);
    await app.orgs.init({ org: 'Compose', admin: 'alice' });
    const ws = await app.orgs.addWorkspace(SYSTEM, { name: 'Eng', org: 'compose' });
    const { agent } = await app.agents.add(SYSTEM, { name: 'deployer', owner: 'alice', displayName: 'Deployer' });
    await app.agents.join(SYSTEM, { agent: 'alice/deployer', workspace: ws.slug });
    const approval = await app.approvals.request(agent, ws, { title: 'Deploy', details: 'v2' });
    const topics = (await app.store.outbox.list({}))
      .filter((e) => e.payload.approvalId === approval.id)
      .map((e) => e.topic);
    expect(topics).toEqual(expect.arrayContaining([SLACK_APPROVAL_SHOW, TEAMS_APPROVAL_SHOW]));
  });

  it('leaves out a surface without credentials, and says how to turn it on when asked for it', async () => {
    const app = await build({ SLACK_SIGNING_SECRET: 'composition-signing-secret' });
    expect([...app.surfaces]).toEqual(['slack']);
    expect(() => teamsRuntime(app.surfaceModules)).toThrow(/set MICROSOFT_APP_ID and MICROSOFT_APP_PASSWORD/);
  });
});
