// The Slack stand-in is only worth having if the real SDKs accept it: these
// tests drive it with the real @slack/web-api WebClient and check the signed
// requests with Bolt's own verification and body parsing.
import type { AddressInfo } from 'node:net';
import { App, HTTPModuleFunctions, HTTPReceiver, LogLevel, verifySlackRequest, webApi } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SLACK_DEFAULTS, dmChannelId } from '../support/slack/defaults.ts';
import {
  appMention,
  blockActions,
  entityDetailsRequested,
  eventCallback,
  linkShared,
  unfurlBlockActions,
  messageIm,
  postSigned,
  signRequest,
  slashCommand,
  urlVerification,
  viewSubmission,
  type SlackRequestBody,
} from '../support/slack/signed-request.ts';
import { startSlackStandin, type SlackStandin } from '../support/slack/web-api-standin.ts';

const { WebClient, ErrorCode } = webApi;

/** A real WebClient pointed at the stand-in; `null` for one with no token at all. */
function client(standin: SlackStandin, token: string | null = standin.botToken) {
  return new WebClient(token ?? undefined, {
    slackApiUrl: standin.url,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    logLevel: webApi.LogLevel.ERROR,
  });
}

async function rejection(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    return error as Record<string, unknown>;
  }
  throw new Error('expected the call to fail');
}

