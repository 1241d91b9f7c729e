// A Slack channel whose listening agent stays joined to a restricted workspace
// its owner no longer reaches (demoted from admin): the agent may not hear the
// channel, so its plain messages are not stored at all, as in a channel nobody
// listens to; not even an agent that monitors the workspace finds them. Signed
// Slack events in, on real PostgreSQL when TEST_DATABASE_URL is set.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { slackRuntime } from '../../../src/app-surfaces.ts';
import { connectSlackTeam } from '../../../src/surfaces/slack/index.ts';
import { SLACK_INBOUND } from '../../../src/surfaces/slack/topics.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import type { Agent, Workspace } from '../../../src/core/entities.ts';
import { pgliteDb, postgresDb } from '../../support/db.ts';
import { SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { eventCallback, message } from '../../support/slack/signed-request.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import { startHarness, type Harness } from '../../support/slack/harness.ts';

const CAROL = 'U0CAROL01';
const CHANNEL = 'C0GENERAL';
const database = postgresDb() ?? pgliteDb;

describe(`a Slack channel whose listener's owner left its restricted workspace (${database.kind})`, () => {
  let db: Database;
  let standin: SlackStandin;
  let h: Harness;
  let eng: Workspace;
  let monitor: Agent;

  /** Says `text` in the channel and waits until its inbound job has run. */
  const say = async (text: string) => {
    expect(
      (await h.post(eventCallback(message({ user: CAROL, channel: CHANNEL, channel_type: 'channel', text })))).status,
    ).toBe(200);
    await vi.waitFor(
      async () => {
        const open = (await h.server.app.store.outbox.list({ topic: SLACK_INBOUND })).filter(
          (e) => e.status !== 'done',
        );
        if (open.length) throw new Error('the message is not handled yet');
      },
      { timeout: 20_000, interval: 50 },
    );
  };
  const found = async (text: string) =>
    (await h.server.app.messaging.search(monitor, eng, { text, limit: 10 })).map((x) => x.message.body);

  beforeAll(async () => {
    [db, standin] = await Promise.all([database.open(), startSlackStandin()]);
    standin.setUser(CAROL, { real_name: 'Carol Chen', display_name: 'carol' });
    h = await startHarness({ database: db, standin });
    const { app } = h.server;
    // Seeded here rather than by the harness: eng is restricted, so bob reaches it only as an admin of acme.
    await app.orgs.init({ org: 'Acme', admin: 'alice' });
    await app.orgs.addPerson(SYSTEM, { handle: 'bob', org: 'acme', role: 'admin' });
    eng = await app.orgs.addWorkspace(SYSTEM, { name: 'Eng', org: 'acme', restricted: true });
    ({ agent: monitor } = await app.agents.add(SYSTEM, { name: 'auditor', owner: 'alice' }));
    await app.agents.join(SYSTEM, { agent: 'alice/auditor', workspace: 'eng', monitor: true });
    await app.agents.add(SYSTEM, { name: 'triage', owner: 'bob' });
    await app.agents.join(SYSTEM, { agent: 'bob/triage', workspace: 'eng' });
    await connectSlackTeam(slackRuntime(app), {
      workspace: 'eng',
      teamId: SLACK_DEFAULTS.teamId,
      botToken: standin.botToken,
    });
    await app.listening.listen(SYSTEM, 'eng', `slack:${CHANNEL}`, 'bob/triage');
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  it('keeps plain messages while the owner reaches the workspace, and stores none once the owner is demoted out of it', async () => {
    await say('the invoice export is late again');
    expect(await found('invoice')).toEqual(['the invoice export is late again']);

    await h.server.app.orgs.addPerson(SYSTEM, { handle: 'bob', org: 'acme', role: 'member' });
    await say('my salary review is on friday');
    expect(await found('salary')).toEqual([]);
    expect(await h.server.app.listening.listeners(SYSTEM, 'eng', `slack:${CHANNEL}`)).toEqual([]);
    // The agent itself is still joined: only its owner's reach changed.
    expect(
      (await h.server.app.store.agents.membership((await h.server.app.agents.byName('bob/triage')).id, eng.id))
        ?.receive,
    ).toBe(true);
  });
});
