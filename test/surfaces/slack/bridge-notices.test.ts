// Switchboard's own posts in a web channel bridged with Slack reach the Slack
// side like any other message there: a done notice for what a Slack user asked
// lands in their Slack thread, and the channel is told when an agent starts or
// stops listening to it. Signed Slack events in, the Slack stand-in out.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SYSTEM } from '../../../src/core/actor.ts';
import { SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { eventCallback, message } from '../../support/slack/signed-request.ts';
import type { SlackStandin } from '../../support/slack/web-api-standin.ts';
import { startBridged, type BridgedHarness, type Harness } from '../../support/slack/harness.ts';

const BOT = SLACK_DEFAULTS.botUserId;
const CAROL = 'U0CAROL01';
const CHANNEL = 'C0NOTICES';

describe("Switchboard's posts in a web channel bridged with Slack", () => {
  let bridged: BridgedHarness;
  let standin: SlackStandin;
  let h: Harness;

  beforeAll(async () => {
    bridged = await startBridged(CHANNEL, {
      real_name: 'Carol Chen',
      display_name: 'carol',
      email: 'carol@example.test',
    });
    ({ standin, h } = bridged);
  });
  afterAll(async () => {
    await bridged?.stop();
  });

  /** Waits for our post to the bridged Slack channel whose text contains `contains`. */
  const postedToSlack = (contains: string) =>
    vi.waitFor(
      () => {
        const calls = standin
          .callsTo('chat.postMessage')
          .filter((c) => c.args.channel === CHANNEL && String(c.args.text).includes(contains) && c.status === 200);
        if (!calls.length) throw new Error(`nothing posted to ${CHANNEL} with "${contains}" yet`);
        return calls;
      },
      { timeout: 20_000, interval: 50 },
    );

  it("posts the done notice of a Slack user's request in their Slack thread, once", async () => {
    const { app } = h.server;
    const asked = message({
      channel: CHANNEL,
      channel_type: 'channel',
      user: CAROL,
      text: `<@${BOT}> @reviewer please fix the export button`,
    });
    expect((await h.post(eventCallback(asked))).status).toBe(200);
    const item = await vi.waitFor(
      async () => {
        const found = (await app.intake.list(h.workspace, { limit: 50 })).find(
          (i) => i.summary === '@reviewer please fix the export button',
        );
        if (!found) throw new Error('not filed yet');
        return found;
      },
      { timeout: 20_000, interval: 50 },
    );
    // Stored in the web thread of Carol's message, which is where the notice is written.
    expect(item.sources).toEqual([expect.objectContaining({ surface: 'slack', authorIdentityId: expect.any(String) })]);

    const { told } = await app.intake.update(h.reviewer, h.workspace, { id: item.id, status: 'done' });
    expect(told).toBe(1);
    const [notice, ...more] = await postedToSlack('the change you asked for is now live');
    expect(more).toHaveLength(0);
    expect(notice.args).toMatchObject({ channel: CHANNEL, thread_ts: asked.ts });
    expect(String(notice.args.text)).toContain('carol, the change you asked for is now live');
    expect(String(notice.args.username)).toMatch(/^Switchboard/);
  });

  it('tells the Slack channel when an agent starts and stops listening to the bridged web channel', async () => {
    const { app } = h.server;
    await app.listening.listen(SYSTEM, 'eng', 'general', 'alice/reviewer');
    const [started, ...twice] = await postedToSlack('now listens to this channel');
    expect(twice).toHaveLength(0);
    expect(started.args.thread_ts).toBeUndefined();
    await app.listening.unlisten(SYSTEM, 'eng', 'general', 'alice/reviewer');
    await postedToSlack('no longer listens to this channel');
  });
});
