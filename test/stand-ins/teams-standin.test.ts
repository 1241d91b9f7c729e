// The Teams stand-in is only worth having if the real SDK accepts it: these
// tests run botbuilder's CloudAdapter, with its own authentication switched
// on, against the stand-in's OpenID metadata, token endpoint and Bot Connector.
import {
  ActivityHandler,
  CloudAdapter,
  ConfigurationBotFrameworkAuthentication,
  TeamsInfo,
  TurnContext,
  type AdaptiveCardInvokeResponse,
  type AdaptiveCardInvokeValue,
  type ConversationParameters,
  type ConversationReference,
  type TeamsChannelAccount,
} from 'botbuilder';
import { ConfidentialClientApplication } from '@azure/msal-node';
import type { BotFrameworkAuthentication, AppCredentials } from 'botframework-connector';
import express from 'express';
import { RefuseBadTokensWith401 } from '../../src/surfaces/teams/auth.ts';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  adaptiveCardAction,
  botAdded,
  cardSubmit,
  channelMention,
  groupChatMessage,
  personalMessage,
  type TeamsActivity,
} from '../support/teams/activities.ts';
import { TEAMS_DEFAULTS, botAccountId } from '../support/teams/defaults.ts';
import {
  BOT_CONNECTOR_SCOPE,
  authenticationFor,
  configFor,
  credentialsFactoryFor,
  msalConfigurationFor,
  startTeamsStandin,
  type PostActivityOptions,
  type TeamsStandin,
} from '../support/teams/standin.ts';

/** A bot that records what reached it, replies to messages, and answers card clicks with a card. */
class RecordingBot extends ActivityHandler {
  readonly received: TeamsActivity[] = [];
  readonly references: ConversationReference[] = [];
  readonly replies: string[] = [];

  constructor() {
    super();
    this.onMessage(async (context, next) => {
      // A copy: removeRecipientMention below rewrites the activity's text in place.
      this.received.push(structuredClone(context.activity) as unknown as TeamsActivity);
      this.references.push(TurnContext.getConversationReference(context.activity) as ConversationReference);
      const sent = await context.sendActivity(
        `echo: ${TurnContext.removeRecipientMention(context.activity) ?? ''}`.trim(),
      );
      if (sent?.id) this.replies.push(sent.id);
      await next();
    });
    this.onConversationUpdate(async (context, next) => {
      this.received.push(context.activity as unknown as TeamsActivity);
      await next();
    });
  }

  protected override async onAdaptiveCardInvoke(
    context: TurnContext,
    value: AdaptiveCardInvokeValue,
  ): Promise<AdaptiveCardInvokeResponse> {
    this.received.push(context.activity as unknown as TeamsActivity);
    return {
      statusCode: 200,
      type: 'application/vnd.microsoft.card.adaptive',
      value: {
        type: 'AdaptiveCard',
        version: '1.5',
        body: [{ type: 'TextBlock', text: `${value.action.verb}d by ${context.activity.from.name}` }],
      },
    };
  }
}

// The adapter's wrapper (src/surfaces/teams/auth.ts) is what turns jsonwebtoken errors into 401s.

interface RunningBot {
  url: string;
  adapter: CloudAdapter;
  bot: RecordingBot;
  close(): Promise<void>;
}

