// A Teams channel or team deleted, or the app uninstalled from a team or a chat:
// signed conversationUpdate (eventType channelDeleted / teamDeleted) and
// installationUpdate (action remove) activities through the real CloudAdapter
// and the durable inbound job. The bridges to those channels go, a deleted
// channel's listeners with them, and their conversation references are
// forgotten, so no job posts there again; the messages already stored stay.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import { BRIDGE_POST } from '../../../src/core/bridges/mirror-out.ts';
import type { Viewer } from '../../../src/core/channels/access.ts';
import { teamsRuntime } from '../../../src/surfaces/teams/index.ts';
import { pgliteDb, postgresDb } from '../../support/db.ts';
import { botAdded, channelMessage, groupChatMessage, type TeamsActivity } from '../../support/teams/activities.ts';
import { TEAMS_DEFAULTS, threadConversationId } from '../../support/teams/defaults.ts';
import { startTeamsStandin, type TeamsStandin, type WireActivity } from '../../support/teams/standin.ts';
import { startHarness, type Harness } from '../../support/teams/harness.ts';
import { chatOf } from '../../../src/surfaces/web/index.ts';

const WAIT = { timeout: 20_000, interval: 50 };
const BOB = TEAMS_DEFAULTS.users.bob;
const TEAM = TEAMS_DEFAULTS.teamId;
const OTHER_TEAM = '19:OtherTeamStandinId0123456789abcdefABCDEF@thread.tacv2';
const OTHER_CHANNEL = '19:0ther0channel0of0the0other0team0aa@thread.tacv2';

