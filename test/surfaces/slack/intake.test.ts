// Intake from Slack through the real Slack mount and the Web API stand-in, on
// real PostgreSQL: an unlinked person's request to an agent becomes an item
// on its own (its kind inferred), linked by its Slack permalink, and when the
// item is done the person is told once, in the Slack thread where they asked.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { pgliteDb, postgresDb } from '../../support/db.ts';
import { SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { appMention, eventCallback } from '../../support/slack/signed-request.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import { postCommand, startHarness, type Harness } from '../../support/slack/harness.ts';

const BOT = `<@${SLACK_DEFAULTS.botUserId}>`;
const CAROL = 'U0CAROL01';
const database = postgresDb() ?? pgliteDb;

describe(`intake from Slack (${database.kind})`, () => {
  let db: Database;
  let standin: SlackStandin;
  let h: Harness;

  beforeAll(async () => {
    [db, standin] = await Promise.all([database.open(), startSlackStandin()]);
    standin.setUser(CAROL, { real_name: 'Carol Chen', display_name: 'carol' });
    h = await startHarness({ database: db, standin, seed: true });
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  it("files an unlinked person's request to an agent, and tells them once in their thread when it is done", async () => {
    const { app } = h.server;
    const mention = appMention({
      user: CAROL,
      channel: 'C0GENERAL',
      text: `${BOT} @reviewer please add a dark mode to the dashboard`,
    });
    expect((await h.post(eventCallback(mention))).status).toBe(200);
    const item = await vi.waitFor(
      async () => {
        const [found] = await app.intake.list(h.workspace, { limit: 10 });
        if (!found) throw new Error('no intake item yet');
        return found;
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(item).toMatchObject({
      kind: 'feature request',
      status: 'new',
      filedBy: null,
      summary: '@reviewer please add a dark mode to the dashboard',
    });
    expect(item.sources).toEqual([
      expect.objectContaining({ surface: 'slack', permalink: expect.stringMatching(/^https?:\/\//) }),
    ]);

    // A thank-you in the same thread is no request; a greeting elsewhere neither.
    await h.post(
      eventCallback(
        appMention({ user: CAROL, channel: 'C0GENERAL', thread_ts: mention.ts, text: `${BOT} @reviewer thanks!` }),
      ),
    );
    await vi.waitFor(
      async () => {
        if (
          !(await app.messaging.checkInbox(h.reviewer, h.workspace, 50)).items.some(
            (i) => i.message.body === '@reviewer thanks!',
          )
        )
          throw new Error('not delivered yet');
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(await app.intake.list(h.workspace, { limit: 10 })).toHaveLength(1);

    const r = await app.intake.update(h.reviewer, h.workspace, { id: item.id, status: 'done' });
    expect(r.told).toBe(1);
    const notice = await vi.waitFor(
      () => {
        const c = standin
          .callsTo('chat.postMessage')
          .find((x) => String(x.args.text).includes('change you asked for is now live'));
        if (!c) throw new Error('no notice in Slack yet');
        return c;
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(notice.args).toMatchObject({ channel: 'C0GENERAL', thread_ts: mention.ts });
    expect(String(notice.args.text)).toContain('carol, the change you asked for is now live');
    expect((await app.intake.update(h.reviewer, h.workspace, { id: item.id, status: 'done' })).told).toBe(0);
  });

  it('lets a person opt out of done notices with the slash command, and back in', async () => {
    const { app } = h.server;
    const off = await postCommand(h, standin, {
      command: '/switchboard',
      text: 'notices off',
      user_id: CAROL,
      channel_id: 'C0GENERAL',
    });
    expect(String((await off.json()).text)).toContain('You will not be told when something you asked for is done');
    const identity = (await app.store.identities.find({
      surface: 'slack',
      tenantId: SLACK_DEFAULTS.teamId,
      externalUserId: CAROL,
    }))!;
    expect(await app.intake.noticesOn({ identityId: identity.id })).toBe(false);
    const wrong = await postCommand(h, standin, {
      command: '/switchboard',
      text: 'notices maybe',
      user_id: CAROL,
      channel_id: 'C0GENERAL',
    });
    expect(String((await wrong.json()).text)).toMatch(/notices off.*notices on/);
    const on = await postCommand(h, standin, {
      command: '/switchboard',
      text: 'notices on',
      user_id: CAROL,
      channel_id: 'C0GENERAL',
    });
    expect(String((await on.json()).text)).toContain('You will be told');
    expect(await app.intake.noticesOn({ identityId: identity.id })).toBe(true);
  });
});