/** The bot behind POST /api/messages, as the Teams adapter will mount it. */
async function startBot(authentication: BotFrameworkAuthentication): Promise<RunningBot> {
  const adapter = new CloudAdapter(authentication);
  const bot = new RecordingBot();
  const app = express();
  app.post('/api/messages', express.json(), (req, res) => adapter.process(req, res, (context) => bot.run(context)));
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/messages`;
  return {
    url,
    adapter,
    bot,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('Teams stand-in with the real CloudAdapter', () => {
  let standin: TeamsStandin;
  let running: RunningBot;

  beforeEach(async () => {
    standin = await startTeamsStandin();
    running = await startBot(authenticationFor(standin));
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await running.close();
    await standin.close();
  });

  it('publishes OpenID metadata whose keys are endorsed for msteams', async () => {
    const metadata = (await (await fetch(standin.openIdMetadataUrl)).json()) as { issuer: string; jwks_uri: string };
    expect(metadata.issuer).toBe('https://api.botframework.com');
    const { keys } = (await (await fetch(metadata.jwks_uri)).json()) as { keys: Array<Record<string, unknown>> };
    expect(keys).toEqual([
      expect.objectContaining({ kty: 'RSA', use: 'sig', endorsements: ['msteams'], n: expect.any(String), e: 'AQAB' }),
    ]);
  });

  it('delivers a signed channel mention and puts the reply in the same reply chain', async () => {
    const activity = channelMention(standin, { text: 'ask reviewer to check PR 12' });

    const response = await standin.postActivity(running.url, activity);

    expect(response.status).toBe(200);
    expect(running.bot.received.map((a) => a.id)).toEqual([activity.id]);
    // The SDK checked the token against the stand-in's metadata; the connector checked the bot's token (see appId).
    expect(standin.requests).toContain(`GET ${new URL(standin.openIdMetadataUrl).pathname}`);
    const [reply] = standin.delivered('replyToActivity');
    expect(reply).toMatchObject({
      conversationId: activity.conversation.id,
      activityId: activity.id,
      activity: { type: 'message', text: 'echo: ask reviewer to check PR 12', replyToId: activity.id },
      appId: standin.appId,
    });
    expect(activity.conversation.id).toBe(`${TEAMS_DEFAULTS.channelId};messageid=${activity.id}`);
    expect(running.bot.replies).toEqual([reply!.createdId]);
  });

  it('delivers personal and group chat messages with the Teams identity of the sender', async () => {
    const personal = personalMessage(standin, { text: 'hello', from: TEAMS_DEFAULTS.users.bob });
    const group = groupChatMessage(standin, { text: 'ask builder for a summary' });

    expect((await standin.postActivity(running.url, personal)).status).toBe(200);
    expect((await standin.postActivity(running.url, group)).status).toBe(200);

    expect(running.bot.received).toMatchObject([
      {
        conversation: { conversationType: 'personal' },
        from: { aadObjectId: TEAMS_DEFAULTS.users.bob.aadObjectId },
        channelData: { tenant: { id: standin.userTenantId } },
      },
      {
        conversation: { conversationType: 'groupChat', isGroup: true },
        text: '<at>Switchboard</at> ask builder for a summary',
      },
    ]);
    expect(standin.delivered('replyToActivity').map((c) => c.conversationId)).toEqual([
      personal.conversation.id,
      group.conversation.id,
    ]);
  });

  describe('refuses a request whose token is not valid, before the bot runs', () => {
    beforeEach(() => {
      // CloudAdapter and botframework-connector log every refusal to console.error.
      vi.spyOn(console, 'error').mockImplementation(() => undefined);
    });

    const cases: Array<[string, PostActivityOptions]> = [
      ['no Authorization header', { authorization: null }],
      ['an empty bearer token', { authorization: 'Bearer ' }],
      ['a token expired beyond the five-minute tolerance', { expired: true }],
      ['a token for another app id (audience)', { audience: '00000000-0000-0000-0000-000000000000' }],
      ['a token from another issuer', { issuer: 'https://sts.windows.net/attacker/' }],
      ['a token for another serviceUrl', { serviceUrl: 'https://attacker.example/teams/' }],
      ['a token signed by a key that is not published', { wrongKey: true, kid: 'not-a-published-key' }],
    ];

    it.each(cases)('%s → 401', async (_name, options) => {
      const activity = channelMention(standin, { text: 'ask reviewer to approve' });

      const response = await standin.postActivity(running.url, activity, options);

      expect(response.status).toBe(401);
      expect(running.bot.received).toEqual([]);
      expect(standin.calls).toEqual([]);
    });

    const jsonWebTokenFailures: Array<[string, PostActivityOptions]> = [
      ['a forged token under the published key id', { wrongKey: true }],
      ['a token not valid for another hour', { claims: { nbf: Math.floor(Date.now() / 1000) + 3600 } }],
    ];

    it.each(jsonWebTokenFailures)(
      '%s → 500 from the bare CloudAdapter (the SDK lets the jsonwebtoken error through)',
      async (_name, options) => {
        const activity = channelMention(standin, { text: 'ask reviewer to approve' });

        const response = await standin.postActivity(running.url, activity, options);

        expect(response.status).toBe(500);
        expect(running.bot.received).toEqual([]);
      },
    );

    it.each(jsonWebTokenFailures)(
      '%s → 401 once the adapter turns those errors into AuthenticationError',
      async (_name, options) => {
        const guarded = await startBot(new RefuseBadTokensWith401(authenticationFor(standin)));
        try {
          const activity = channelMention(standin, { text: 'ask reviewer to approve' });

          const response = await standin.postActivity(guarded.url, activity, options);

          expect(response.status).toBe(401);
          expect(guarded.bot.received).toEqual([]);
          // A valid token still goes through the wrapper.
          expect((await standin.postActivity(guarded.url, personalMessage(standin, { text: 'hi' }))).status).toBe(200);
        } finally {
          await guarded.close();
        }
      },
    );

    it('an activity from a channel the signing key is not endorsed for → 401', async () => {
      const activity = { ...personalMessage(standin, { text: 'hi' }), channelId: 'webchat' };

      const response = await standin.postActivity(running.url, activity);

      expect(response.status).toBe(401);
      expect(running.bot.received).toEqual([]);
    });
  });

  it('accepts a token that expired less than five minutes ago (the SDK clock tolerance)', async () => {
    const activity = personalMessage(standin, { text: 'late' });
    const exp = Math.floor(Date.now() / 1000) - 60;

    const response = await standin.postActivity(running.url, activity, { claims: { exp } });

    expect(response.status).toBe(200);
  });

  it('returns the invoke response body for an adaptiveCard/action click', async () => {
    const click = adaptiveCardAction(standin, {
      verb: 'approve',
      data: { approvalId: 'ap_1' },
      cardActivityId: '1760000000999',
    });

    const response = await standin.postActivity(running.url, click);

    expect(response).toEqual({
      status: 200,
      body: {
        statusCode: 200,
        type: 'application/vnd.microsoft.card.adaptive',
        value: {
          type: 'AdaptiveCard',
          version: '1.5',
          body: [{ type: 'TextBlock', text: 'approved by Alice Martin' }],
        },
      },
    });
    expect(running.bot.received[0]).toMatchObject({
      name: 'adaptiveCard/action',
      replyToId: '1760000000999',
      value: { action: { type: 'Action.Execute', verb: 'approve', data: { approvalId: 'ap_1' } } },
    });
  });

  it('delivers the Action.Submit fallback and the bot-added conversationUpdate', async () => {
    expect(
      (
        await standin.postActivity(
          running.url,
          cardSubmit(standin, { data: { verb: 'reject' }, cardActivityId: '1760000000998' }),
        )
      ).status,
    ).toBe(200);
    expect((await standin.postActivity(running.url, botAdded(standin, { scope: 'team' }))).status).toBe(200);

    expect(running.bot.received).toMatchObject([
      { type: 'message', value: { verb: 'reject' }, replyToId: '1760000000998' },
      {
        type: 'conversationUpdate',
        membersAdded: [{ id: botAccountId(standin.appId) }],
        channelData: { eventType: 'teamMemberAdded' },
      },
    ]);
  });

  it('records a proactive reply and an updateActivity through a stored conversation reference', async () => {
    const activity = channelMention(standin, { text: 'post the card' });
    await standin.postActivity(running.url, activity);
    const reference = running.bot.references[0]!;
    const cardId = running.bot.replies[0]!;

    await running.adapter.continueConversationAsync(standin.appId, reference, async (context) => {
      await context.sendActivity('later, proactively');
      await context.updateActivity({ type: 'message', id: cardId, text: 'approved by Bob' });
    });

    // CloudAdapter gives a continuation turn a random activity id, and every send from it replies to that id:
    // Teams ignores it and posts in the conversation (here the reply chain) named by the reference.
    expect(standin.delivered('replyToActivity').at(-1)).toMatchObject({
      conversationId: activity.conversation.id,
      activity: { text: 'later, proactively' },
    });
    expect(standin.delivered('updateActivity')).toMatchObject([
      { conversationId: activity.conversation.id, activityId: cardId, activity: { text: 'approved by Bob' } },
    ]);
    expect(standin.activity(activity.conversation.id, cardId)).toMatchObject({ id: cardId, text: 'approved by Bob' });
  });

  it('answers TeamsInfo member look-ups with Teams accounts (AAD object id, tenant)', async () => {
    await standin.postActivity(running.url, personalMessage(standin, { text: 'hi' }));
    const bob = TEAMS_DEFAULTS.users.bob;
    const reference = running.bot.references[0]!;

    let members: TeamsChannelAccount[] = [];
    let one: TeamsChannelAccount | undefined;
    await running.adapter.continueConversationAsync(standin.appId, reference, async (context) => {
      members = (await TeamsInfo.getPagedMembers(context)).members;
      one = await TeamsInfo.getMember(context, bob.id);
    });

    expect(members.map((m) => m.aadObjectId)).toEqual([TEAMS_DEFAULTS.users.alice.aadObjectId, bob.aadObjectId]);
    expect(one).toMatchObject({
      id: bob.id,
      aadObjectId: bob.aadObjectId,
      email: bob.email,
      tenantId: standin.userTenantId,
    });
    expect(standin.delivered('getConversationPagedMembers')).toMatchObject([
      { conversationId: reference.conversation.id },
    ]);
  });

  it('creates a personal conversation proactively', async () => {
    const alice = TEAMS_DEFAULTS.users.alice;
    const parameters: Partial<ConversationParameters> = {
      isGroup: false,
      bot: { id: botAccountId(standin.appId), name: TEAMS_DEFAULTS.botName },
      members: [{ id: alice.id, name: alice.name }],
      tenantId: standin.userTenantId,
      channelData: { tenant: { id: standin.userTenantId } },
    };
    let conversationId = '';

    await running.adapter.createConversationAsync(
      standin.appId,
      'msteams',
      standin.serviceUrl,
      BOT_CONNECTOR_SCOPE,
      parameters as ConversationParameters,
      async (context) => {
        conversationId = context.activity.conversation.id;
        await context.sendActivity('Link your account');
      },
    );

    expect(conversationId).toMatch(/^a:1/);
    expect(standin.delivered('createConversation')).toMatchObject([
      { createdId: conversationId, parameters: { members: [{ id: alice.id }] } },
    ]);
    // The SDK gives the new conversation's turn the conversation id as activity id, so its send is a "reply" to it.
    expect(standin.delivered('replyToActivity')).toMatchObject([
      { conversationId, activityId: conversationId, activity: { text: 'Link your account' } },
    ]);
  });

  describe('fails on demand as Teams does', () => {
    let reference: ConversationReference;
    beforeEach(async () => {
      await standin.postActivity(running.url, personalMessage(standin, { text: 'hi' }));
      reference = running.bot.references[0]!;
    });

    /** A proactive send, as a delivery job would make it. */
    const sendProactively = (text: string) =>
      running.adapter.continueConversationAsync(standin.appId, reference, async (context) => {
        await context.sendActivity(text);
      });
    const proactiveCalls = () =>
      standin.calls.filter((c) => c.op === 'replyToActivity' && c.activity?.text !== 'echo: hi');

    type ConnectorError = {
      statusCode?: number;
      response?: { headers: { get(name: string): string | undefined }; bodyAsText?: string };
    };
    const failure = (promise: Promise<unknown>) =>
      promise.then(
        () => undefined,
        (e: unknown) => e as ConnectorError,
      );

    it('answers 429 without Retry-After: the SDK passes it straight to the caller', async () => {
      standin.failNext('replyToActivity', { status: 429 });

      expect((await failure(sendProactively('x')))?.statusCode).toBe(429);
      await sendProactively('y');

      expect(proactiveCalls().map((c) => [c.status, c.activity?.text])).toEqual([
        [429, 'x'],
        [201, 'y'],
      ]);
      expect(standin.conversationActivities(reference.conversation.id).map((a) => a.text)).toEqual(['echo: hi', 'y']);
    });

    it('answers 429 with Retry-After: the SDK waits that long, retries, and delivers once', async () => {
      standin.failNext('replyToActivity', { status: 429, retryAfter: 0 });

      await sendProactively('x');

      expect(proactiveCalls().map((c) => c.status)).toEqual([429, 201]);
      expect(standin.conversationActivities(reference.conversation.id).map((a) => a.text)).toEqual(['echo: hi', 'x']);
    });

    it('keeps answering 429: after three retries of its own the SDK gives the caller the 429 and its Retry-After', async () => {
      standin.failNext('replyToActivity', { status: 429, retryAfter: 0, times: 4 });

      const error = await failure(sendProactively('x'));

      expect(error?.statusCode).toBe(429);
      expect(error?.response?.headers.get('retry-after')).toBe('0');
      expect(proactiveCalls().map((c) => c.status)).toEqual([429, 429, 429, 429]);
    });

    it('answers 403 MessageWritesBlocked with the body Teams documents, which the SDK does not retry', async () => {
      standin.failNext('replyToActivity', { status: 403, code: 'MessageWritesBlocked' });

      const error = await failure(sendProactively('blocked'));

      expect(error?.statusCode).toBe(403);
      expect(JSON.parse(error?.response?.bodyAsText ?? '{}')).toMatchObject({
        errorCode: 209,
        message: expect.stringContaining('"subCode": "MessageWritesBlocked"'),
      });
      expect(proactiveCalls().map((c) => c.status)).toEqual([403]);
    });

    it('answers 412 as many times as asked, which the SDK does not retry', async () => {
      standin.failNext('replyToActivity', { status: 412, times: 2 });

      const statuses = [];
      for (const text of ['a', 'b', 'c']) statuses.push((await failure(sendProactively(text)))?.statusCode ?? 'sent');

      expect(statuses).toEqual([412, 412, 'sent']);
      expect(proactiveCalls().map((c) => c.status)).toEqual([412, 412, 201]);
    });

    it.each([502, 504] as const)(
      'answers %i once: the SDK retries it itself (after about a second) and delivers once',
      async (status) => {
        standin.failNext('replyToActivity', { status });

        await sendProactively('x');

        expect(proactiveCalls().map((c) => c.status)).toEqual([status, 201]);
        expect(standin.conversationActivities(reference.conversation.id).map((a) => a.text)).toEqual(['echo: hi', 'x']);
      },
    );
  });

  describe('takes streams and AI-written messages as Teams does', () => {
    let reference: ConversationReference;
    beforeEach(async () => {
      await standin.postActivity(running.url, personalMessage(standin, { text: 'hi' }));
      reference = running.bot.references[0]!;
    });

    type ConnectorError = { statusCode?: number; response?: { bodyAsText?: string } };
    /** Sends `activity` proactively; its id, or what Teams answered a refusal with. */
    const send = (activity: Record<string, unknown>) => {
      let id: string | undefined;
      return running.adapter
        .continueConversationAsync(standin.appId, reference, async (context) => {
          id = (await context.sendActivity(activity))?.id;
        })
        .then(
          () => ({ id, status: 201, error: '' }),
          (e: ConnectorError) => ({ id, status: e.statusCode, error: e.response?.bodyAsText ?? '' }),
        );
    };
    const update = (activity: Record<string, unknown>) =>
      running.adapter
        .continueConversationAsync(standin.appId, reference, async (context) => {
          await context.updateActivity(activity);
        })
        .then(
          () => ({ status: 200, error: '' }),
          (e: ConnectorError) => ({ status: e.statusCode, error: e.response?.bodyAsText ?? '' }),
        );
    const streaming = (text: string, streamSequence: number, streamId?: string) => ({
      type: 'typing',
      text,
      channelData: { streamType: 'streaming', streamSequence, ...(streamId ? { streamId } : {}) },
    });

    it('streams one response per chat, ends it two minutes after it began, and keeps what a stopped one showed', async () => {
      const first = await send(streaming('A brown', 1));
      expect(first.status).toBe(201);
      expect(await send(streaming('Another answer', 1))).toMatchObject({
        status: 403,
        error: expect.stringContaining('ContentStreamNotAllowed'),
      });
      expect((await send(streaming('A brown fox', 2, first.id))).status).toBe(201);

      standin.passTime(2 * 60_000);
      const late = await send({
        type: 'message',
        text: 'A brown fox.',
        channelData: { streamType: 'final', streamId: first.id },
      });
      expect(late).toMatchObject({ status: 403, error: expect.stringContaining('exceeded streaming time') });
      // What it streamed can still be replaced, and the chat streams again.
      expect((await update({ type: 'message', id: first.id, text: 'A brown fox.' })).status).toBe(200);
      const second = await send(streaming('Jumps', 1));
      expect(second.status).toBe(201);

      standin.stopStream(second.id!);
      expect(await send(streaming('Jumps over', 2, second.id))).toMatchObject({
        status: 403,
        error: expect.stringContaining('cancelled by user'),
      });
      expect(await update({ type: 'message', id: second.id, text: 'Jumps over.' })).toMatchObject({ status: 403 });
      expect(standin.stream(second.id!)).toMatchObject({ ended: 'cancelled', done: false });
    });

    it("takes an AI label, citations and feedback buttons, and refuses them malformed with Teams' 400s", async () => {
      // Switchboard's connector keeps whole entities (the SDK's serializer alone would strip them to their type).
      await import('../../src/surfaces/teams/connector.ts');
      const label = { type: 'https://schema.org/Message', '@type': 'Message', '@context': 'https://schema.org' };
      const claim = (position: number, appearance: Record<string, unknown>) => ({
        '@type': 'Claim',
        position,
        appearance,
      });
      const doc = { '@type': 'DigitalDocument', name: 'Runbook', url: 'https://wiki.test/runbook' };
      const message = (entities: unknown[], channelData: Record<string, unknown> = {}) => ({
        type: 'message',
        text: 'Restart it [1].',
        entities,
        channelData,
      });

      const good = await send(
        message([{ ...label, additionalType: ['AIGeneratedContent'], citation: [claim(1, doc)] }], {
          feedbackLoop: { type: 'default' },
        }),
      );
      expect(good.status).toBe(201);
      expect(standin.activity(reference.conversation.id, good.id!)?.entities).toEqual([
        { ...label, additionalType: ['AIGeneratedContent'], citation: [claim(1, doc)] },
      ]);
      const refusals = [
        message([label, label]),
        message([{ ...label, additionalType: ['Handwritten'] }]),
        message([{ ...label, citation: Array.from({ length: 21 }, (_, i) => claim(i + 1, doc)) }]),
        message([{ ...label, citation: [claim(1, {})] }]),
        message([{ ...label, citation: [claim(1, { ...doc, name: 'x'.repeat(81) })] }]),
        message([label], { feedbackLoop: { type: 'thumbs' } }),
      ];
      for (const refused of refusals) expect((await send(refused)).status).toBe(400);
      expect((await update({ ...message([label, label]), id: good.id })).status).toBe(400);
    });
  });

  it('refuses Bot Connector calls without a valid bearer token', async () => {
    const url = `${standin.serviceUrl}v3/conversations/${encodeURIComponent(TEAMS_DEFAULTS.channelId)}/activities`;
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer forged' },
      body: '{"type":"message"}',
    });

    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ message: 'Authorization has been denied for this request.' });
    expect(standin.calls).toEqual([]);
  });
});

describe('Teams stand-in token endpoint', () => {
  let standin: TeamsStandin;
  afterEach(async () => {
    await standin.close();
  });

  it('issues a multi-tenant bot its token from botframework.com for the Bot Connector scope', async () => {
    // A fresh app id: botframework-connector caches access tokens per app id and scope for the whole process.
    standin = await startTeamsStandin({ appId: '7a1b2c3d-0000-4000-8000-000000000004' });
    const running = await startBot(authenticationFor(standin));
    try {
      expect((await standin.postActivity(running.url, personalMessage(standin, { text: 'hi' }))).status).toBe(200);
      expect((await standin.postActivity(running.url, personalMessage(standin, { text: 'again' }))).status).toBe(200);

      // One token for both replies: the SDK caches it until five minutes before it expires.
      expect(standin.tokenRequests).toMatchObject([
        {
          tenant: 'botframework.com',
          clientId: standin.appId,
          scope: `${BOT_CONNECTOR_SCOPE}/.default`,
          grantType: 'client_credentials',
          status: 200,
        },
      ]);
      expect(standin.delivered('replyToActivity')).toHaveLength(2);
    } finally {
      await running.close();
    }
  });

  it('issues tokens from the bot tenant for a single-tenant bot', async () => {
    // A fresh app id: botframework-connector caches access tokens per app id for the whole process.
    standin = await startTeamsStandin({
      appId: '7a1b2c3d-0000-4000-8000-000000000001',
      tenantId: TEAMS_DEFAULTS.tenantId,
    });
    expect(configFor(standin)).toMatchObject({
      MicrosoftAppType: 'SingleTenant',
      MicrosoftAppTenantId: TEAMS_DEFAULTS.tenantId,
      ToChannelFromBotLoginUrl: `${standin.origin}/${TEAMS_DEFAULTS.tenantId}`,
    });
    const running = await startBot(authenticationFor(standin));
    try {
      const response = await standin.postActivity(running.url, personalMessage(standin, { text: 'hi' }));
      expect(response.status).toBe(200);
      expect(standin.tokenRequests).toMatchObject([
        { tenant: TEAMS_DEFAULTS.tenantId, clientId: standin.appId, status: 200 },
      ]);
      expect(standin.delivered('replyToActivity')).toHaveLength(1);
    } finally {
      await running.close();
    }
  });

  it('is never reached by the password credentials the SDK builds from configuration alone: MSAL refuses an http login URL', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    standin = await startTeamsStandin({ appId: '7a1b2c3d-0000-4000-8000-000000000005' });
    // No credentials factory: ConfigurationServiceClientCredentialFactory, as from MICROSOFT_APP_PASSWORD.
    const running = await startBot(new ConfigurationBotFrameworkAuthentication(configFor(standin)));
    try {
      const response = await standin.postActivity(running.url, personalMessage(standin, { text: 'hi' }));

      // The activity was authenticated and handled; the reply needed a token and could not get one.
      expect(response.status).toBe(500);
      expect(String(response.body)).toContain('authority_uri_insecure');
      expect(running.bot.received).toHaveLength(1);
      expect(standin.tokenRequests).toEqual([]);
    } finally {
      vi.restoreAllMocks();
      await running.close();
    }
  });

  it('refuses a wrong client secret the way Entra ID does', async () => {
    standin = await startTeamsStandin({ appId: '7a1b2c3d-0000-4000-8000-000000000002' });
    const config = msalConfigurationFor(standin);
    const client = new ConfidentialClientApplication({ ...config, auth: { ...config.auth, clientSecret: 'wrong' } });

    const error = (await client
      .acquireTokenByClientCredential({ scopes: [`${BOT_CONNECTOR_SCOPE}/.default`] })
      .catch((e: unknown) => e)) as { errorCode?: string };

    expect(error.errorCode).toBe('invalid_client');
    expect(standin.tokenRequests).toMatchObject([{ status: 401 }]);
  });

  it('gives a credentials factory whose tokens the Bot Connector stand-in accepts', async () => {
    standin = await startTeamsStandin({ appId: '7a1b2c3d-0000-4000-8000-000000000003' });
    const credentials = (await credentialsFactoryFor(standin).createCredentials(
      standin.appId,
      BOT_CONNECTOR_SCOPE,
      standin.loginUrl,
      true,
    )) as AppCredentials;
    const token = await credentials.getToken();
    const url = `${standin.serviceUrl}v3/conversations/${encodeURIComponent(TEAMS_DEFAULTS.channelId)}/activities`;

    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: '{"type":"message","text":"hi"}',
    });

    expect(response.status).toBe(201);
    expect(standin.delivered('sendToConversation')).toMatchObject([
      { conversationId: TEAMS_DEFAULTS.channelId, activity: { text: 'hi' } },
    ]);
  });
});
