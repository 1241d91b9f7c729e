// A web channel bridged with a Teams channel and a Slack channel: each side's
// messages reach the other two once. Teams reactions: signed `messageReaction` activities in through the real
// CloudAdapter (stored, then handled by their inbound job), Web API calls out
// to the Slack stand-in, on real PostgreSQL when TEST_DATABASE_URL is set. A
// Teams user's reaction becomes theirs on the web copy and the app's on the
// Slack copy; its removal follows; unknown messages, bots and types are ignored.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import type { Viewer } from '../../../src/core/channels/access.ts';
import type { ChatService } from '../../../src/surfaces/web/pages/chat-service.ts';
import { TEAMS_INBOUND, teamsRuntime } from '../../../src/surfaces/teams/index.ts';
import { pgliteDb, postgresDb } from '../../support/db.ts';
import { SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { eventCallback, message } from '../../support/slack/payloads.ts';
import { postSigned } from '../../support/slack/signed-request.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import { botAdded, channelMessage, channelReaction, type TeamsReactionType } from '../../support/teams/activities.ts';
import { botAccountId, TEAMS_DEFAULTS } from '../../support/teams/defaults.ts';
import { startTeamsStandin, type TeamsStandin } from '../../support/teams/standin.ts';
import { startHarness, type Harness } from '../../support/teams/harness.ts';
import { chatOf } from '../../../src/surfaces/web/index.ts';

const CHANNEL = TEAMS_DEFAULTS.channelId;
const SLACK_CHANNEL = 'C0TEAMSRX';
const SLACK_BOT = SLACK_DEFAULTS.botUserId;
const BOB = TEAMS_DEFAULTS.users.bob;

describe('a channel bridged with Teams and Slack, and Teams reactions in it', () => {
  let db: Database;
  let teams: TeamsStandin;
  let slack: SlackStandin;
  let h: Harness;
  let chat: ChatService;
  let alice: Viewer;
  let general: string;

  /** Bob writes in the Teams channel; waits for the web copy and its Slack mirror. */
  const writtenInTeams = async (text: string) => {
    const activity = channelMessage(teams, { text, from: BOB });
    expect((await h.post(activity)).status).toBe(200);
    const web = await vi.waitFor(async () => {
      const found = (await chat.history(alice, general)).messages.find((m) => m.body === text);
      if (!found) throw new Error(`"${text}" is not on the web yet`);
      return found;
    });
    const ts = await vi.waitFor(async () => {
      const slackBridge = (await h.server.app.store.bridges.byExternal('slack', SLACK_DEFAULTS.teamId, SLACK_CHANNEL))!;
      const copy = (await h.server.app.store.bridges.counterparts(web.id)).find(
        (c) => c.bridgeId === slackBridge.id,
      )?.externalId;
      if (!copy) throw new Error(`"${text}" is not in Slack yet`);
      return copy;
    });
    return { teamsId: activity.id, webId: web.id, ts };
  };
  const react = async (
    messageId: string,
    type: TeamsReactionType | string,
    extra: { removed?: boolean; threadRootId?: string } = {},
  ) => expect((await h.post(channelReaction(teams, { messageId, type, from: BOB, ...extra }))).status).toBe(200);
  const reactionsOnWeb = async (id: string) =>
    (await chat.history(alice, general)).messages.find((m) => m.id === id)?.reactions;
  const slackReactions = (ts: string) => slack.message(SLACK_CHANNEL, ts)?.reactions ?? [];

  beforeAll(async () => {
    [db, teams, slack] = await Promise.all([
      (postgresDb() ?? pgliteDb).open(),
      startTeamsStandin(),
      startSlackStandin(),
    ]);
    slack.setChannelMembers(SLACK_CHANNEL, [SLACK_BOT]);
    h = await startHarness({ database: db, standin: teams, slackStandin: slack });
    const { app } = h.server;
    expect((await h.post(botAdded(teams, { scope: 'team' }))).status).toBe(200);
    await vi.waitFor(async () =>
      expect(await teamsRuntime(app.surfaceModules).references.serviceUrlOf(teams.userTenantId)).not.toBeNull(),
    );
    chat = chatOf(app).chat;
    alice = await chat.viewer((await app.store.people.get('alice'))!.id, 'eng');
    await app.bridges.add(SYSTEM, {
      workspace: 'eng',
      channel: 'general',
      to: [
        { surface: 'teams', channel: CHANNEL },
        { surface: 'slack', channel: SLACK_CHANNEL },
      ],
    });
    general = (await app.store.chat.channelByName(h.workspace.id, 'general'))!.conversationId;
  }, 60_000);
  afterAll(async () => {
    await h?.stop();
    await Promise.all([teams?.close(), slack?.close()]);
    await db?.close();
  });

  it("mirrors each side to the other two once, under its author's name", async () => {
    slack.setUser('U0CAROL3W', { real_name: 'Carol Chen' });
    const event = message({
      channel: SLACK_CHANNEL,
      channel_type: 'channel',
      user: 'U0CAROL3W',
      text: 'Release notes are up',
    });
    expect((await postSigned(`${h.server.url}/slack/events`, eventCallback(event))).status).toBe(200);
    await vi.waitFor(async () =>
      expect((await chat.history(alice, general)).messages.find((m) => m.body === 'Release notes are up')?.via).toBe(
        'Slack',
      ),
    );
    const inTeams = await vi.waitFor(() => {
      const calls = teams
        .delivered('sendToConversation')
        .filter((c) => String(c.activity?.text ?? '').includes('Release notes are up'));
      if (!calls.length) throw new Error('not posted to Teams yet');
      return calls;
    });
    expect(inTeams).toHaveLength(1);
    expect(inTeams[0].activity?.text).toBe('**Carol Chen** (via Slack)\n\nRelease notes are up');
    // From Teams: on the web, and in Slack under the Teams author's name; neither goes back where it came from.
    const { ts } = await writtenInTeams('Thanks, reading now');
    const inSlack = slack
      .callsTo('chat.postMessage')
      .filter((c) => String(c.args.text).includes('Thanks, reading now'));
    expect(inSlack).toHaveLength(1);
    expect(inSlack[0].args).toMatchObject({ channel: SLACK_CHANNEL, username: `${BOB.name} (via Teams)` });
    expect((inSlack[0].response as { ts: string }).ts).toBe(ts);
    expect(
      slack.callsTo('chat.postMessage').filter((c) => String(c.args.text).includes('Release notes are up')),
    ).toHaveLength(0);
    expect(
      teams
        .delivered('sendToConversation')
        .filter((c) => String(c.activity?.text ?? '').includes('Thanks, reading now')),
    ).toHaveLength(0);
  });

  it("shows a Teams like on the web copy as that user's, passes it on to Slack as the app's, and follows its removal", async () => {
    const { teamsId, webId, ts } = await writtenInTeams('Who is in for lunch?');
    await react(teamsId, 'like');
    await vi.waitFor(async () =>
      expect(await reactionsOnWeb(webId)).toEqual([{ emoji: 'thumbsup', count: 1, mine: false, names: [BOB.name] }]),
    );
    await vi.waitFor(() => expect(slackReactions(ts)).toEqual([{ name: '+1', users: [SLACK_BOT], count: 1 }]));
    await react(teamsId, 'like', { removed: true });
    await vi.waitFor(async () => expect(await reactionsOnWeb(webId)).toEqual([]));
    await vi.waitFor(() => expect(slackReactions(ts)).toEqual([]));
    expect(slack.callsTo('reactions.add').filter((c) => c.args.timestamp === ts)).toHaveLength(1);
  });

  it("names Teams' reaction types as the web chat does, on a web message mirrored to Teams too", async () => {
    const sent = await chat.post(alice, general, 'Standup moved to 10');
    const teamsBridge = (await h.server.app.store.bridges.byExternal('teams', teams.userTenantId, CHANNEL))!;
    const teamsId = await vi.waitFor(async () => {
      const copy = (await h.server.app.store.bridges.counterparts(sent.message!.id)).find(
        (c) => c.bridgeId === teamsBridge.id,
      )?.externalId;
      if (!copy) throw new Error('not in Teams yet');
      return copy;
    });
    for (const type of ['laugh', 'surprised', 'sad', 'angry', 'heart']) await react(teamsId, type);
    await vi.waitFor(async () =>
      expect((await reactionsOnWeb(sent.message!.id))?.map((r) => r.emoji)).toEqual([
        'laughing',
        'open_mouth',
        'cry',
        'angry',
        'heart',
      ]),
    );
  });

  it("ignores a reaction on a message the bridge does not know, a bot's reaction and a type Teams does not offer", async () => {
    const { teamsId, webId } = await writtenInTeams('Deploy is green');
    // Unmapped: a message of the same reply chain that never reached the bridge.
    await react('1700000000999', 'like', { threadRootId: teamsId });
    const byBot = {
      ...channelReaction(teams, { messageId: teamsId, type: 'heart' }),
      from: { id: botAccountId(teams.appId), name: TEAMS_DEFAULTS.botName },
    };
    expect((await h.post(byBot)).status).toBe(200);
    await react(teamsId, 'constructor');
    // Handled in the order received (one reply chain, one ordering key): once this shows, the others were handled.
    await react(teamsId, 'sad');
    await vi.waitFor(async () =>
      expect(await reactionsOnWeb(webId)).toEqual([{ emoji: 'cry', count: 1, mine: false, names: [BOB.name] }]),
    );
    expect(await h.server.app.store.outbox.list({ topic: TEAMS_INBOUND, status: 'failed' })).toEqual([]);
  });
});
