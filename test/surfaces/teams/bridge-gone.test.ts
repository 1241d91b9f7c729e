// A bridged Teams channel that is gone without Switchboard hearing of it (a web
// bridge to a channel the bot never got anything in, so a team's deletion could
// not name it): the first web message posted there, or the first edit or delete
// of a message mirrored before, is refused (404 ConversationNotFound, 403
// BotNotInConversationRoster) and the bridge removes itself, audited with what
// Teams answered, the web header redrawn; the channel's listeners stay. Bot
// Connector calls go to the stand-in, which checks the bot's JWT.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import { BRIDGE_CHANGE, BRIDGE_POST } from '../../../src/core/bridges/mirror-out.ts';
import type { Viewer } from '../../../src/core/channels/access.ts';
import { chatWorkspaceTopic } from '../../../src/core/channels/changes.ts';
import { teamsRuntime } from '../../../src/surfaces/teams/index.ts';
import { pgliteDb, postgresDb } from '../../support/db.ts';
import { botAdded } from '../../support/teams/activities.ts';
import { startTeamsStandin, type TeamsStandin } from '../../support/teams/standin.ts';
import { startHarness, type Harness } from '../../support/teams/harness.ts';
import { chatOf } from '../../../src/surfaces/web/index.ts';

const WAIT = { timeout: 20_000, interval: 50 };
const TEAM = '19:ATeamTheBotHeardNothingFrom0123456789@thread.tacv2';

