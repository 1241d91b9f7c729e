// `switchboard bridge add --teams` against the Teams stand-in (real Bot
// Framework tokens), on real PostgreSQL when TEST_DATABASE_URL is set (PGlite
// otherwise): what is checked before a web channel is linked to a Teams channel.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { runCommand } from '../../../src/cli/control.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import { teamsRuntime } from '../../../src/surfaces/teams/index.ts';
import { pgliteDb, postgresDb } from '../../support/db.ts';
import { botAdded } from '../../support/teams/activities.ts';
import { TEAMS_DEFAULTS } from '../../support/teams/defaults.ts';
import { startTeamsStandin, type TeamsStandin } from '../../support/teams/standin.ts';
import { startHarness, type Harness } from '../../support/teams/harness.ts';

const CHANNEL = TEAMS_DEFAULTS.channelId;
const ELSEWHERE = '19:0a1b2c3d4e5f60718293a4b5c6d7e8f9@thread.tacv2';

describe('bridge commands for Teams channels', () => {
  let db: Database;
  let standin: TeamsStandin;
  let h: Harness;
  const run = (args: Record<string, unknown>) => runCommand(h.server.app, 'bridge add', args);
  const refused = async (args: Record<string, unknown>) => {
    const reply = await run(args);
    expect(reply.ok, JSON.stringify(reply.output?.data)).toBe(false);
    return reply.error!;
  };
  const channel = async (name: string, restricted = false) => {
    const { app } = h.server;
    const conv = await app.store.messages.conversation({
      workspaceId: h.workspace.id,
      kind: 'channel',
      key: `channel:${name}`,
      title: name,
      surface: 'web',
    });
    await app.store.chat.createChannel({
      conversationId: conv.id,
      workspaceId: h.workspace.id,
      name,
      restricted,
      description: '',
      createdBy: null,
    });
  };

  beforeAll(async () => {
    [db, standin] = await Promise.all([(postgresDb() ?? pgliteDb).open(), startTeamsStandin()]);
    h = await startHarness({ database: db, standin });
    await h.server.app.orgs.setPlan(SYSTEM, 'acme', 'team', 10_000);
    await h.server.app.orgs.addWorkspace(SYSTEM, { name: 'Ops', org: 'acme' });
    await channel('random');
    await channel('secret', true);
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  it('refuses until the bot was added to a team of the connected tenant', async () => {
    const early = await refused({ workspace: 'eng', channel: 'general', teams: CHANNEL });
    expect(early).toMatchObject({ code: 'NOT_PERMITTED' });
    expect(early.message).toMatch(
      /Switchboard bot is not in the team of the Teams channel .*; add the Switchboard app to that team/,
    );
    // Added to the team, the bot learns where Teams serves the tenant.
    expect((await h.post(botAdded(standin, { scope: 'team' }))).status).toBe(200);
    await vi.waitFor(async () =>
      expect(await teamsRuntime(h.server.app.surfaceModules).references.serviceUrlOf(standin.userTenantId)).toBe(
        standin.serviceUrl,
      ),
    );
  });

  it('links #general to a Teams channel given by its link, and lists it', async () => {
    const link = `https://teams.microsoft.com/l/channel/${encodeURIComponent(CHANNEL)}/reviews?groupId=${TEAMS_DEFAULTS.teamAadGroupId}&tenantId=${standin.userTenantId}`;
    const reply = await run({ workspace: 'eng', channel: 'general', teams: link });
    expect(reply.error?.message).toBeUndefined();
    const [bridge] = reply.output!.data.bridges as Array<Record<string, unknown>>;
    expect(bridge).toMatchObject({
      channel: 'general',
      surface: 'teams',
      tenant_id: standin.userTenantId,
      external_channel_id: CHANNEL,
      allow_private: false,
    });
    expect(reply.output!.text).toContain(`Bridged #general with the Teams channel ${CHANNEL}`);
    // The bot's reach was checked by reading the channel's roster, with the bot's own token.
    expect(standin.delivered('getConversationMembers').some((c) => c.conversationId === CHANNEL)).toBe(true);
    const listed = await runCommand(h.server.app, 'bridge list', { workspace: 'eng' });
    expect(listed.output!.text).toContain(`#general ↔ Teams (${CHANNEL})`);
  });

  it('refuses a second bridge of the same channel, either way round', async () => {
    const again = await refused({ workspace: 'eng', channel: 'general', teams: ELSEWHERE });
    expect(again).toMatchObject({ code: 'CONFLICT' });
    expect(again.message).toMatch(/web channel is already bridged to a Teams channel/);
    expect((await refused({ workspace: 'eng', channel: 'random', teams: CHANNEL })).message).toMatch(
      /That Teams channel is already bridged to a web channel/,
    );
  });

  it('says why for an id that is not a channel, a tenant not connected, a team without the bot, and an unknown web channel', async () => {
    expect((await refused({ workspace: 'eng', channel: 'random', teams: 'general' })).message).toMatch(
      /Give the channel's id \(19:…@thread\.tacv2\)/,
    );
    expect((await refused({ workspace: 'ops', channel: 'general', teams: ELSEWHERE })).message).toMatch(
      /No Microsoft Teams tenant is connected to ops; run `switchboard teams connect ops --tenant-id …` first/,
    );
    standin.removeBot(ELSEWHERE);
    const notIn = await refused({ workspace: 'eng', channel: 'random', teams: ELSEWHERE });
    expect(notIn).toMatchObject({ code: 'NOT_PERMITTED' });
    expect(notIn.message).toMatch(/bot is not in the team of the Teams channel 19:0a1b/);
    expect((await refused({ workspace: 'eng', channel: 'nope', teams: CHANNEL })).message).toMatch(/#nope in eng/);
    expect((await runCommand(h.server.app, 'bridge list', { workspace: 'eng' })).output!.data.bridges).toHaveLength(1);
  });

  it('refuses a restricted channel unless the owner allows private content there', async () => {
    const third = '19:ffeeddccbbaa00998877665544332211@thread.tacv2';
    expect((await refused({ workspace: 'eng', channel: 'secret', teams: third })).message).toMatch(
      /#secret is a restricted channel.*--allow-private/,
    );
    const yes = await run({ workspace: 'eng', channel: 'secret', teams: third, allowPrivate: true });
    expect((yes.output?.data.bridges as Array<{ allow_private: boolean }>)[0].allow_private).toBe(true);
  });
});
