// A Slack channel whose only listening agent was removed is read no further:
// its plain messages are dropped unread again, as in a channel nobody listens
// to, so not even an agent that monitors the workspace finds them. Signed Slack
// events in, on real PostgreSQL when TEST_DATABASE_URL is set.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { SLACK_INBOUND } from '../../../src/surfaces/slack/topics.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import type { Agent } from '../../../src/core/entities.ts';
import { pgliteDb, postgresDb } from '../../support/db.ts';
import { eventCallback, message } from '../../support/slack/signed-request.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import { startHarness, type Harness } from '../../support/slack/harness.ts';

const CAROL = 'U0CAROL01';
const CHANNEL = 'C0GENERAL';
const database = postgresDb() ?? pgliteDb;

describe(`a Slack channel whose listening agent was removed (${database.kind})`, () => {
  let db: Database;
  let standin: SlackStandin;
  let h: Harness;
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
    (await h.server.app.messaging.search(monitor, h.workspace, { text, limit: 10 })).map((x) => x.message.body);

  beforeAll(async () => {
    [db, standin] = await Promise.all([database.open(), startSlackStandin()]);
    standin.setUser(CAROL, { real_name: 'Carol Chen', display_name: 'carol' });
    h = await startHarness({ database: db, standin, seed: true });
    const { app } = h.server;
    ({ agent: monitor } = await app.agents.add(SYSTEM, { name: 'auditor', owner: 'alice' }));
    await app.agents.join(SYSTEM, { agent: 'alice/auditor', workspace: 'eng', monitor: true });
    await app.agents.add(SYSTEM, { name: 'triage', owner: 'alice' });
    await app.agents.join(SYSTEM, { agent: 'alice/triage', workspace: 'eng' });
    await app.listening.listen(SYSTEM, 'eng', `slack:${CHANNEL}`, 'alice/triage');
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  it('keeps plain messages while the agent listens, and drops them unread once it is removed', async () => {
    await say('the invoice export is late again');
    expect(await found('invoice')).toEqual(['the invoice export is late again']);

    await h.server.app.agents.remove(SYSTEM, 'alice/triage');
    await say('my salary review is on friday');
    expect(await found('salary')).toEqual([]);
    expect(await h.server.app.listening.listeners(SYSTEM, 'eng', `slack:${CHANNEL}`)).toEqual([]);
  });
});
