// A web channel bridged with a Slack channel and a Teams channel at once, each
// side driven as people use it: the web chat's HTTP API (signed in, with its
// CSRF token), signed Slack events, signed Teams activities through the real
// CloudAdapter; Web API and Bot Connector calls out to the two stand-ins, on
// real PostgreSQL when TEST_DATABASE_URL is set. Messages, thread replies,
// edits, deletes and reactions written on any side reach the other two, each
// exactly once, and every echo of our own posts is ignored. A web message
// deleted (or edited) while its mirrors are being posted does not leave them
// behind (or stale).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SYSTEM } from '../../../src/core/actor.ts';
import { hashPassword } from '../../../src/http/auth/index.ts';
import { mountWebChat } from '../../../src/http/surface-mount.ts';
import type { Database } from '../../../src/infra/db/client.ts';
import { teamsRuntime } from '../../../src/surfaces/teams/index.ts';
import { pgliteDb, postgresDb } from '../../support/db.ts';
import { SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { eventCallback, message } from '../../support/slack/payloads.ts';
import { postSigned } from '../../support/slack/signed-request.ts';
import { startSlackStandin, type RecordedCall, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import {
  botAdded,
  channelMessage,
  channelMessageDeleted,
  channelMessageEdited,
  channelReaction,
} from '../../support/teams/activities.ts';
import { botAccountId, TEAMS_DEFAULTS } from '../../support/teams/defaults.ts';
import { startHarness, type Harness } from '../../support/teams/harness.ts';
import { startTeamsStandin, type ConnectorCall, type TeamsStandin } from '../../support/teams/standin.ts';
import { HttpBrowser } from '../../support/web/browser.ts';

const PASSWORD = 'correct horse battery';
const TEAMS_CHANNEL = TEAMS_DEFAULTS.channelId;
const SLACK_CHANNEL = 'C0THREEWY';
const SLACK_BOT = SLACK_DEFAULTS.botUserId;
const CAROL = 'U0CAROL3W';
const BOB = TEAMS_DEFAULTS.users.bob;

interface WebMessage {
  id: string;
  body: string;
  via: string | null;
  reactions: Array<{ emoji: string; count: number; names: string[] }>;
}

describe('a web channel bridged with Slack and Teams at once', () => {
  let db: Database;
  let teams: TeamsStandin;
  let slack: SlackStandin;
  let h: Harness;
  let web: HttpBrowser;
  let general: string;
  const bridgeIds = { slack: '', teams: '' };

  // The web side, through its HTTP API.
  const history = async (conversationId: string): Promise<WebMessage[]> =>
    (await web.api('GET', `/w/eng/conversations/${conversationId}`)).json().messages;
  const onWeb = (conversationId: string, body: string) =>
    vi.waitFor(async () => {
      const found = (await history(conversationId)).find((m) => m.body === body);
      if (!found) throw new Error(`"${body}" is not in the web conversation yet`);
      return found;
    });
  const postOnWeb = async (conversationId: string, body: string): Promise<string> => {
    const res = await web.api('POST', `/w/eng/conversations/${conversationId}/messages`, { body });
    expect(res.status).toBe(201);
    return res.json().message.id;
  };
  const threadOf = async (messageId: string): Promise<string> =>
    (await web.api('POST', `/w/eng/messages/${messageId}/thread`)).json().conversation.id;

  // The Slack side: Carol's events in, the app's Web API calls out.
  const postEvent = async (event: { type: string }) =>
    expect((await postSigned(`${h.server.url}/slack/events`, eventCallback(event))).status).toBe(200);
  const fromSlack = async (text: string, threadTs?: string) => {
    const event = message({
      channel: SLACK_CHANNEL,
      channel_type: 'channel',
      user: CAROL,
      text,
      ...(threadTs ? { thread_ts: threadTs } : {}),
    });
    await postEvent(event);
    return event.ts;
  };
  const slackPosts = (text: string) =>
    slack
      .callsTo('chat.postMessage')
      .filter((c) => c.args.channel === SLACK_CHANNEL && String(c.args.text).includes(text) && c.status === 200);
  const postedToSlack = (text: string) =>
    vi.waitFor(() => {
      const [call] = slackPosts(text);
      if (!call) throw new Error(`"${text}" is not in Slack yet`);
      return call;
    });
  const tsOf = (c: RecordedCall) => (c.response as { ts: string }).ts;
  /** What Slack sends back for one of our posts: a message event carrying the bot id and our metadata. */
  const slackEcho = (c: RecordedCall) =>
    message({
      channel: SLACK_CHANNEL,
      channel_type: 'channel',
      user: SLACK_BOT,
      text: String(c.args.text),
      ts: tsOf(c),
      extra: { bot_id: SLACK_DEFAULTS.botId, metadata: c.args.metadata },
    });
  const slackChanged = (ts: string, before: string, text: string) => ({
    type: 'message',
    subtype: 'message_changed',
    hidden: true,
    channel: SLACK_CHANNEL,
    channel_type: 'channel',
    ts: `${ts}1`,
    event_ts: `${ts}1`,
    message: { type: 'message', user: CAROL, text, ts, edited: { user: CAROL, ts: `${ts}1` } },
    previous_message: { type: 'message', user: CAROL, text: before, ts },
  });
  const slackDeleted = (ts: string, before: string) => ({
    type: 'message',
    subtype: 'message_deleted',
    hidden: true,
    channel: SLACK_CHANNEL,
    channel_type: 'channel',
    deleted_ts: ts,
    ts: `${ts}2`,
    event_ts: `${ts}2`,
    previous_message: { type: 'message', user: CAROL, text: before, ts },
  });
  const slackReaction = (ts: string, on: boolean) => ({
    type: on ? 'reaction_added' : 'reaction_removed',
    user: CAROL,
    reaction: 'eyes',
    item: { type: 'message', channel: SLACK_CHANNEL, ts },
    item_user: CAROL,
    event_ts: `${Date.now() / 1000}`,
  });

  // The Teams side: Bob's activities in, the bot's Bot Connector calls out.
  const postActivity = async (activity: Parameters<Harness['post']>[0]) =>
    expect((await h.post(activity)).status).toBe(200);
  const fromTeams = async (text: string, threadRootId?: string) => {
    const activity = channelMessage(teams, { text, from: BOB, ...(threadRootId ? { threadRootId } : {}) });
    await postActivity(activity);
    return activity.id;
  };
  const teamsPosts = (text: string) =>
    teams.delivered('sendToConversation').filter((c) => String(c.activity?.text ?? '').includes(text));
  const postedToTeams = (text: string) =>
    vi.waitFor(() => {
      const [call] = teamsPosts(text);
      if (!call) throw new Error(`"${text}" is not in Teams yet`);
      return call;
    });
  const teamsEcho = (c: ConnectorCall) => ({
    ...channelMessage(teams, { text: String(c.activity?.text ?? ''), id: c.createdId }),
    from: { id: botAccountId(teams.appId), name: TEAMS_DEFAULTS.botName },
  });

  /** The platform id of our mirror of a web message on one bridge, once recorded. */
  const mirrorId = (messageId: string, side: 'slack' | 'teams') =>
    vi.waitFor(async () => {
      const row = (await h.server.app.store.bridges.counterparts(messageId)).find(
        (c) => c.bridgeId === bridgeIds[side],
      );
      if (!row?.externalId) throw new Error(`no ${side} mirror of ${messageId} yet`);
      return row.externalId;
    });
  /**
   * Waits until every job queued so far for the two bridges has run: a web message's mirrors are posted after them
   * (one ordering key per bridge), and a message from each outside side is stored, and mirrored, after what came
   * before it there.
   */
  let settled = 0;
  const settle = async () => {
    settled += 1;
    const marker = `settled ${settled}`;
    await postOnWeb(general, marker);
    await Promise.all([postedToSlack(marker), postedToTeams(marker)]);
    await fromSlack(`${marker} in Slack`);
    await fromTeams(`${marker} in Teams`);
    await Promise.all([
      onWeb(general, `${marker} in Slack`),
      onWeb(general, `${marker} in Teams`),
      postedToTeams(`${marker} in Slack`),
      postedToSlack(`${marker} in Teams`),
    ]);
  };
  const count = async (conversationId: string, body: string) =>
    (await history(conversationId)).filter((m) => m.body === body).length;

  beforeAll(async () => {
    [db, teams, slack] = await Promise.all([
      (postgresDb() ?? pgliteDb).open(),
      startTeamsStandin(),
      startSlackStandin(),
    ]);
    slack.setChannelMembers(SLACK_CHANNEL, [SLACK_BOT, CAROL]);
    slack.setUser(CAROL, { real_name: 'Carol Chen', display_name: 'carol' });
    h = await startHarness({ database: db, standin: teams, slackStandin: slack, mounts: [mountWebChat] });
    const { app } = h.server;
    await postActivity(botAdded(teams, { scope: 'team' }));
    await vi.waitFor(async () =>
      expect(await teamsRuntime(app.surfaceModules).references.serviceUrlOf(teams.userTenantId)).not.toBeNull(),
    );
    const made = await app.bridges.add(SYSTEM, {
      workspace: 'eng',
      channel: 'general',
      to: [
        { surface: 'slack', channel: SLACK_CHANNEL },
        { surface: 'teams', channel: TEAMS_CHANNEL },
      ],
    });
    for (const b of made) bridgeIds[b.surface as 'slack' | 'teams'] = b.id;
    general = made[0]!.channelId;
    const alice = (await app.store.people.get('alice'))!;
    await app.store.people.setPasswordHash(alice.id, await hashPassword(PASSWORD));
    web = new HttpBrowser(h.server.url);
    await web.signIn('alice', PASSWORD);
  }, 120_000); // a cold start (database, two stand-ins, server, sign-in) on a loaded machine
  afterAll(async () => {
    await h?.stop();
    await Promise.all([teams?.close(), slack?.close()]);
    await db?.close();
  });

  it('relays a message written on each side to the other two once, and ignores every echo of our posts', async () => {
    await postOnWeb(general, 'Written on the web');
    await fromSlack('Written in Slack');
    await fromTeams('Written in Teams');
    const toSlack = [await postedToSlack('Written on the web'), await postedToSlack('Written in Teams')];
    const toTeams = [await postedToTeams('Written on the web'), await postedToTeams('Written in Slack')];
    expect((await onWeb(general, 'Written in Slack')).via).toBe('Slack');
    expect((await onWeb(general, 'Written in Teams')).via).toBe('Teams');
    expect(toSlack.map((c) => c.args.username)).toEqual(['alice (via web)', `${BOB.name} (via Teams)`]);
    expect(toTeams.map((c) => c.activity?.text)).toEqual([
      '**alice** (via web)\n\nWritten on the web',
      '**carol** (via Slack)\n\nWritten in Slack',
    ]);
    // Slack and Teams send our own posts back to the app; none of them is taken for a new message.
    for (const c of toSlack) await postEvent(slackEcho(c));
    for (const c of toTeams) await postActivity(teamsEcho(c));
    await settle();
    for (const text of ['Written on the web', 'Written in Slack', 'Written in Teams']) {
      expect(await count(general, text)).toBe(1);
      expect(slackPosts(text)).toHaveLength(text === 'Written in Slack' ? 0 : 1);
      expect(teamsPosts(text)).toHaveLength(text === 'Written in Teams' ? 0 : 1);
    }
  });

  it('relays thread replies into the thread of the same message on every side, once', async () => {
    const rootTs = await fromSlack('Release checklist');
    const root = await onWeb(general, 'Release checklist');
    const rootInTeams = await mirrorId(root.id, 'teams');
    const thread = await threadOf(root.id);
    const chain = `${TEAMS_CHANNEL};messageid=${rootInTeams}`;

    await postOnWeb(thread, 'Web reply: tests pass');
    expect((await postedToSlack('Web reply: tests pass')).args.thread_ts).toBe(rootTs);
    expect((await postedToTeams('Web reply: tests pass')).conversationId).toBe(chain);

    await fromSlack('Slack reply: notes written', rootTs);
    expect((await onWeb(thread, 'Slack reply: notes written')).via).toBe('Slack');
    expect((await postedToTeams('Slack reply: notes written')).conversationId).toBe(chain);

    await fromTeams('Teams reply: staging is green', rootInTeams);
    expect((await onWeb(thread, 'Teams reply: staging is green')).via).toBe('Teams');
    expect((await postedToSlack('Teams reply: staging is green')).args.thread_ts).toBe(rootTs);

    await settle();
    for (const text of ['Web reply: tests pass', 'Slack reply: notes written', 'Teams reply: staging is green']) {
      expect(await count(thread, text)).toBe(1);
      expect(await count(general, text)).toBe(0);
      expect(slackPosts(text)).toHaveLength(text.startsWith('Slack') ? 0 : 1);
      expect(teamsPosts(text)).toHaveLength(text.startsWith('Teams') ? 0 : 1);
    }
  });

  it('relays an edit and a delete made on each side to the copies on the other two, once', async () => {
    const { app } = h.server;
    const webId = await postOnWeb(general, 'Standup at 9');
    const slackTs = await fromSlack('Retro at 3');
    const teamsId = await fromTeams('Demo at 5');
    const fromSlackOnWeb = await onWeb(general, 'Retro at 3');
    const fromTeamsOnWeb = await onWeb(general, 'Demo at 5');
    const mirrors = {
      webInSlack: await mirrorId(webId, 'slack'),
      webInTeams: await mirrorId(webId, 'teams'),
      slackInTeams: await mirrorId(fromSlackOnWeb.id, 'teams'),
      teamsInSlack: await mirrorId(fromTeamsOnWeb.id, 'slack'),
    };

    expect((await web.api('PATCH', `/w/eng/messages/${webId}`, { body: 'Standup at 10' })).status).toBe(200);
    await postEvent(slackChanged(slackTs, 'Retro at 3', 'Retro at 4'));
    await postActivity(channelMessageEdited(teams, { id: teamsId, text: 'Demo at 6', from: BOB }));
    await vi.waitFor(() => {
      expect(slack.message(SLACK_CHANNEL, mirrors.webInSlack)?.text).toContain('Standup at 10');
      expect(slack.message(SLACK_CHANNEL, mirrors.teamsInSlack)?.text).toContain('Demo at 6');
      expect(teams.activity(TEAMS_CHANNEL, mirrors.webInTeams)?.text).toContain('Standup at 10');
      expect(teams.activity(TEAMS_CHANNEL, mirrors.slackInTeams)?.text).toContain('Retro at 4');
    });
    await onWeb(general, 'Retro at 4');
    await onWeb(general, 'Demo at 6');

    expect((await web.api('DELETE', `/w/eng/messages/${webId}`)).status).toBe(200);
    await postEvent(slackDeleted(slackTs, 'Retro at 4'));
    await postActivity(channelMessageDeleted(teams, { id: teamsId, from: BOB }));
    await vi.waitFor(() => {
      expect(slack.message(SLACK_CHANNEL, mirrors.webInSlack)).toBeUndefined();
      expect(slack.message(SLACK_CHANNEL, mirrors.teamsInSlack)).toBeUndefined();
      expect(teams.activity(TEAMS_CHANNEL, mirrors.webInTeams)).toBeUndefined();
      expect(teams.activity(TEAMS_CHANNEL, mirrors.slackInTeams)).toBeUndefined();
    });
    await vi.waitFor(async () => {
      for (const id of [webId, fromSlackOnWeb.id, fromTeamsOnWeb.id])
        expect(await app.store.messages.get(h.workspace.id, id)).toBeNull();
    });

    await settle();
    const inSlack = (method: string, ts: string) => slack.callsTo(method).filter((c) => c.args.ts === ts);
    const inTeams = (op: 'updateActivity' | 'deleteActivity', id: string) =>
      teams.calls.filter((c) => c.op === op && c.activityId === id);
    for (const ts of [mirrors.webInSlack, mirrors.teamsInSlack]) {
      expect(inSlack('chat.update', ts)).toHaveLength(1);
      expect(inSlack('chat.delete', ts)).toHaveLength(1);
    }
    for (const id of [mirrors.webInTeams, mirrors.slackInTeams]) {
      expect(inTeams('updateActivity', id)).toHaveLength(1);
      expect(inTeams('deleteActivity', id)).toHaveLength(1);
    }
    // Messages written in Slack or Teams are never changed there by the app: their own people did it.
    expect(inSlack('chat.update', slackTs)).toEqual([]);
    expect(inTeams('updateActivity', teamsId)).toEqual([]);
  });

  it('relays reactions to every side that shows them, once, and never back to where they were given', async () => {
    const webId = await postOnWeb(general, 'Ship it?');
    const slackTs = await fromSlack('Looks good to me');
    const teamsId = await fromTeams('Same here');
    const fromSlackOnWeb = await onWeb(general, 'Looks good to me');
    const fromTeamsOnWeb = await onWeb(general, 'Same here');
    const webInSlack = await mirrorId(webId, 'slack');
    const teamsInSlack = await mirrorId(fromTeamsOnWeb.id, 'slack');
    const reactionsOf = async (id: string) => (await history(general)).find((m) => m.id === id)?.reactions;

    // The web: alice's reaction becomes the app's in Slack (Teams lets no bot react), and goes when she takes it back.
    expect((await web.api('POST', `/w/eng/messages/${webId}/reactions`, { emoji: 'tada' })).status).toBe(200);
    await vi.waitFor(() =>
      expect(slack.message(SLACK_CHANNEL, webInSlack)?.reactions).toEqual([
        { name: 'tada', users: [SLACK_BOT], count: 1 },
      ]),
    );
    expect((await web.api('DELETE', `/w/eng/messages/${webId}/reactions/tada`)).status).toBe(200);
    await vi.waitFor(() => expect(slack.message(SLACK_CHANNEL, webInSlack)?.reactions ?? []).toEqual([]));

    // Slack: Carol's reaction shows on the web as hers; Slack already shows it.
    await postEvent(slackReaction(slackTs, true));
    await vi.waitFor(async () =>
      expect(await reactionsOf(fromSlackOnWeb.id)).toEqual([
        expect.objectContaining({ emoji: 'eyes', count: 1, names: ['carol'] }),
      ]),
    );
    // Teams: Bob's like shows on the web as his, and in Slack as the app's.
    await postActivity(channelReaction(teams, { messageId: teamsId, type: 'like', from: BOB }));
    await vi.waitFor(async () =>
      expect(await reactionsOf(fromTeamsOnWeb.id)).toEqual([
        expect.objectContaining({ emoji: 'thumbsup', count: 1, names: [BOB.name] }),
      ]),
    );
    await vi.waitFor(() =>
      expect(slack.message(SLACK_CHANNEL, teamsInSlack)?.reactions).toEqual([
        { name: '+1', users: [SLACK_BOT], count: 1 },
      ]),
    );

    await settle();
    const calls = (method: string, ts: string) => slack.callsTo(method).filter((c) => c.args.timestamp === ts);
    expect(calls('reactions.add', webInSlack)).toHaveLength(1);
    expect(calls('reactions.remove', webInSlack)).toHaveLength(1);
    expect(calls('reactions.add', teamsInSlack)).toHaveLength(1);
    expect(calls('reactions.add', slackTs)).toEqual([]);
  });

  it('removes the mirrors of a web message deleted while they were being posted', async () => {
    const inSlack = slack.holdNext('chat.postMessage');
    const inTeams = teams.holdNext('sendToConversation');
    const id = await postOnWeb(general, 'Posted by mistake');
    // Both platforms made the post; their answers (with its id) are still on the way back.
    const [slackCall, teamsCall] = await Promise.all([inSlack.reached, inTeams.reached]);
    expect((await web.api('DELETE', `/w/eng/messages/${id}`)).status).toBe(200);
    inSlack.release();
    inTeams.release();
    await vi.waitFor(() => {
      expect(slack.messages(SLACK_CHANNEL).filter((m) => m.text?.includes('Posted by mistake'))).toEqual([]);
      expect(teams.conversationActivities(TEAMS_CHANNEL).filter((a) => a.text?.includes('Posted by mistake'))).toEqual(
        [],
      );
    });
    expect(slack.callsTo('chat.delete').filter((c) => c.args.ts === tsOf(slackCall))).toHaveLength(1);
    expect(teams.delivered('deleteActivity').filter((c) => c.activityId === teamsCall.createdId)).toHaveLength(1);
  });

  it('brings mirrors posted with the old text up to date when the web message was edited while they were posted', async () => {
    const inSlack = slack.holdNext('chat.postMessage');
    const inTeams = teams.holdNext('sendToConversation');
    const id = await postOnWeb(general, 'Lunch at noon');
    const [slackCall, teamsCall] = await Promise.all([inSlack.reached, inTeams.reached]);
    expect((await web.api('PATCH', `/w/eng/messages/${id}`, { body: 'Lunch at one' })).status).toBe(200);
    inSlack.release();
    inTeams.release();
    await vi.waitFor(() => {
      expect(slack.message(SLACK_CHANNEL, tsOf(slackCall))?.text).toContain('Lunch at one');
      expect(teams.activity(TEAMS_CHANNEL, teamsCall.createdId!)?.text).toContain('Lunch at one');
    });
  });
});