describe('a bridged Teams channel that is gone', () => {
  let db: Database;
  let standin: TeamsStandin;
  let h: Harness;
  let alice: Viewer;

  beforeAll(async () => {
    [db, standin] = await Promise.all([(postgresDb() ?? pgliteDb).open(), startTeamsStandin()]);
    h = await startHarness({ database: db, standin });
    expect(
      (await standin.postActivity(`${h.server.url}/api/messages`, botAdded(standin, { scope: 'team' }))).status,
    ).toBe(200);
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

  /** Lets alice/reviewer listen to the Teams channel. */
  const listen = (channel: string) =>
    h.server.app.store.listening.add({
      workspaceId: h.workspace.id,
      surface: 'teams',
      channelId: channel,
      agentId: h.reviewer.id,
      addedBy: null,
    });
  const listeners = (channel: string) =>
    h.server.app.store.listening.list(h.workspace.id, { surface: 'teams', channelId: channel });

  it.each([
    ['404 ConversationNotFound', '19:aDeletedChannel0000000000000000000@thread.tacv2', 'ConversationNotFound'],
    [
      '403 BotNotInConversationRoster',
      '19:aChannelTheAppWasTakenOutOf00000@thread.tacv2',
      'BotNotInConversationRoster',
    ],
  ])(
    'Teams answering %s to a mirrored web message removes the bridge, audited with the answer',
    async (_answer, channel, code) => {
      const { app } = h.server;
      const name = `web-${code.toLowerCase()}`;
      const web = await chatOf(app).chat.createChannel(alice, { name });
      await app.bridges.add(SYSTEM, { workspace: 'eng', channel: name, to: [{ surface: 'teams', channel }] });
      const headers: string[] = [];
      const unsubscribe = await app.notifier.subscribe(chatWorkspaceTopic(h.workspace.id), (note) => {
        headers.push(note);
      });
      await listen(channel);

      if (code === 'ConversationNotFound') standin.failNext('sendToConversation', { status: 404, code });
      else standin.removeBot(channel);
      const sent = await chatOf(app).chat.post(alice, web.conversationId, 'Into a channel that is gone');
      await vi.waitFor(
        async () => expect(await app.store.bridges.byExternal('teams', standin.userTenantId, channel)).toBeNull(),
        WAIT,
      );
      expect((await chatOf(app).chat.history(alice, web.conversationId)).conversation.channel?.bridges).toEqual([]);
      expect(
        (await app.store.audit.list(h.workspace.id, 50)).find(
          (e) => e.action === 'bridge.remove' && e.details?.channel === channel,
        ),
      ).toMatchObject({
        target: web.conversationId,
        details: { surface: 'teams', reason: expect.stringMatching(new RegExp(`^postRefused: .*${code}`)) },
      });
      await vi.waitFor(() => expect(headers).toContain(`settings:${web.conversationId}`), WAIT);
      // The job's outcome is recorded after its handler removed the bridge (and told the header): wait for it.
      await vi.waitFor(
        async () =>
          expect(
            (await app.store.outbox.list({ topic: BRIDGE_POST })).find((e) => e.payload.messageId === sent.message!.id),
          ).toMatchObject({ status: 'failed', attempts: 1 }),
        WAIT,
      );
      // Listening is the agents' setting: a refusal cannot tell a deleted channel from the app taken out, so it stays.
      expect(await listeners(channel)).toHaveLength(1);
      const later = await chatOf(app).chat.post(alice, web.conversationId, 'After the bridge went');
      expect(
        (await app.store.outbox.list({ topic: BRIDGE_POST })).filter((e) => e.payload.messageId === later.message!.id),
      ).toEqual([]);
      await unsubscribe();
    },
  );

  it.each([
    [
      'an edit',
      '404 ConversationNotFound',
      '19:aChannelDeletedBeforeAnEdit000000@thread.tacv2',
      'ConversationNotFound',
    ],
    [
      'a delete',
      '403 BotNotInConversationRoster',
      '19:aChannelLeftBeforeADelete0000000@thread.tacv2',
      'BotNotInConversationRoster',
    ],
  ])(
    'Teams refusing %s of a mirrored web message (%s) removes the bridge, audited, and leaves its listeners',
    async (what, _answer, channel, code) => {
      const { app } = h.server;
      const name = `web-${what === 'an edit' ? 'edit' : 'delete'}-${code.toLowerCase()}`;
      const web = await chatOf(app).chat.createChannel(alice, { name });
      await app.bridges.add(SYSTEM, { workspace: 'eng', channel: name, to: [{ surface: 'teams', channel }] });
      await listen(channel);
      const headers: string[] = [];
      const unsubscribe = await app.notifier.subscribe(chatWorkspaceTopic(h.workspace.id), (note) => {
        headers.push(note);
      });
      // Mirrored while the channel was there.
      const id = (await chatOf(app).chat.post(alice, web.conversationId, 'Mirrored before the channel went')).message!
        .id;
      await vi.waitFor(
        async () => expect((await app.store.bridges.counterparts(id))[0]?.externalId).toBeTruthy(),
        WAIT,
      );

      if (code === 'ConversationNotFound') standin.failNext('updateActivity', { status: 404, code });
      else standin.removeBot(channel);
      if (what === 'an edit') await chatOf(app).chat.edit(alice, id, 'Changed after the channel went');
      else await chatOf(app).chat.remove(alice, id);
      await vi.waitFor(
        async () => expect(await app.store.bridges.byExternal('teams', standin.userTenantId, channel)).toBeNull(),
        WAIT,
      );
      expect((await chatOf(app).chat.history(alice, web.conversationId)).conversation.channel?.bridges).toEqual([]);
      expect(
        (await app.store.audit.list(h.workspace.id, 50)).find(
          (e) => e.action === 'bridge.remove' && e.details?.channel === channel,
        ),
      ).toMatchObject({
        target: web.conversationId,
        details: {
          surface: 'teams',
          reason: expect.stringMatching(
            new RegExp(`^${what === 'an edit' ? 'editRefused' : 'deleteRefused'}: .*${code}`),
          ),
        },
      });
      await vi.waitFor(() => expect(headers).toContain(`settings:${web.conversationId}`), WAIT);
      await vi.waitFor(
        async () =>
          expect(
            (await app.store.outbox.list({ topic: BRIDGE_CHANGE })).find((e) => e.payload.messageId === id),
          ).toMatchObject({ status: 'failed', attempts: 1 }),
        WAIT,
      );
      // Listening is the agents' setting: a refusal cannot tell a deleted channel from the app taken out, so it stays.
      expect(await listeners(channel)).toHaveLength(1);
      const later = await chatOf(app).chat.post(alice, web.conversationId, 'After the bridge went');
      expect(
        (await app.store.outbox.list({ topic: BRIDGE_POST })).filter((e) => e.payload.messageId === later.message!.id),
      ).toEqual([]);
      await unsubscribe();
    },
  );

  it("a reference stored again from an activity that does not name the team keeps its team, so the team's deletion still finds it", async () => {
    const teamsReferences = teamsRuntime(h.server.app.surfaceModules).references;
    const conversationId = '19:aChannelOfTheTeam000000000000000000@thread.tacv2';
    const base = {
      conversationId,
      tenantId: standin.userTenantId,
      conversationType: 'channel',
      reference: { serviceUrl: standin.serviceUrl },
    };
    await teamsReferences.put({ ...base, teamId: TEAM });
    await teamsReferences.put({ ...base, reference: { ...base.reference, activityId: '2' } });
    expect(await teamsReferences.get(conversationId)).toMatchObject({ teamId: TEAM, activityId: '2' });
    expect(await teamsReferences.forget(standin.userTenantId, { team: TEAM })).toEqual([conversationId]);
  });
});
