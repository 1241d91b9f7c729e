// Installing the app: the OAuth flow (state checked against its cookie, the
// bot token stored sealed), and `switchboard slack connect` mapping a team to
// a workspace with a token that Slack confirms belongs to it.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { slackInstallations } from '../../../src/infra/db/schema.ts';
import { runCommand } from '../../../src/cli/control.ts';
import { pgliteDb } from '../../support/db.ts';
import { SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { appMention, eventCallback } from '../../support/slack/signed-request.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import { inbox, startHarness, type Harness } from '../../support/slack/harness.ts';

const SECOND = { teamId: 'T0SECOND1', teamName: 'Second Team', botUserId: 'U0SECBOT1', botId: 'B0SECBOT1' };

describe('installing the Slack app', () => {
  let db: Database;
  let standin: SlackStandin;
  let h: Harness;

  const startInstall = async () => {
    const res = await fetch(`${h.server.url}/slack/install`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location')!);
    const cookie = res.headers.get('set-cookie')!.split(';')[0];
    return { location, state: location.searchParams.get('state')!, cookie };
  };
  const finish = (query: Record<string, string>, cookie?: string) =>
    fetch(`${h.server.url}/slack/oauth_redirect?${new URLSearchParams(query)}`, { headers: cookie ? { cookie } : {} });
  const row = async (teamId: string) =>
    (await db.db.select().from(slackInstallations).where(eq(slackInstallations.teamId, teamId)))[0];
  const mentionFromSecondTeam = (text: string) =>
    h.post(
      eventCallback(
        appMention({
          user: 'U0ERIN001',
          channel: 'C0SECOND1',
          team: SECOND.teamId,
          text: `<@${SECOND.botUserId}> ${text}`,
        }),
        { teamId: SECOND.teamId, botUserId: SECOND.botUserId },
      ),
    );

  beforeAll(async () => {
    [db, standin] = await Promise.all([pgliteDb.open(), startSlackStandin()]);
    standin.setUser('U0ERIN001', { real_name: 'Erin', team_id: SECOND.teamId });
    h = await startHarness({
      database: db,
      standin,
      seed: true,
      env: { SLACK_CLIENT_ID: SLACK_DEFAULTS.clientId, SLACK_CLIENT_SECRET: SLACK_DEFAULTS.clientSecret },
    });
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  it('sends the installer to Slack with the bot scopes and a state bound to a cookie', async () => {
    const { location, state, cookie } = await startInstall();
    expect(location.origin + location.pathname).toBe('https://slack.com/oauth/v2/authorize');
    expect(location.searchParams.get('client_id')).toBe(SLACK_DEFAULTS.clientId);
    expect(location.searchParams.get('scope')!.split(',')).toEqual(
      expect.arrayContaining(['chat:write', 'chat:write.customize', 'users:read', 'commands']),
    );
    expect(cookie).toBe(`slack-app-oauth-state=${state}`);
  });

  it('refuses a return with a forged state or without the state cookie, storing nothing', async () => {
    const { state, cookie } = await startInstall();
    const forged = await finish(
      { code: standin.issueOAuthCode(SECOND), state: `${state}x` },
      cookie.replace(state, `${state}x`),
    );
    expect(forged.status).toBe(400);
    const cookieless = await finish({ code: standin.issueOAuthCode(SECOND), state });
    expect(cookieless.status).toBe(400);
    expect(await cookieless.text()).toContain('Start again from');
    expect(await row(SECOND.teamId)).toBeUndefined();
  });

  it('stores the installation with its bot token sealed, and says how to connect it to a workspace', async () => {
    const { state, cookie } = await startInstall();
    const res = await finish({ code: standin.issueOAuthCode(SECOND), state }, cookie);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain(`switchboard slack connect WORKSPACE --team-id ${SECOND.teamId}`);
    const stored = await row(SECOND.teamId);
    expect(stored).toMatchObject({
      teamName: 'Second Team',
      botUserId: SECOND.botUserId,
      botId: SECOND.botId,
      installedBy: 'U0INSTALL1',
    });
    expect(stored.botTokenSealed).toMatch(/^v1\./);
    expect(stored.botTokenSealed).not.toContain('xoxb-');
  });

  it('tells people in a team that is installed but not connected what the admin must run', async () => {
    await mentionFromSecondTeam('@reviewer hello from the second team');
    const told = await vi.waitFor(() => {
      const call = standin.callsTo('chat.postEphemeral').find((c) => c.args.channel === 'C0SECOND1');
      expect(call).toBeDefined();
      return call!;
    });
    expect(told.args.text).toContain(`switchboard slack connect WORKSPACE --team-id ${SECOND.teamId}`);
    expect(told.token).toMatch(new RegExp(`^xoxb-${SECOND.teamId}-`));
  });

  it('connects an installed team to a workspace with `slack connect`, after which its mentions reach agents', async () => {
    const reply = await runCommand(h.server.app, 'slack connect', { workspace: 'eng', teamId: SECOND.teamId });
    expect(reply).toMatchObject({
      ok: true,
      output: { data: { workspace: 'eng', team_id: SECOND.teamId, token: 'stored' } },
    });
    expect(reply.output!.text).toBe(
      `Connected the Slack team Second Team (${SECOND.teamId}) to the workspace eng; it uses the bot token of the OAuth install.`,
    );
    await mentionFromSecondTeam('@reviewer hello again');
    await vi.waitFor(
      async () => expect((await inbox(h)).map((i) => i.message.body)).toContain('@reviewer hello again'),
      { timeout: 10_000 },
    );
  });

  it('refuses to connect with a token of another team, a token Slack rejects, or an unknown workspace', async () => {
    const other = await runCommand(h.server.app, 'slack connect', {
      workspace: 'eng',
      teamId: 'T0NOTTHIS',
      botToken: standin.botToken,
    });
    expect(other).toMatchObject({
      ok: false,
      error: {
        code: 'INVALID_INPUT',
        message: expect.stringContaining(`belongs to the Slack team ${SLACK_DEFAULTS.teamId}`),
      },
    });
    const bad = await runCommand(h.server.app, 'slack connect', {
      workspace: 'eng',
      teamId: 'T0NOTTHIS',
      botToken: 'xoxb-not-a-real-token',
    });
    expect(bad).toMatchObject({
      ok: false,
      error: { code: 'INVALID_INPUT', message: expect.stringContaining('Slack does not accept that bot token') },
    });
    const notBot = await runCommand(h.server.app, 'slack connect', {
      workspace: 'eng',
      teamId: 'T0NOTTHIS',
      botToken: 'xoxp-user-token',
    });
    expect(notBot).toMatchObject({
      ok: false,
      error: { code: 'INVALID_INPUT', message: expect.stringContaining('starting with xoxb-') },
    });
    const nowhere = await runCommand(h.server.app, 'slack connect', {
      workspace: 'nope',
      teamId: SLACK_DEFAULTS.teamId,
      botToken: standin.botToken,
    });
    expect(nowhere).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(await row('T0NOTTHIS')).toBeUndefined();
  });
});
