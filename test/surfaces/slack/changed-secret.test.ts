// A Slack team's bot token is stored sealed with the secret in use when it was
// connected. Started later with another secret, Switchboard says so at start-up,
// and a request from that team fails for good at once with what to do (set the
// old secret back, or connect the team again) instead of being retried.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { unreadableToken } from '../../../src/surfaces/slack/installations.ts';
import { runCommand } from '../../../src/cli/control.ts';
import { pgliteDb, postgresDb } from '../../support/db.ts';
import { SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { appMention, eventCallback } from '../../support/slack/signed-request.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import { inbox, SECRET, startHarness } from '../../support/slack/harness.ts';
import { SLACK_INBOUND } from '../../../src/surfaces/slack/topics.ts';

const database = postgresDb() ?? pgliteDb;
const TEAM = SLACK_DEFAULTS.teamId;
const CAROL = 'U0CAROL01';
const LONG = { timeout: 30_000, interval: 50 };
/** SWITCHBOARD_SECRET left unset: the server generates one in its DATA_DIR. */
const GENERATED = { SWITCHBOARD_SECRET: '' };

type LogLine = { level: number; msg: string; teamId?: string; secretFile?: string };
const warningsAbout = (lines: string[]) =>
  lines.map((l) => JSON.parse(l) as LogLine).filter((l) => l.level === 40 && l.msg.includes('cannot be decrypted'));

describe(`a Slack team connected under another secret (${database.kind})`, () => {
  let db: Database;
  let standin: SlackStandin;
  const start = (env: Record<string, string>, logLines: string[] = []) =>
    startHarness({ database: db, standin, env, logLines });

  beforeAll(async () => {
    [db, standin] = await Promise.all([database.open(), startSlackStandin()]);
    standin.setUser(CAROL, { real_name: 'Carol Chen' });
    // Connected with `slack connect --bot-token` while SWITCHBOARD_SECRET was not set.
    const first = await startHarness({ database: db, standin, seed: true, env: GENERATED });
    await first.stop();
  });
  afterAll(async () => {
    await standin?.close();
    await db?.close();
  });

  it('warns at start-up, fails the request for good at once saying what to do, and works again once the team is connected anew', async () => {
    const logLines: string[] = [];
    const h = await start({ SWITCHBOARD_SECRET: SECRET }, logLines);
    try {
      const [warning] = warningsAbout(logLines);
      expect(warning).toMatchObject({ teamId: TEAM, secretFile: expect.stringMatching(/secret$/) });
      expect(warning.msg).toContain('SWITCHBOARD_SECRET');
      expect(warning.msg).toContain('DATA_DIR/secret');
      expect(warning.msg).toContain(`switchboard slack connect WORKSPACE --team-id ${TEAM}`);
      expect(warning.msg).toContain('the secret in use now is SWITCHBOARD_SECRET, as set now');

      const body = '@reviewer please look at #418';
      const res = await h.post(
        eventCallback(
          appMention({ user: CAROL, channel: 'C0GENERAL', text: `<@${SLACK_DEFAULTS.botUserId}> ${body}` }),
        ),
      );
      expect(res.status).toBe(200);
      const failed = await vi.waitFor(async () => {
        const reply = await runCommand(h.server.app, 'jobs list', { topic: SLACK_INBOUND });
        const jobs = (reply.output?.data.jobs ?? []) as Array<{
          id: string;
          status: string;
          attempts: number;
          last_error: string;
        }>;
        expect(jobs.map((j) => j.status)).toEqual(['failed']);
        return jobs[0];
      }, LONG);
      // Recorded at the first attempt, not retried: only the old secret or connecting again can help.
      expect(failed.attempts).toBe(1);
      expect(failed.last_error).toBe(unreadableToken(TEAM).message);
      expect(failed.last_error).toContain(
        'Set SWITCHBOARD_SECRET back to the secret it was stored under, or connect the team again',
      );

      // Doing what it says: connect the team again with its token, under the secret in use now, and retry the job.
      const connected = await runCommand(h.server.app, 'slack connect', {
        workspace: 'eng',
        teamId: TEAM,
        botToken: standin.botToken,
      });
      expect(connected.ok).toBe(true);
      expect((await runCommand(h.server.app, 'jobs retry', { id: failed.id })).ok).toBe(true);
      await vi.waitFor(async () => expect((await inbox(h)).map((i) => i.message.body)).toContain(body), LONG);
    } finally {
      await h.stop();
    }
  }, 120_000);

  it('says nothing when the secret opens the stored token, and names the generated secret file when SWITCHBOARD_SECRET is unset', async () => {
    const same: string[] = [];
    await (await start({ SWITCHBOARD_SECRET: SECRET }, same)).stop();
    expect(warningsAbout(same)).toEqual([]);

    const generated: string[] = [];
    await (await start(GENERATED, generated)).stop();
    const [warning] = warningsAbout(generated);
    expect(warning.msg).toContain(
      `the secret in use now is the one generated in ${warning.secretFile}, as SWITCHBOARD_SECRET is not set`,
    );
  }, 60_000);
});