describe('a Teams channel or team deleted, or the app uninstalled', () => {
  let db: Database;
  let standin: TeamsStandin;
  let h: Harness;
  let alice: Viewer;
  /** A reply chain in the other team's channel (the second test writes it). */
  let otherChain = '';
  const logLines: string[] = [];

  /** A conversationUpdate or installationUpdate in a team, as Teams sends it (in the team's General channel, naming the team). */
  const inTeam = (team: string, extra: Record<string, unknown>, channelData: Record<string, unknown>): WireActivity => {
    const { membersAdded: _bot, ...base } = botAdded(standin, { scope: 'team' });
    return {
      ...base,
      ...extra,
      conversation: { ...base.conversation, id: team },
      channelData: { team: { id: team, name: 'A team' }, tenant: { id: standin.userTenantId }, ...channelData },
    };
  };
  const post = async (activity: WireActivity | TeamsActivity) =>
    expect((await standin.postActivity(`${h.server.url}/api/messages`, activity)).status).toBe(200);
  /** Bob writes in a Teams channel; the bot keeps that reply chain's reference. */
  const written = async (channelId: string, teamId: string, text: string) => {
    const m = channelMessage(standin, { text, from: BOB, channelId, teamId });
    await post(m);
    const chain = threadConversationId(channelId, m.id);
    await vi.waitFor(
      async () => expect(await teamsRuntime(h.server.app.surfaceModules).references.get(chain)).not.toBeNull(),
      WAIT,
    );
    return chain;
  };
  /** Makes a web channel and bridges it to a Teams channel. */
  const bridged = async (name: string, channel: string) => {
    const web = await chatOf(h.server.app).chat.createChannel(alice, { name });
    await h.server.app.bridges.add(SYSTEM, { workspace: 'eng', channel: name, to: [{ surface: 'teams', channel }] });
    return web.conversationId;
  };
  const bridgeOf = (channel: string) => h.server.app.store.bridges.byExternal('teams', standin.userTenantId, channel);
  const listen = (channel: string) =>
    h.server.app.store.listening.add({
      workspaceId: h.workspace.id,
      surface: 'teams',
      channelId: channel,
      agentId: h.reviewer.id,
      addedBy: null,
    });
  const listenedTo = async () =>
    (await h.server.app.store.listening.listWorkspace(h.workspace.id)).map((l) => l.channelId);

  beforeAll(async () => {
    [db, standin] = await Promise.all([(postgresDb() ?? pgliteDb).open(), startTeamsStandin()]);
    h = await startHarness({ database: db, standin, logLines });
    await post(botAdded(standin, { scope: 'team' }));
    await vi.waitFor(
      async () =>
        expect(
          await teamsRuntime(h.server.app.surfaceModules).references.serviceUrlOf(standin.userTenantId),
        ).not.toBeNull(),
      WAIT,
    );
    alice = await chatOf(h.server.app).chat.viewer((await h.server.app.store.people.get('alice'))!.id, 'eng');
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  it('a deleted channel loses its bridge and its references; its messages stay and a new web message queues nothing for it', async () => {
    const { app } = h.server;
    const web = await bridged('reviews', TEAMS_DEFAULTS.channelId);
    const chain = await written(TEAMS_DEFAULTS.channelId, TEAM, 'Written before the channel went');
    const mirrored = await vi.waitFor(async () => {
      const m = (await chatOf(app).chat.history(alice, web)).messages.find(
        (x) => x.body === 'Written before the channel went',
      );
      if (!m) throw new Error('the Teams message is not in the web channel yet');
      return m;
    }, WAIT);
    const bridge = (await bridgeOf(TEAMS_DEFAULTS.channelId))!;
    await listen(TEAMS_DEFAULTS.channelId);

    await post(
      inTeam(
        TEAM,
        { type: 'conversationUpdate' },
        { eventType: 'channelDeleted', channel: { id: TEAMS_DEFAULTS.channelId, name: 'reviews' } },
      ),
    );
    // The listeners go last: waiting for them, the whole event was handled.
    await vi.waitFor(async () => expect(await listenedTo()).toEqual([]), WAIT);
    expect(await bridgeOf(TEAMS_DEFAULTS.channelId)).toBeNull();
    expect(await teamsRuntime(app.surfaceModules).references.get(chain)).toBeNull();
    // The team's General channel, where the event came, is still known.
    expect(await teamsRuntime(app.surfaceModules).references.get(TEAM)).not.toBeNull();
    expect((await chatOf(app).chat.history(alice, web)).messages.map((m) => m.id)).toContain(mirrored.id);
    expect((await chatOf(app).chat.history(alice, web)).conversation.channel?.bridges).toEqual([]);
    expect((await app.store.audit.list(h.workspace.id, 20)).find((e) => e.action === 'bridge.remove')).toMatchObject({
      target: web,
      details: { surface: 'teams', channel: TEAMS_DEFAULTS.channelId, reason: 'channelDeleted' },
    });
    expect(logLines.some((l) => l.includes('a Teams channel was deleted') && l.includes(bridge.id))).toBe(true);

    const later = await chatOf(app).chat.post(alice, web, 'Written after the channel went');
    const queued = await app.store.outbox.list({ topic: BRIDGE_POST });
    expect(queued.filter((e) => e.payload.messageId === later.message!.id)).toEqual([]);
  });

  it("a deleted team loses the bridges and references of every channel of it, General included; another team's stay", async () => {
    const { app } = h.server;
    const channel = '19:aSecondChannelOfTheTeam0123456789@thread.tacv2';
    await bridged('ops', channel);
    await bridged('announcements', TEAMS_DEFAULTS.generalChannelId);
    await bridged('partners', OTHER_CHANNEL);
    const chain = await written(channel, TEAM, 'In the team that goes');
    otherChain = await written(OTHER_CHANNEL, OTHER_TEAM, 'In the team that stays');
    await listen(channel);
    await listen(TEAMS_DEFAULTS.generalChannelId);
    await listen(OTHER_CHANNEL);

    await post(inTeam(TEAM, { type: 'conversationUpdate' }, { eventType: 'teamDeleted' }));
    await vi.waitFor(async () => expect(await listenedTo()).toEqual([OTHER_CHANNEL]), WAIT);
    expect(await bridgeOf(channel)).toBeNull();
    expect(await bridgeOf(TEAMS_DEFAULTS.generalChannelId)).toBeNull();
    expect(await teamsRuntime(app.surfaceModules).references.get(chain)).toBeNull();
    expect(await teamsRuntime(app.surfaceModules).references.get(TEAM)).toBeNull();
    expect(await bridgeOf(OTHER_CHANNEL)).not.toBeNull();
    expect(await teamsRuntime(app.surfaceModules).references.get(otherChain)).not.toBeNull();
    expect(logLines.some((l) => l.includes('a Teams team was deleted'))).toBe(true);
  });

  it("the app uninstalled from a team removes that team's bridges and references; uninstalled from a group chat, that chat is forgotten", async () => {
    const { app } = h.server;
    await post(groupChatMessage(standin, { text: 'help', from: BOB }));
    await vi.waitFor(
      async () =>
        expect(await teamsRuntime(app.surfaceModules).references.get(TEAMS_DEFAULTS.groupChatId)).not.toBeNull(),
      WAIT,
    );

    await post(inTeam(OTHER_TEAM, { type: 'installationUpdate', action: 'remove' }, { source: { name: 'message' } }));
    await vi.waitFor(async () => expect(await bridgeOf(OTHER_CHANNEL)).toBeNull(), WAIT);
    expect(await teamsRuntime(app.surfaceModules).references.get(otherChain)).toBeNull();
    expect(await teamsRuntime(app.surfaceModules).references.get(TEAMS_DEFAULTS.groupChatId)).not.toBeNull();

    const { membersAdded: _bot, ...inChat } = botAdded(standin, { scope: 'groupChat' });
    await post({ ...inChat, type: 'installationUpdate', action: 'remove' });
    await vi.waitFor(
      async () => expect(await teamsRuntime(app.surfaceModules).references.get(TEAMS_DEFAULTS.groupChatId)).toBeNull(),
      WAIT,
    );
    expect(logLines.some((l) => l.includes('the Switchboard app was uninstalled'))).toBe(true);
  });
});