describe('Slack Web API stand-in', () => {
  let standin: SlackStandin;
  beforeEach(async () => {
    standin = await startSlackStandin();
  });
  afterEach(async () => {
    await standin.close();
  });

  it('gives the URL WebClient expects as slackApiUrl', () => {
    expect(standin.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/$/);
  });

  it('answers auth.test for the bot token with the workspace and bot identity', async () => {
    const result = await client(standin).auth.test();
    expect(result).toMatchObject({
      ok: true,
      url: `https://${SLACK_DEFAULTS.teamDomain}.slack.com/`,
      team: SLACK_DEFAULTS.teamName,
      team_id: SLACK_DEFAULTS.teamId,
      user_id: SLACK_DEFAULTS.botUserId,
      bot_id: SLACK_DEFAULTS.botId,
    });
    expect(result.response_metadata?.scopes).toContain('chat:write.customize');
  });

  it('records a threaded postMessage with its username, icon_url and metadata', async () => {
    const web = client(standin);
    const parent = await web.chat.postMessage({ channel: 'C0GENERAL', text: 'Deploy?' });
    const reply = await web.chat.postMessage({
      channel: 'C0GENERAL',
      thread_ts: parent.ts!,
      text: 'On it',
      username: 'alice/builder',
      icon_url: 'https://example.test/builder.png',
      metadata: { event_type: 'switchboard_message', event_payload: { message_id: 'm1' } },
    });

    expect(parent.ts).toBe('1700000000.000100');
    expect(Number(reply.ts)).toBeGreaterThan(Number(parent.ts));
    expect(reply).toMatchObject({
      ok: true,
      channel: 'C0GENERAL',
      message: { thread_ts: parent.ts, username: 'alice/builder', bot_id: SLACK_DEFAULTS.botId },
    });
    const [, call] = standin.callsTo('chat.postMessage');
    expect(call).toMatchObject({
      token: standin.botToken,
      args: {
        channel: 'C0GENERAL',
        thread_ts: parent.ts,
        text: 'On it',
        username: 'alice/builder',
        icon_url: 'https://example.test/builder.png',
        metadata: { event_type: 'switchboard_message', event_payload: { message_id: 'm1' } },
      },
    });
    expect(call!.args).not.toHaveProperty('token');
  });

  it("returns a thread and a channel's history with metadata only when asked, paged by cursor, and deletes the bot's posts", async () => {
    const web = client(standin);
    const metadata = { event_type: 'switchboard_message', event_payload: { switchboard_message_id: 'm1' } };
    const parent = await web.chat.postMessage({ channel: 'C0GENERAL', text: 'Deploy?' });
    const replies = [];
    for (const text of ['one', 'two', 'three'])
      replies.push(await web.chat.postMessage({ channel: 'C0GENERAL', thread_ts: parent.ts!, text, metadata }));
    const later = await web.chat.postMessage({ channel: 'C0GENERAL', text: 'Next topic', metadata });

    const thread = await web.conversations.replies({
      channel: 'C0GENERAL',
      ts: parent.ts!,
      include_all_metadata: true,
      limit: 2,
    });
    expect(thread.messages!.map((m) => m.text)).toEqual(['Deploy?', 'one']);
    expect(thread.messages![1]).toMatchObject({ thread_ts: parent.ts, metadata });
    expect(thread.has_more).toBe(true);
    const rest = await web.conversations.replies({
      channel: 'C0GENERAL',
      ts: parent.ts!,
      include_all_metadata: true,
      cursor: thread.response_metadata!.next_cursor!,
    });
    expect(rest.messages!.map((m) => m.text)).toEqual(['two', 'three']);
    expect(rest).toMatchObject({ has_more: false, response_metadata: { next_cursor: '' } });
    const plain = await web.conversations.replies({ channel: 'C0GENERAL', ts: parent.ts! });
    expect(plain.messages!.every((m) => !('metadata' in m))).toBe(true);

    // History: top-level messages only, newest first.
    const history = await web.conversations.history({ channel: 'C0GENERAL', include_all_metadata: true });
    expect(history.messages!.map((m) => m.ts)).toEqual([later.ts, parent.ts]);
    expect(history.messages![0]).toMatchObject({ metadata });
    const since = await web.conversations.history({ channel: 'C0GENERAL', oldest: parent.ts! });
    expect(since.messages!.map((m) => m.ts)).toEqual([later.ts]);

    await web.chat.delete({ channel: 'C0GENERAL', ts: replies[0]!.ts! });
    expect(standin.message('C0GENERAL', replies[0]!.ts!)).toBeUndefined();
    expect(await rejection(web.chat.delete({ channel: 'C0GENERAL', ts: replies[0]!.ts! }))).toMatchObject({
      data: { error: 'message_not_found' },
    });
    expect(await rejection(web.conversations.history({ channel: 'nope' }))).toMatchObject({
      data: { error: 'channel_not_found' },
    });
  });

  it('updates only messages the bot posted, and links thread replies with thread_ts', async () => {
    const web = client(standin);
    const card = await web.chat.postMessage({
      channel: 'C0GENERAL',
      text: 'Approve?',
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'Approve?' } }],
    });
    const reply = await web.chat.postMessage({ channel: 'C0GENERAL', thread_ts: card.ts!, text: 'details' });
    const updated = await web.chat.update({
      channel: 'C0GENERAL',
      ts: card.ts!,
      text: 'Approved by <@U0ALICE>',
      blocks: [],
    });
    expect(updated).toMatchObject({ ok: true, channel: 'C0GENERAL', ts: card.ts, text: 'Approved by <@U0ALICE>' });
    expect(standin.message('C0GENERAL', card.ts!)?.text).toBe('Approved by <@U0ALICE>');

    standin.seedMessage('C0GENERAL', { ts: '1710000000.000100', user: 'U0ALICE', text: 'mine' });
    expect(
      await rejection(web.chat.update({ channel: 'C0GENERAL', ts: '1710000000.000100', text: 'x' })),
    ).toMatchObject({ data: { error: 'cant_update_message' } });
    expect(await rejection(web.chat.update({ channel: 'C0GENERAL', ts: '1.2', text: 'x' }))).toMatchObject({
      data: { error: 'message_not_found' },
    });

    const top = await web.chat.getPermalink({ channel: 'C0GENERAL', message_ts: card.ts! });
    expect(top.permalink).toBe(`https://${SLACK_DEFAULTS.teamDomain}.slack.com/archives/C0GENERAL/p1700000000000100`);
    const inThread = await web.chat.getPermalink({ channel: 'C0GENERAL', message_ts: reply.ts! });
    expect(inThread.permalink).toBe(
      `https://${SLACK_DEFAULTS.teamDomain}.slack.com/archives/C0GENERAL/p${reply.ts!.replace('.', '')}?thread_ts=${card.ts}&cid=C0GENERAL`,
    );
  });

  it("streams under the app's name whatever username and icon_url say, and ends a stream left idle as Slack does", async () => {
    const web = client(standin);
    const dm = dmChannelId('U0ALICE');
    const started = await web.chat.startStream({
      channel: dm,
      thread_ts: '1700000000.000001',
      markdown_text: 'The answer ',
      username: 'Reviewer',
      icon_url: 'https://example.test/reviewer.png',
    });
    const ts = started.ts!;
    const shown = standin.message(dm, ts)!;
    expect(shown).toMatchObject({ streaming: true, bot_profile: { name: SLACK_DEFAULTS.botName } });
    expect(shown.username).toBeUndefined();
    expect(shown.icons).toBeUndefined();

    // An append keeps it going; past the idle time with none, it ends and shows as failed until updated.
    standin.passTime(4 * 60_000);
    await web.chat.appendStream({ channel: dm, ts, markdown_text: 'is 42' });
    standin.passTime(4 * 60_000);
    expect(standin.message(dm, ts)).toMatchObject({ streaming: true, text: 'The answer is 42' });
    standin.passTime(60_000 + 1);
    expect(await rejection(web.chat.appendStream({ channel: dm, ts, markdown_text: '.' }))).toMatchObject({
      data: { error: 'message_not_in_streaming_state' },
    });
    expect(await rejection(web.chat.stopStream({ channel: dm, ts }))).toMatchObject({
      data: { error: 'message_not_in_streaming_state' },
    });
    expect(standin.message(dm, ts)).toMatchObject({ streaming: false, stream_expired: true, text: 'The answer is 42' });
    await web.chat.update({ channel: dm, ts, text: 'The answer is 42.' });
    expect(standin.message(dm, ts)).toMatchObject({ text: 'The answer is 42.' });
    expect(standin.message(dm, ts)?.stream_expired).toBeUndefined();
  });

  it('opens DMs, posts ephemerals only to channel members, and publishes Home tabs', async () => {
    const web = client(standin);
    const first = await web.conversations.open({ users: 'U0ALICE' });
    const again = await web.conversations.open({ users: 'U0ALICE' });
    expect(first).toMatchObject({ ok: true, channel: { id: dmChannelId('U0ALICE') } });
    expect(again).toMatchObject({ ok: true, no_op: true, already_open: true, channel: { id: dmChannelId('U0ALICE') } });

    standin.setChannelMembers('C0GENERAL', ['U0ALICE', SLACK_DEFAULTS.botUserId]);
    const ephemeral = await web.chat.postEphemeral({
      channel: 'C0GENERAL',
      user: 'U0ALICE',
      text: 'Already decided by Bob',
    });
    expect(ephemeral.message_ts).toMatch(/^\d{10}\.\d{6}$/);
    expect(await rejection(web.chat.postEphemeral({ channel: 'C0GENERAL', user: 'U0BOB', text: 'x' }))).toMatchObject({
      data: { error: 'user_not_in_channel' },
    });

    const published = await web.views.publish({ user_id: 'U0ALICE', view: { type: 'home', blocks: [] } });
    expect(published.view).toMatchObject({
      type: 'home',
      team_id: SLACK_DEFAULTS.teamId,
      bot_id: SLACK_DEFAULTS.botId,
    });
    expect(
      await rejection(
        web.views.publish({ user_id: 'U0ALICE', hash: 'stale.hash', view: { type: 'home', blocks: [] } }),
      ),
    ).toMatchObject({ data: { error: 'hash_conflict' } });
    expect(standin.homeView('U0ALICE')).toMatchObject({ id: published.view!.id });
  });

  it('returns people set with setUser from users.info and user_not_found for others', async () => {
    standin.setUser('U0ALICE', {
      name: 'alice',
      real_name: 'Alice Liddell',
      display_name: 'alice',
      email: 'alice@example.test',
      image_72: 'https://example.test/alice_72.png',
    });
    const web = client(standin);
    const { user } = await web.users.info({ user: 'U0ALICE' });
    expect(user).toMatchObject({
      id: 'U0ALICE',
      team_id: SLACK_DEFAULTS.teamId,
      name: 'alice',
      real_name: 'Alice Liddell',
      is_bot: false,
      deleted: false,
      profile: {
        display_name: 'alice',
        real_name: 'Alice Liddell',
        email: 'alice@example.test',
        image_72: 'https://example.test/alice_72.png',
      },
    });
    expect(await rejection(web.users.info({ user: 'U0NOBODY' }))).toMatchObject({
      code: ErrorCode.PlatformError,
      data: { error: 'user_not_found' },
    });
  });

  it('surfaces a 429 with its Retry-After as a rate-limit error', async () => {
    standin.failNext('chat.postMessage', { status: 429, retryAfter: 7 });
    const error = await rejection(client(standin).chat.postMessage({ channel: 'C0GENERAL', text: 'hi' }));
    expect(error).toMatchObject({ code: ErrorCode.RateLimitedError, retryAfter: 7 });
    expect(standin.callsTo('chat.postMessage')).toMatchObject([{ status: 429 }]);
    // The failure is used up: the next call goes through.
    await expect(client(standin).chat.postMessage({ channel: 'C0GENERAL', text: 'hi' })).resolves.toMatchObject({
      ok: true,
    });
  });

  it('answers injected server errors with HTTP 500 and injected Slack errors with ok:false', async () => {
    standin.failNext('chat.update', { status: 500 });
    standin.failNext('chat.postMessage', { error: 'channel_not_found' });
    const web = client(standin);
    expect(await rejection(web.chat.update({ channel: 'C0GENERAL', ts: '1.1', text: 'x' }))).toMatchObject({
      code: ErrorCode.HTTPError,
      statusCode: 500,
    });
    expect(await rejection(web.chat.postMessage({ channel: 'C0GENERAL', text: 'x' }))).toMatchObject({
      code: ErrorCode.PlatformError,
      data: { error: 'channel_not_found' },
    });
  });

  it('drops the connection when asked, as a network failure', async () => {
    standin.failNext('chat.postMessage', { drop: true });
    expect(await rejection(client(standin).chat.postMessage({ channel: 'C0GENERAL', text: 'x' }))).toMatchObject({
      code: ErrorCode.RequestError,
    });
    expect(standin.callsTo('chat.postMessage')).toMatchObject([{ status: 0 }]);
  });

  it('hands out response_urls and records what is posted to them', async () => {
    const responseUrl = standin.responseUrl();
    const response = await fetch(responseUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ response_type: 'ephemeral', text: 'Already approved by Bob' }),
    });
    expect(response.status).toBe(200);
    expect(standin.responseUrlPosts).toMatchObject([
      { url: responseUrl, body: { response_type: 'ephemeral', text: 'Already approved by Bob' } },
    ]);
  });

  it('refuses an unknown token with invalid_auth and a revoked one with token_revoked', async () => {
    expect(await rejection(client(standin, 'xoxb-not-a-real-token').auth.test())).toMatchObject({
      code: ErrorCode.PlatformError,
      data: { error: 'invalid_auth' },
    });
    expect(await rejection(client(standin, null).auth.test())).toMatchObject({ data: { error: 'not_authed' } });
    standin.revokeToken(standin.botToken);
    expect(await rejection(client(standin).auth.test())).toMatchObject({ data: { error: 'token_revoked' } });
  });

  it('paginates conversations.members with next_cursor', async () => {
    const everyone = ['U01', 'U02', 'U03', 'U04', 'U05'];
    standin.setChannelMembers('C0GENERAL', everyone);
    const web = client(standin);
    const first = await web.conversations.members({ channel: 'C0GENERAL', limit: 2 });
    expect(first.members).toEqual(['U01', 'U02']);
    expect(first.response_metadata?.next_cursor).toBeTruthy();

    const pages: string[][] = [];
    for await (const page of web.paginate('conversations.members', { channel: 'C0GENERAL', limit: 2 })) {
      pages.push((page as webApi.ConversationsMembersResponse).members ?? []);
    }
    expect(pages).toEqual([['U01', 'U02'], ['U03', 'U04'], ['U05']]);
    expect(await rejection(web.conversations.members({ channel: 'C0UNKNOWN' }))).toMatchObject({
      data: { error: 'channel_not_found' },
    });
  });

  it('records chat.unfurl with Work Object metadata on the message, and refuses what Slack refuses', async () => {
    const web = client(standin);
    standin.seedMessage('C0GENERAL', { ts: '1710000000.000100', user: 'U0ALICE', text: 'https://sb.test/x' });
    const entity = {
      app_unfurl_url: 'https://sb.test/x',
      url: 'https://sb.test/x',
      external_ref: { id: 'x' },
      entity_type: 'slack#/entities/item',
      entity_payload: { attributes: { title: { text: 'X' } } },
    };
    await web.chat.unfurl({ channel: 'C0GENERAL', ts: '1710000000.000100', metadata: { entities: [entity] } });
    expect(standin.callsTo('chat.unfurl')[0].args.metadata).toEqual({ entities: [entity] });
    expect(standin.message('C0GENERAL', '1710000000.000100')?.unfurls).toEqual({ entities: [entity] });
    const broken = { ...entity, app_unfurl_url: undefined };
    expect(
      await rejection(
        web.chat.unfurl({ channel: 'C0GENERAL', ts: '1710000000.000100', metadata: { entities: [broken] } }),
      ),
    ).toMatchObject({ code: ErrorCode.PlatformError, data: { error: 'invalid_metadata' } });
    expect(
      await rejection(web.chat.unfurl({ channel: 'C0GENERAL', ts: '1.1', metadata: { entities: [entity] } })),
    ).toMatchObject({ data: { error: 'cannot_find_message' } });
    const { app_unfurl_url: _posted, ...details } = entity;
    await web.entity.presentDetails({ trigger_id: '1.2.abc', metadata: details });
    expect(standin.callsTo('entity.presentDetails')[0].args).toMatchObject({
      trigger_id: '1.2.abc',
      metadata: details,
    });

    const narrow = await startSlackStandin({ scope: 'chat:write' });
    try {
      narrow.seedMessage('C0GENERAL', { ts: '1710000000.000200', user: 'U0ALICE', text: 'x' });
      expect(
        await rejection(
          client(narrow).chat.unfurl({
            channel: 'C0GENERAL',
            ts: '1710000000.000200',
            metadata: { entities: [entity] },
          }),
        ),
      ).toMatchObject({ data: { error: 'missing_scope', needed: 'links:write' } });
    } finally {
      await narrow.close();
    }
  });

  it('accepts JSON bodies as well as form-encoded ones', async () => {
    const response = await fetch(`${standin.url}chat.postMessage`, {
      method: 'POST',
      headers: { authorization: `Bearer ${standin.botToken}`, 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ channel: 'C0GENERAL', text: 'json', blocks: [{ type: 'divider' }] }),
    });
    expect(await response.json()).toMatchObject({ ok: true, channel: 'C0GENERAL' });
    expect(standin.callsTo('chat.postMessage')[0]).toMatchObject({
      contentType: 'application/json; charset=utf-8',
      args: { text: 'json', blocks: [{ type: 'divider' }] },
    });
  });

  it('exchanges a single-use OAuth code for a bot token that then works', async () => {
    const code = standin.issueOAuthCode({ teamId: 'T0OTHER01', teamName: 'Other Co', installerUserId: 'U0INSTALL' });
    const anonymous = client(standin, null);
    expect(
      await rejection(anonymous.oauth.v2.access({ client_id: SLACK_DEFAULTS.clientId, client_secret: 'wrong', code })),
    ).toMatchObject({ data: { error: 'bad_client_secret' } });
    const access = await anonymous.oauth.v2.access({
      client_id: SLACK_DEFAULTS.clientId,
      client_secret: SLACK_DEFAULTS.clientSecret,
      code,
    });
    expect(access).toMatchObject({
      ok: true,
      token_type: 'bot',
      bot_user_id: SLACK_DEFAULTS.botUserId,
      app_id: SLACK_DEFAULTS.appId,
      team: { id: 'T0OTHER01', name: 'Other Co' },
      enterprise: null,
      authed_user: { id: 'U0INSTALL' },
    });
    expect(access.access_token).toMatch(/^xoxb-/);
    expect(await client(standin, access.access_token).auth.test()).toMatchObject({ team_id: 'T0OTHER01' });
    expect(
      await rejection(
        anonymous.oauth.v2.access({
          client_id: SLACK_DEFAULTS.clientId,
          client_secret: SLACK_DEFAULTS.clientSecret,
          code,
        }),
      ),
    ).toMatchObject({ data: { error: 'invalid_code' } });
  });
});

