// Who reads a Teams channel, as the audience rules count it: the members read
// from the Bot Connector are kept for an hour, and Teams' team-level
// conversationUpdate events (teamMemberAdded / teamMemberRemoved, which name
// the team, the General channel's id, and no channel) must reach every
// channel of the team, not only General. Through the real CloudAdapter, on
// real PostgreSQL when available.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import { pgliteDb, postgresDb } from '../../support/db.ts';
import { botAdded, type TeamsActivity, type WireAccount } from '../../support/teams/activities.ts';
import { botAccountId, TEAMS_DEFAULTS, type TeamsUserSeed } from '../../support/teams/defaults.ts';
import { startTeamsStandin, type TeamsStandin } from '../../support/teams/standin.ts';
import { mentionAndReceive, startHarness, type Harness } from '../../support/teams/harness.ts';

const WAIT = { timeout: 20_000, interval: 50 };
const database = postgresDb() ?? pgliteDb;
const { alice, bob } = TEAMS_DEFAULTS.users;
/** A newcomer to the team who never linked an account. */
const carol: TeamsUserSeed = {
  id: '29:1CarolStandinUserIdPq4Zx7Lm2Nv8Bw5Kt3Rh6Yd9Jc1Gf0Se',
  name: 'Carol Diaz',
  aadObjectId: 'ca401000-2e4f-4a6b-8c9d-0e1f2a3b4c63',
  email: 'carol@switchboard.test',
  givenName: 'Carol',
  surname: 'Diaz',
};
/** The reviews channel: not General, so its id is not the team's. */
const CHANNEL = TEAMS_DEFAULTS.channelId;

/**
 * The conversationUpdate Teams sends when people join or leave a team (or the bot is removed from it):
 * the conversation is the team, channelData names the team and the event, and no channel.
 */
function teamMembersChanged(standin: TeamsStandin, change: 'added' | 'removed', members: WireAccount[]): TeamsActivity {
  const { membersAdded: _added, ...base } = botAdded(standin, { scope: 'team' });
  const team = { id: TEAMS_DEFAULTS.teamId, name: TEAMS_DEFAULTS.teamName, aadGroupId: TEAMS_DEFAULTS.teamAadGroupId };
  return {
    ...base,
    channelData: {
      team,
      eventType: change === 'added' ? 'teamMemberAdded' : 'teamMemberRemoved',
      tenant: { id: standin.userTenantId },
    },
    ...(change === 'added' ? { membersAdded: members } : { membersRemoved: members }),
  };
}

describe(`the audience of a Teams channel (${database.kind})`, () => {
  let db: Database;
  let standin: TeamsStandin;
  let h: Harness;
  let conversationId: string;

  const cached = (tenant: string, channel: string, surface: 'teams' | 'slack' = 'teams') =>
    h.server.app.store.audiences.channelMembers(surface, tenant, channel);
  const audience = async () => {
    const { app } = h.server;
    return app.audiences.of(h.workspace, (await app.store.messages.getConversation(h.workspace.id, conversationId))!);
  };
  const rosterReads = () =>
    standin.delivered('getConversationMembers').filter((c) => c.conversationId === CHANNEL).length;

  beforeAll(async () => {
    [db, standin] = await Promise.all([database.open(), startTeamsStandin()]);
    h = await startHarness({ database: db, standin });
    await h.server.app.orgs.addPerson(SYSTEM, { handle: 'bob', org: 'acme', displayName: 'Bob' });
    await h.link(alice, 'alice');
    await h.link(bob, 'bob');
    standin.setMembers(CHANNEL, [alice, bob]);
    conversationId = (await mentionAndReceive(h, standin)).item.conversation.id;
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  it('counts a newcomer to the team in every channel of the team at once, not only in General', async () => {
    expect(await audience()).toMatchObject({ members: 2, unlinked: 0 });
    expect((await cached(standin.userTenantId, CHANNEL))?.userIds).toEqual(
      expect.arrayContaining([alice.aadObjectId, bob.aadObjectId]),
    );
    const reads = rosterReads();

    standin.setMembers(CHANNEL, [alice, bob, carol]);
    expect(
      (
        await h.post(
          teamMembersChanged(standin, 'added', [{ id: carol.id, name: carol.name, aadObjectId: carol.aadObjectId }]),
        )
      ).status,
    ).toBe(200);
    // The channel's copy is dropped, so its next use reads the roster again: Carol, unlinked, is counted.
    await vi.waitFor(async () => expect(await audience()).toMatchObject({ members: 3, unlinked: 1 }), WAIT);
    expect(rosterReads()).toBe(reads + 1);
  });

  it("forgets every channel's members when the bot is removed from the team, and no other tenant's or surface's", async () => {
    const { store } = h.server.app;
    await audience();
    expect(await cached(standin.userTenantId, CHANNEL)).not.toBeNull();
    await store.audiences.putChannelMembers('teams', 'other-tenant', CHANNEL, ['someone-else'], new Date());
    await store.audiences.putChannelMembers('slack', standin.userTenantId, 'C0KEPT', ['U0KEPT'], new Date());

    expect((await h.post(teamMembersChanged(standin, 'removed', [{ id: botAccountId(standin.appId) }]))).status).toBe(
      200,
    );
    await vi.waitFor(async () => expect(await cached(standin.userTenantId, CHANNEL)).toBeNull(), WAIT);
    expect((await cached('other-tenant', CHANNEL))?.userIds).toEqual(['someone-else']);
    expect((await cached(standin.userTenantId, 'C0KEPT', 'slack'))?.userIds).toEqual(['U0KEPT']);
  });
});
