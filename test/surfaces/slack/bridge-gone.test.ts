// A bridged Slack channel that is gone without Switchboard hearing of it (the
// event was missed, or the channel went while the app was away): the first web
// message posted there, or the first edit, delete or reaction of a message mirrored
// before, is refused (channel_not_found, is_archived) and the bridge removes itself,
// audited with what Slack answered, the web header redrawn; the channel's listeners stay.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import { BRIDGE_CHANGE, BRIDGE_POST } from '../../../src/core/bridges/mirror-out.ts';
import { BRIDGE_REACT } from '../../../src/core/bridges/mirror-reactions.ts';
import type { Viewer } from '../../../src/core/channels/access.ts';
import { chatWorkspaceTopic } from '../../../src/core/channels/changes.ts';
import { pgliteDb, postgresDb } from '../../support/db.ts';
import { SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import { startHarness, type Harness } from '../../support/slack/harness.ts';
import { chatOf } from '../../../src/surfaces/web/index.ts';

const WAIT = { timeout: 20_000, interval: 50 };
const TEAM = SLACK_DEFAULTS.teamId;
const BOT = SLACK_DEFAULTS.botUserId;

describe('a bridged Slack channel that is gone', () => {
  let db: Database;
  let standin: SlackStandin;
  let h: Harness;
  let alice: Viewer;

  beforeAll(async () => {
    [db, standin] = await Promise.all([(postgresDb() ?? pgliteDb).open(), startSlackStandin()]);
    h = await startHarness({ database: db, standin, seed: true });
    alice = await chatOf(h.server.app).chat.viewer((await h.server.app.store.people.get('alice'))!.id, 'eng');
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  /** Lets alice/reviewer listen to the Slack channel. */
  const listen = (channel: string) =>
    h.server.app.store.listening.add({
      workspaceId: h.workspace.id,
      surface: 'slack',
      channelId: channel,
      agentId: h.reviewer.id,
      addedBy: null,
    });
  const listeners = (channel: string) =>
    h.server.app.store.listening.list(h.workspace.id, { surface: 'slack', channelId: channel });

  /**
   * What follows a bridge removed by a refused job: the job recorded failed once (after its handler removed the
   * bridge and told the header), the channel's listeners kept (listening is the agents' setting: a refusal cannot tell
   * a deleted channel from the app taken out), and the web channel's next message queues nothing for it.
   */
  const afterTheBridgeWent = async (topic: string, messageId: string, channel: string, web: string) => {
    const { app } = h.server;
    await vi.waitFor(async () => {
      const job = (await app.store.outbox.list({ topic })).find((e) => e.payload.messageId === messageId);
      expect(job).toMatchObject({ status: 'failed', attempts: 1 });
    }, WAIT);
    expect(await listeners(channel)).toHaveLength(1);
    const later = await chatOf(app).chat.post(alice, web, 'After the bridge went');
    expect(
      (await app.store.outbox.list({ topic: BRIDGE_POST })).filter((e) => e.payload.messageId === later.message!.id),
    ).toEqual([]);
  };

  it.each([
    ['channel_not_found', 'C0GONE001', 'the channel no longer exists'],
    ['is_archived', 'C0ARCHIVD', 'the channel is archived'],
  ])(
    'Slack answering %s to a mirrored web message removes the bridge, audited with the answer',
    async (error, channel, said) => {
      const { app } = h.server;
      standin.setChannelMembers(channel, [BOT]);
      const web = await chatOf(app).chat.createChannel(alice, { name: `web-${channel.toLowerCase()}` });
      await app.bridges.add(SYSTEM, {
        workspace: 'eng',
        channel: `web-${channel.toLowerCase()}`,
        to: [{ surface: 'slack', channel }],
      });
      const headers: string[] = [];
      const unsubscribe = await app.notifier.subscribe(chatWorkspaceTopic(h.workspace.id), (note) => {
        headers.push(note);
      });
      await listen(channel);

      standin.failNext('chat.postMessage', { error });
      const sent = await chatOf(app).chat.post(alice, web.conversationId, 'Into a channel that is gone');
      await vi.waitFor(async () => expect(await app.store.bridges.byExternal('slack', TEAM, channel)).toBeNull(), WAIT);
      expect((await chatOf(app).chat.history(alice, web.conversationId)).conversation.channel?.bridges).toEqual([]);
      expect(
        (await app.store.audit.list(h.workspace.id, 50)).find(
          (e) => e.action === 'bridge.remove' && e.details?.channel === channel,
        ),
      ).toMatchObject({
        target: web.conversationId,
        details: {
          surface: 'slack',
          reason: expect.stringMatching(new RegExp(`^postRefused: ${said}.*\\(${error}\\)`)),
        },
      });
      await vi.waitFor(() => expect(headers).toContain(`settings:${web.conversationId}`), WAIT);
      await afterTheBridgeWent(BRIDGE_POST, sent.message!.id, channel, web.conversationId);
      await unsubscribe();
    },
  );

  it.each([
    ['an edit', 'chat.update', 'channel_not_found', 'C0EDITGON', 'editRefused'],
    ['a delete', 'chat.delete', 'is_archived', 'C0DELEGON', 'deleteRefused'],
    ['a reaction', 'reactions.add', 'channel_not_found', 'C0REACTGN', 'reactionRefused'],
  ])(
    'Slack refusing %s of a mirrored web message (%s: %s) removes the bridge, audited, and leaves its listeners',
    async (_what, method, error, channel, refused) => {
      const { app } = h.server;
      standin.setChannelMembers(channel, [BOT]);
      const name = `web-${channel.toLowerCase()}`;
      const web = await chatOf(app).chat.createChannel(alice, { name });
      await app.bridges.add(SYSTEM, { workspace: 'eng', channel: name, to: [{ surface: 'slack', channel }] });
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

      standin.failNext(method, { error });
      const topic = method === 'reactions.add' ? BRIDGE_REACT : BRIDGE_CHANGE;
      if (method === 'chat.update') await chatOf(app).chat.edit(alice, id, 'Changed after the channel went');
      else if (method === 'chat.delete') await chatOf(app).chat.remove(alice, id);
      else await chatOf(app).chat.reactions.set(alice, id, 'thumbsup', true);
      await vi.waitFor(async () => expect(await app.store.bridges.byExternal('slack', TEAM, channel)).toBeNull(), WAIT);
      expect((await chatOf(app).chat.history(alice, web.conversationId)).conversation.channel?.bridges).toEqual([]);
      expect(
        (await app.store.audit.list(h.workspace.id, 50)).find(
          (e) => e.action === 'bridge.remove' && e.details?.channel === channel,
        ),
      ).toMatchObject({
        target: web.conversationId,
        details: { surface: 'slack', reason: expect.stringMatching(new RegExp(`^${refused}: .*\\(${error}\\)`)) },
      });
      await vi.waitFor(() => expect(headers).toContain(`settings:${web.conversationId}`), WAIT);
      await afterTheBridgeWent(topic, id, channel, web.conversationId);
      await unsubscribe();
    },
  );

  it('a refusal that does not say the channel is gone (not_in_channel) leaves the bridge and its listeners', async () => {
    const { app } = h.server;
    standin.setChannelMembers('C0STAYS01', [BOT]);
    const web = await chatOf(app).chat.createChannel(alice, { name: 'stays' });
    await app.bridges.add(SYSTEM, {
      workspace: 'eng',
      channel: 'stays',
      to: [{ surface: 'slack', channel: 'C0STAYS01' }],
    });
    await listen('C0STAYS01');
    standin.failNext('chat.postMessage', { error: 'not_in_channel' });
    const sent = await chatOf(app).chat.post(alice, web.conversationId, 'Refused for another reason');
    await vi.waitFor(async () => {
      const job = (await app.store.outbox.list({ topic: BRIDGE_POST })).find(
        (e) => e.payload.messageId === sent.message!.id,
      );
      expect(job?.status).toBe('failed');
    }, WAIT);
    expect(await app.store.bridges.byExternal('slack', TEAM, 'C0STAYS01')).not.toBeNull();
    expect(await listeners('C0STAYS01')).toHaveLength(1);
  });
});