describe('signed Slack requests', () => {
  const signingSecret = 'test-signing-secret';
  const verify = (request: SlackRequestBody, options: Parameters<typeof signRequest>[1]) => {
    const { headers, body } = signRequest(request, { signingSecret, ...options });
    return () =>
      verifySlackRequest({
        signingSecret,
        body,
        headers: {
          'x-slack-signature': headers['x-slack-signature']!,
          'x-slack-request-timestamp': Number(headers['x-slack-request-timestamp']),
        },
      });
  };
  const mention = eventCallback(
    appMention({ user: 'U0ALICE', channel: 'C0GENERAL', text: `<@${SLACK_DEFAULTS.botUserId}> hello` }),
  );

  it('verifies with Bolt when signed with the signing secret', () => {
    expect(verify(mention, {})).not.toThrow();
  });

  it('fails Bolt verification when stale or signed with another secret', () => {
    expect(verify(mention, { stale: true })).toThrow(/stale/);
    expect(verify(mention, { wrongSecret: true })).toThrow(/signature mismatch/);
  });

  it('adds the retry headers when asked', () => {
    const { headers } = signRequest(mention, { signingSecret, retry: { num: 2, reason: 'http_timeout' } });
    expect(headers).toMatchObject({ 'x-slack-retry-num': '2', 'x-slack-retry-reason': 'http_timeout' });
  });

  it('builds bodies that Bolt parses back into the documented payloads', () => {
    const requests = [
      mention,
      eventCallback(messageIm({ user: 'U0ALICE', text: 'hi' })),
      urlVerification('challenge-token'),
      blockActions({
        user: 'U0ALICE',
        channel: 'C0GENERAL',
        message: { ts: '1700000000.000100' },
        actions: [{ action_id: 'approve', value: 'appr_1' }],
      }),
      viewSubmission({
        user: 'U0ALICE',
        view: { callback_id: 'link_account', values: { b: { a: { type: 'plain_text_input', value: 'x' } } } },
      }),
      slashCommand({ command: '/switchboard', text: 'link', user_id: 'U0ALICE', channel_id: 'C0GENERAL' }),
      eventCallback(linkShared({ user: 'U0ALICE', channel: 'C0GENERAL', urls: ['https://sb.test/#/w/eng/c/1'] })),
      eventCallback(entityDetailsRequested({ user: 'U0ALICE', url: 'https://sb.test/x', channel: 'C0GENERAL' })),
      unfurlBlockActions({
        user: 'U0ALICE',
        channel: 'C0GENERAL',
        message_ts: '1700000000.000100',
        url: 'https://sb.test/x',
        external_ref: { id: 'x' },
        action: { action_id: 'approve', value: 'appr_1' },
      }),
    ];
    for (const request of requests) {
      const { headers, body } = signRequest(request, { signingSecret });
      const parsed = HTTPModuleFunctions.parseHTTPRequestBody({ rawBody: Buffer.from(body), headers } as never);
      expect(parsed).toEqual(JSON.parse(JSON.stringify(request.payload)));
    }
    expect(
      blockActions({
        user: 'U0ALICE',
        channel: 'C0GENERAL',
        message: { ts: '1.1' },
        actions: [{ action_id: 'approve' }],
      }).body,
    ).toMatch(/^payload=/);
  });

  it('drives a real Bolt app end to end: a signed app_mention in, a threaded reply out through the stand-in', async () => {
    const standin = await startSlackStandin();
    const receiver = new HTTPReceiver({ signingSecret, processBeforeResponse: true, logLevel: LogLevel.ERROR });
    const app = new App({
      token: standin.botToken,
      receiver,
      clientOptions: { slackApiUrl: standin.url },
      logLevel: LogLevel.ERROR,
    });
    app.event('app_mention', async ({ event, say }) => {
      await say({ text: `hello <@${event.user}>`, thread_ts: event.ts });
    });
    const server = await receiver.start({ port: 0, host: '127.0.0.1' });
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
      const event = appMention({ user: 'U0ALICE', channel: 'C0GENERAL', text: `<@${SLACK_DEFAULTS.botUserId}> hi` });

      const refused = await postSigned(url, eventCallback(event), { signingSecret, wrongSecret: true });
      expect(refused.status).toBe(401);
      const accepted = await postSigned(url, eventCallback(event), { signingSecret });
      expect(accepted.status).toBe(200);

      expect(standin.callsTo('chat.postMessage')).toMatchObject([
        { args: { channel: 'C0GENERAL', thread_ts: event.ts, text: 'hello <@U0ALICE>' } },
      ]);
    } finally {
      await receiver.stop();
      await standin.close();
    }
  });
});
