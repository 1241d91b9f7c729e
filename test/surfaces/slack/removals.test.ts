// A Slack channel deleted or archived, or the app uninstalled from the team:
// signed events (channel_deleted, group_deleted, channel_archive,
// group_archive, tokens_revoked, app_uninstalled) through the real Slack mount
// and the durable inbound job, against the Web API stand-in. A gone channel
// loses its bridge and its listeners; an uninstalled team loses its install
// (the sealed bot token with it) and its bridges, and a reply still queued for
// it fails for good at once, saying how to connect the team again.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { slackRuntime } from '../../../src/app-surfaces.ts';
import { connectSlackTeam } from '../../../src/surfaces/slack/index.ts';
import { SLACK_INBOUND, SLACK_POST } from '../../../src/surfaces/slack/topics.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import { BRIDGE_POST } from '../../../src/core/bridges/mirror-out.ts';
import type { Viewer } from '../../../src/core/channels/access.ts';
import { pgliteDb, postgresDb } from '../../support/db.ts';
import { SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { eventCallback } from '../../support/slack/signed-request.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import { mentionAndReceive, startHarness, type Harness } from '../../support/slack/harness.ts';
import { chatOf } from '../../../src/surfaces/web/index.ts';

const WAIT = { timeout: 20_000, interval: 50 };
const TEAM = SLACK_DEFAULTS.teamId;
const BOT = SLACK_DEFAULTS.botUserId;
const CAROL = 'U0CAROL01';

describe('a Slack channel deleted or archived, or the app uninstalled', () => {
  let db: Database;
  let standin: SlackStandin;
  let h: Harness;
  let alice: Viewer;
  const logLines: string[] = [];

  /** Makes a web channel and bridges it to a Slack channel the app is in. */
  const bridged = async (name: string, channel: string) => {
    standin.setChannelMembers(channel, [BOT, CAROL]);
    const web = await chatOf(h.server.app).chat.createChannel(alice, { name });
    await h.server.app.bridges.add(SYSTEM, { workspace: 'eng', channel: name, to: [{ surface: 'slack', channel }] });
    return web.conversationId;
  };
  const bridgeOf = (channel: string) => h.server.app.store.bridges.byExternal('slack', TEAM, channel);
  const listen = (channel: string) =>
    h.server.app.store.listening.add({
      workspaceId: h.workspace.id,
      surface: 'slack',
      channelId: channel,
      agentId: h.reviewer.id,
      addedBy: null,
    });
  const listenedTo = async () =>
    (await h.server.app.store.listening.listWorkspace(h.workspace.id)).map((l) => l.channelId);
  const send = async (event: { type: string; [field: string]: unknown }, options: { eventTime?: number } = {}) =>
    expect((await h.post(eventCallback(event, options))).status).toBe(200);

  beforeAll(async () => {
    [db, standin] = await Promise.all([(postgresDb() ?? pgliteDb).open(), startSlackStandin()]);
    h = await startHarness({ database: db, standin, seed: true, logLines });
    alice = await chatOf(h.server.app).chat.viewer((await h.server.app.store.people.get('alice'))!.id, 'eng');
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  it('a deleted channel loses its bridge and its listeners; its messages stay and a new web message queues nothing for it', async () => {
    const { app } = h.server;
    const web = await bridged('reviews', 'C0DELETED');
    await listen('C0DELETED');
    await listen('C0STAYS');
    const before = await chatOf(app).chat.post(alice, web, 'Written before the channel went');

    await send({ type: 'channel_deleted', channel: 'C0DELETED' });
    // The listeners go after the bridge: waiting for them, the whole event was handled.
    await vi.waitFor(async () => expect(await listenedTo()).toEqual(['C0STAYS']), WAIT);
    expect(await bridgeOf('C0DELETED')).toBeNull();
    expect((await chatOf(app).chat.history(alice, web)).messages.map((m) => m.id)).toContain(before.message!.id);
    expect((await chatOf(app).chat.history(alice, web)).conversation.channel?.bridges).toEqual([]);
    expect((await app.store.audit.list(h.workspace.id, 20)).find((e) => e.action === 'bridge.remove')).toMatchObject({
      target: web,
      details: { surface: 'slack', channel: 'C0DELETED', reason: 'channelDeleted' },
    });
    expect(logLines.some((l) => l.includes('a Slack channel was deleted') && l.includes('"listenersRemoved":1'))).toBe(
      true,
    );

    const later = await chatOf(app).chat.post(alice, web, 'Written after the channel went');
    expect(
      (await app.store.outbox.list({ topic: BRIDGE_POST })).filter((e) => e.payload.messageId === later.message!.id),
    ).toEqual([]);
  });

  it.each([
    ['group_deleted', 'G0PRIVDEL', 'channelDeleted'],
    ['channel_archive', 'C0ARCHIVED', 'channelArchived'],
    ['group_archive', 'G0PRIVARC', 'channelArchived'],
  ])('%s removes the bridge and the listeners of that channel only', async (type, channel, reason) => {
    await bridged(`web-${channel.toLowerCase()}`, channel);
    await listen(channel);
    await send({ type, channel, ...(type.endsWith('archive') ? { user: CAROL } : {}) });
    await vi.waitFor(async () => expect(await listenedTo()).toEqual(['C0STAYS']), WAIT);
    expect(await bridgeOf(channel)).toBeNull();
    expect(
      (await h.server.app.store.audit.list(h.workspace.id, 50)).find(
        (e) => e.action === 'bridge.remove' && e.details?.channel === channel,
      ),
    ).toMatchObject({ details: { reason } });
  });

  it("tokens_revoked naming only people's tokens changes nothing; naming the bot's, the team is disconnected", async () => {
    const { app } = h.server;
    await bridged('ops', 'C0OPS');
    await send({ type: 'tokens_revoked', tokens: { oauth: [CAROL] } });
    await vi.waitFor(async () => {
      const open = (await app.store.outbox.list({ topic: SLACK_INBOUND })).filter((e) => e.status !== 'done');
      if (open.length) throw new Error('the event is not handled yet');
    }, WAIT);
    expect(await slackRuntime(app).installations.repo.get(TEAM)).not.toBeNull();
    expect(await bridgeOf('C0OPS')).not.toBeNull();

    await send({ type: 'tokens_revoked', tokens: { bot: [BOT] } });
    await vi.waitFor(async () => expect(await slackRuntime(app).installations.repo.get(TEAM)).toBeNull(), WAIT);
    await vi.waitFor(async () => expect(await bridgeOf('C0OPS')).toBeNull(), WAIT);
    // Connected again, as the README says, it works as before.
    await connectSlackTeam(slackRuntime(app), { workspace: 'eng', teamId: TEAM, botToken: standin.botToken });
  });

  it('the repository deletes an install only when it was made or last updated before the time given', async () => {
    const repo = slackRuntime(h.server.app).installations.repo;
    const { updatedAt } = (await repo.get(TEAM))!;
    expect(await repo.remove(TEAM, updatedAt)).toBe(false);
    expect(await repo.get(TEAM)).not.toBeNull();
    expect(await repo.remove(TEAM, new Date(updatedAt.getTime() + 1))).toBe(true);
    expect(await repo.get(TEAM)).toBeNull();
    // Absent already: nothing newer stays.
    expect(await repo.remove(TEAM, updatedAt)).toBe(true);
    await connectSlackTeam(slackRuntime(h.server.app), { workspace: 'eng', teamId: TEAM, botToken: standin.botToken });
  });

  it('an uninstall handled after the team was connected again (a late or retried job) leaves the new install and its bridges; one from after the reconnect removes them', async () => {
    const { app } = h.server;
    const reconnected = Math.floor(Date.now() / 1000);
    await connectSlackTeam(slackRuntime(app), { workspace: 'eng', teamId: TEAM, botToken: standin.botToken });
    await bridged('releases', 'C0RELEASE');

    await send({ type: 'app_uninstalled' }, { eventTime: reconnected - 60 });
    await send({ type: 'tokens_revoked', tokens: { bot: [BOT] } }, { eventTime: reconnected - 30 });
    await vi.waitFor(async () => {
      const open = (await app.store.outbox.list({ topic: SLACK_INBOUND })).filter((e) => e.status !== 'done');
      if (open.length) throw new Error('the events are not handled yet');
    }, WAIT);
    expect(await slackRuntime(app).installations.repo.sealedToken(TEAM)).not.toBeNull();
    expect(logLines.filter((l) => l.includes('the new install is kept'))).toHaveLength(2);
    expect(await app.store.tenants.workspaceOf('slack', TEAM)).toBe(h.workspace.id);
    expect(await bridgeOf('C0RELEASE')).not.toBeNull();

    await send({ type: 'app_uninstalled' }, { eventTime: Math.floor(Date.now() / 1000) });
    await vi.waitFor(async () => expect(await slackRuntime(app).installations.repo.get(TEAM)).toBeNull(), WAIT);
    expect(await app.store.tenants.workspaceOf('slack', TEAM)).toBeNull();
    await vi.waitFor(async () => expect(await bridgeOf('C0RELEASE')).toBeNull(), WAIT);
    await connectSlackTeam(slackRuntime(app), { workspace: 'eng', teamId: TEAM, botToken: standin.botToken });
  });

  it("app_uninstalled forgets the install and its sealed token, removes the team's bridges, and a reply queued for it fails for good saying how to reconnect", async () => {
    const { app } = h.server;
    const { item } = await mentionAndReceive(h);
    await bridged('deploys', 'C0DEPLOYS');
    expect(await slackRuntime(app).installations.repo.sealedToken(TEAM)).not.toBeNull();

    // Slack revokes the token as it sends the event.
    standin.revokeToken(standin.botToken);
    await send({ type: 'app_uninstalled' });
    await vi.waitFor(async () => expect(await slackRuntime(app).installations.repo.get(TEAM)).toBeNull(), WAIT);
    expect(await slackRuntime(app).installations.repo.sealedToken(TEAM)).toBeNull();
    expect(await app.store.tenants.workspaceOf('slack', TEAM)).toBeNull();
    // The job removes the bridges after the install: wait for them (each goes with its audit entry).
    await vi.waitFor(async () => expect(await bridgeOf('C0DEPLOYS')).toBeNull(), WAIT);
    expect(
      (await app.store.audit.list(h.workspace.id, 50)).find(
        (e) => e.action === 'bridge.remove' && e.details?.channel === 'C0DEPLOYS',
      ),
    ).toMatchObject({ details: { reason: 'uninstalled' } });

    const postsBefore = standin.callsTo('chat.postMessage').length;
    const sent = await app.messaging.send({
      workspace: h.workspace,
      sender: h.reviewer,
      conversationId: item.conversation.id,
      body: 'An answer after the uninstall',
    });
    const failed = await vi.waitFor(async () => {
      const entry = (await app.store.outbox.list({ topic: SLACK_POST, status: 'failed' })).find(
        (e) => e.payload.messageId === sent.message!.id,
      );
      if (!entry) throw new Error('the post has not failed yet');
      return entry;
    }, WAIT);
    expect(failed.attempts).toBe(1);
    expect(failed.lastError).toContain('not_installed');
    expect(failed.lastError).toContain('the app was uninstalled');
    expect(failed.lastError).toContain(`switchboard slack connect WORKSPACE --team-id ${TEAM}`);
    expect(standin.callsTo('chat.postMessage')).toHaveLength(postsBefore);
    // tokens_revoked, the uninstall after a reconnect, and this one.
    expect(logLines.filter((l) => l.includes('uninstalled from a Slack team'))).toHaveLength(3);
  });
});
