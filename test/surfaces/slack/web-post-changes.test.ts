// A linked person's own Slack thread, opened in the web chat: what they write
// there is posted to Slack (chat.postMessage), and their web edit or delete of
// it follows in Slack (chat.update, chat.delete on that ts) through the real
// Bolt app and the Web API stand-in.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { slackRuntime } from '../../../src/app-surfaces.ts';
import type { Viewer } from '../../../src/core/channels/access.ts';
import { pgliteDb } from '../../support/db.ts';
import { SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { appMention, eventCallback } from '../../support/slack/signed-request.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import { startHarness, type Harness } from '../../support/slack/harness.ts';
import { chatOf } from '../../../src/surfaces/web/index.ts';

const ALICE = 'U0ALICE01';
const CHANNEL = 'C0GENERAL';
const wait = { timeout: 20_000, interval: 50 };

describe("a linked person's Slack thread in the web chat", () => {
  let db: Database;
  let standin: SlackStandin;
  let h: Harness;
  let alice: Viewer;

  beforeAll(async () => {
    [db, standin] = await Promise.all([pgliteDb.open(), startSlackStandin()]);
    standin.setUser(ALICE, { real_name: 'Alice Adams', email: 'alice@example.test' });
    h = await startHarness({ database: db, standin, seed: true });
    const { app } = h.server;
    const rt = slackRuntime(app);
    const identity = await rt.identities.upsert({
      surface: 'slack',
      tenantId: SLACK_DEFAULTS.teamId,
      externalUserId: ALICE,
    });
    const person = (await app.store.people.get('alice'))!;
    await rt.identities.link(identity.id, person.id, new Date());
    alice = await chatOf(app).chat.viewer(person.id, h.workspace.id);
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  it('updates and deletes the Slack post when the person edits or deletes it in the web chat', async () => {
    const { store } = h.server.app;
    const { chat } = chatOf(h.server.app);
    await h.post(
      eventCallback(
        appMention({
          user: ALICE,
          channel: CHANNEL,
          text: `<@${SLACK_DEFAULTS.botUserId}> @reviewer is the deploy today?`,
        }),
      ),
    );
    // Alice's Slack thread is an external conversation in her web sidebar.
    const thread = await vi.waitFor(async () => {
      const found = (await chat.sidebar(alice)).conversations.find((c) => c.kind === 'external');
      if (!found) throw new Error('the Slack thread is not in the web sidebar yet');
      return found;
    }, wait);

    const sent = await chat.post(alice, thread.id, 'Deploy at 3pm');
    const id = sent.message!.id;
    const ts = await vi.waitFor(() => {
      const call = standin
        .callsTo('chat.postMessage')
        .find((c) => c.args.channel === CHANNEL && String(c.args.text).includes('Deploy at 3pm') && c.status === 200);
      if (!call) throw new Error('not posted to Slack yet');
      return (call.response as { ts: string }).ts;
    }, wait);
    await vi.waitFor(async () => expect((await store.messages.get(h.workspace.id, id))?.externalId).toBe(ts), wait);

    await chat.edit(alice, id, 'Deploy at 4pm');
    await vi.waitFor(() => expect(standin.message(CHANNEL, ts)?.text).toContain('Deploy at 4pm'), wait);
    expect(
      standin.callsTo('chat.update').filter((c) => c.args.channel === CHANNEL && c.args.ts === ts && c.status === 200),
    ).toHaveLength(1);

    await chat.remove(alice, id);
    await vi.waitFor(() => expect(standin.message(CHANNEL, ts)).toBeUndefined(), wait);
    expect(
      standin.callsTo('chat.delete').filter((c) => c.args.channel === CHANNEL && c.args.ts === ts && c.status === 200),
    ).toHaveLength(1);
  });
});
