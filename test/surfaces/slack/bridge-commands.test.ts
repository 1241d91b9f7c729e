// `switchboard bridge add|list|remove` against the Slack stand-in, on real
// PostgreSQL when TEST_DATABASE_URL is set (PGlite otherwise): what is checked
// before a web channel is linked to a Slack channel, and who may do it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { runCommand } from '../../../src/cli/control.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import { pgliteDb, postgresDb } from '../../support/db.ts';
import { SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import { startHarness, type Harness } from '../../support/slack/harness.ts';

const BOT = SLACK_DEFAULTS.botUserId;

describe('bridge commands', () => {
  let db: Database;
  let standin: SlackStandin;
  let h: Harness;
  const run = (name: string, args: Record<string, unknown>) => runCommand(h.server.app, name, args);
  const ok = async (name: string, args: Record<string, unknown>) => {
    const reply = await run(name, args);
    expect(reply.error, `${name}: ${reply.error?.message}`).toBeUndefined();
    return reply.output!;
  };
  const refused = async (name: string, args: Record<string, unknown>) => {
    const reply = await run(name, args);
    expect(reply.ok).toBe(false);
    return reply.error!;
  };

  beforeAll(async () => {
    [db, standin] = await Promise.all([(postgresDb() ?? pgliteDb).open(), startSlackStandin()]);
    standin.setChannelMembers('C0BRIDGED', [BOT, 'U0CAROL01']);
    standin.setChannelMembers('C0OTHER', [BOT]);
    standin.setChannelMembers('C0NOTME', ['U0CAROL01']);
    standin.handle('conversations.info', ({ args }) => ({
      ok: true,
      channel: { id: args.channel, name: args.channel === 'C0BRIDGED' ? 'eng-chat' : 'other' },
    }));
    h = await startHarness({ database: db, standin, seed: true });
    await h.server.app.orgs.addPerson(SYSTEM, { handle: 'bob', org: 'acme' });
    await h.server.app.orgs.addWorkspaceMember(SYSTEM, 'eng', 'bob', 'editor');
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  it('links #general to a Slack channel the app is in, and lists it', async () => {
    const added = await ok('bridge add', { workspace: 'eng', channel: 'general', slack: 'C0BRIDGED' });
    const [bridge] = added.data.bridges as Array<Record<string, unknown>>;
    expect(bridge).toMatchObject({
      channel: 'general',
      surface: 'slack',
      tenant_id: SLACK_DEFAULTS.teamId,
      external_channel_id: 'C0BRIDGED',
      title: '#eng-chat',
      allow_private: false,
    });
    expect(added.text).toContain('Bridged #general with the Slack channel #eng-chat');
    const listed = await ok('bridge list', { workspace: 'eng' });
    expect(listed.data.bridges).toEqual([bridge]);
    expect(listed.text).toContain('#general ↔ Slack #eng-chat (C0BRIDGED)');
  });

  it('refuses a second bridge of the same channel, either way round', async () => {
    const again = await refused('bridge add', { workspace: 'eng', channel: 'general', slack: 'C0OTHER' });
    expect(again).toMatchObject({ code: 'CONFLICT' });
    expect(again.message).toMatch(/web channel is already bridged to a Slack channel/);
    await h.server.app.store.messages
      .conversation({
        workspaceId: h.workspace.id,
        kind: 'channel',
        key: 'channel:random',
        title: 'random',
        surface: 'web',
      })
      .then((c) =>
        h.server.app.store.chat.createChannel({
          conversationId: c.id,
          workspaceId: h.workspace.id,
          name: 'random',
          restricted: false,
          description: '',
          createdBy: null,
        }),
      );
    const taken = await refused('bridge add', { workspace: 'eng', channel: 'random', slack: 'C0BRIDGED' });
    expect(taken.message).toMatch(/That Slack channel is already bridged to a web channel/);
  });

  it('says why when the channel is unknown on either side or the app is not in it', async () => {
    expect((await refused('bridge add', { workspace: 'eng', channel: 'nope', slack: 'C0OTHER' })).message).toMatch(
      /#nope in eng/,
    );
    expect((await refused('bridge add', { workspace: 'eng', channel: 'random', slack: 'C0MISSING' })).message).toMatch(
      /Slack channel C0MISSING/,
    );
    expect((await refused('bridge add', { workspace: 'eng', channel: 'random', slack: 'general' })).message).toMatch(
      /channel id \(C… or G…\)/,
    );
    const notMe = await refused('bridge add', { workspace: 'eng', channel: 'random', slack: 'C0NOTME' });
    expect(notMe).toMatchObject({ code: 'NOT_PERMITTED' });
    expect(notMe.message).toMatch(/app is not in the Slack channel C0NOTME; invite it/);
    expect((await refused('bridge add', { workspace: 'eng', channel: 'random' })).message).toMatch(
      /--slack .* or --teams/,
    );
    expect(
      (await refused('bridge add', { workspace: 'eng', channel: 'random', teams: '19:abc@thread.tacv2' })).message,
    ).toMatch(/Nothing can be bridged to "teams": that chat app is not configured/);
  });

  it('refuses a restricted channel unless the owner allows private content there', async () => {
    const conv = await h.server.app.store.messages.conversation({
      workspaceId: h.workspace.id,
      kind: 'channel',
      key: 'channel:secret',
      title: 'secret',
      surface: 'web',
    });
    await h.server.app.store.chat.createChannel({
      conversationId: conv.id,
      workspaceId: h.workspace.id,
      name: 'secret',
      restricted: true,
      description: '',
      createdBy: null,
    });
    const no = await refused('bridge add', { workspace: 'eng', channel: 'secret', slack: 'C0OTHER' });
    expect(no.message).toMatch(/#secret is a restricted channel.*--allow-private/);
    const yes = await ok('bridge add', { workspace: 'eng', channel: 'secret', slack: 'C0OTHER', allowPrivate: true });
    expect((yes.data.bridges as Array<{ allow_private: boolean }>)[0].allow_private).toBe(true);
  });

  it('lets only workspace owners manage bridges', async () => {
    const bob = (await h.server.app.store.people.get('bob'))!;
    const alice = (await h.server.app.store.people.get('alice'))!;
    await expect(h.server.app.bridges.list({ kind: 'person', personId: bob.id }, 'eng')).rejects.toThrow(
      /Only an owner of eng can see bridges/,
    );
    await expect(h.server.app.bridges.remove({ kind: 'person', personId: bob.id }, 'eng', 'C0BRIDGED')).rejects.toThrow(
      /Only an owner/,
    );
    expect(await h.server.app.bridges.list({ kind: 'person', personId: alice.id }, 'eng')).toHaveLength(2);
  });

  it('removes a bridge by the outside channel id, and says so when there is none', async () => {
    const removed = await ok('bridge remove', { workspace: 'eng', bridge: 'C0OTHER' });
    expect(removed.data).toMatchObject({
      removed: true,
      bridge: { channel: 'secret', external_channel_id: 'C0OTHER' },
    });
    expect((await refused('bridge remove', { workspace: 'eng', bridge: 'C0OTHER' })).code).toBe('NOT_FOUND');
    expect(((await ok('bridge list', { workspace: 'eng' })).data.bridges as unknown[]).length).toBe(1);
  });
});
