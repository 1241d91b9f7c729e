// People talk to agents from Teams through the real CloudAdapter and its Bot
// Framework authentication; agents answer in the same chat or reply chain,
// under their own name and avatar.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import { pgliteDb } from '../../support/db.ts';
import {
  adaptiveCardAction,
  cardSubmit,
  channelMention,
  groupChatMessage,
  personalMessage,
} from '../../support/teams/activities.ts';
import { TEAMS_DEFAULTS } from '../../support/teams/defaults.ts';
import {
  startTeamsStandin,
  type PostActivityOptions,
  type TeamsStandin,
  type WireActivity,
} from '../../support/teams/standin.ts';
import { inbox, mentionAndReceive, startHarness, type Harness } from '../../support/teams/harness.ts';

const card = (a: WireActivity | undefined) =>
  (a?.attachments as Array<{ contentType: string; content: Record<string, unknown> }> | undefined)?.[0];

/** A JWT with this header and Bot Framework-like claims, and `signature` as its third part. */
const jwtWith = (header: Record<string, unknown>, signature = '') => {
  const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  return `${part(header)}.${part({ iss: 'https://api.botframework.com', aud: 'x', exp: now + 600, nbf: now - 60 })}.${signature}`;
};

describe('talking to agents from Teams', () => {
  let db: Database;
  let standin: TeamsStandin;
  let h: Harness;

  beforeAll(async () => {
    [db, standin] = await Promise.all([pgliteDb.open(), startTeamsStandin()]);
    h = await startHarness({ database: db, standin });
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  it('delivers a channel mention to the agent named, and posts its answer in the same reply chain under its name', async () => {
    const { item, activity } = await mentionAndReceive(h, standin);
    expect(item.conversation).toMatchObject({ surface: 'teams', kind: 'external' });
    expect(item.conversation.permalink).toContain(
      `https://teams.microsoft.com/l/message/${encodeURIComponent(TEAMS_DEFAULTS.channelId)}/${activity.id}`,
    );
    expect(item.sender.displayName).toBe('Guest');
    expect(item.message.askerIdentityId).not.toBeNull();

    const sent = await h.server.app.messaging.send({
      workspace: h.workspace,
      sender: h.reviewer,
      conversationId: item.conversation.id,
      body: 'PR 12 looks good.',
    });

    const post = await vi.waitFor(
      () => {
        const found = standin
          .delivered('sendToConversation')
          .find((c) => JSON.stringify(c.activity).includes('PR 12 looks good.'));
        expect(found).toBeDefined();
        return found!;
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(post.conversationId).toBe(activity.conversation.id);
    // A plain answer is markdown text under the agent's one-line header (cards: message-format.test.ts).
    expect(post.activity).toMatchObject({
      textFormat: 'markdown',
      text: '**Reviewer** (alice/reviewer)\n\nPR 12 looks good.',
    });
    const stored = await vi.waitFor(
      async () => {
        const m = await h.server.app.store.messages.get(h.workspace.id, sent.message!.id);
        expect(m?.externalId).toBe(post.createdId);
        return m!;
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(stored.permalink).toContain(`parentMessageId=${activity.id}`);
  });

  it('asks a personal chat to choose an agent first, then sends there to the chosen one', async () => {
    const first = personalMessage(standin, { text: 'hello there' });
    expect((await h.post(first)).status).toBe(200);
    const picker = await vi.waitFor(
      () => {
        const found = standin.delivered('replyToActivity').find((c) => c.conversationId === first.conversation.id);
        expect(found).toBeDefined();
        return found!;
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(JSON.stringify(card(picker.activity)?.content)).toContain('Input.ChoiceSet');
  });
});

describe('the personal chat, group chats and refusals', () => {
  let db: Database;
  let standin: TeamsStandin;
  let h: Harness;

  beforeAll(async () => {
    [db, standin] = await Promise.all([pgliteDb.open(), startTeamsStandin()]);
    h = await startHarness({ database: db, standin });
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  const repliesTo = (id: string) => standin.delivered('replyToActivity').filter((c) => c.activityId === id);

  it('sets the agent of the personal chat from the picker card, saved per user, and the agent answers there', async () => {
    const click = adaptiveCardAction(standin, {
      verb: 'chooseAgent',
      data: { sb: 'pickAgent', agentId: h.reviewer.id },
      cardActivityId: '1760000000200',
    });
    const picked = await h.post(click);
    expect(picked).toMatchObject({
      status: 200,
      body: { statusCode: 200, type: 'application/vnd.microsoft.card.adaptive' },
    });
    expect(JSON.stringify(picked.body)).toContain('You are now talking to **Reviewer**');

    const hello = personalMessage(standin, { text: 'what changed in PR 7?' });
    expect((await h.post(hello)).status).toBe(200);
    const item = await vi.waitFor(
      async () => {
        const found = (await inbox(h)).find((i) => i.message.body === 'what changed in PR 7?');
        expect(found).toBeDefined();
        return found!;
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(item.conversation).toMatchObject({ surface: 'teams', title: 'Teams DM with Alice Martin' });
    await h.server.app.messaging.send({
      workspace: h.workspace,
      sender: h.reviewer,
      conversationId: item.conversation.id,
      body: 'Two files.',
    });
    await vi.waitFor(
      () =>
        expect(
          standin.conversationActivities(hello.conversation.id).some((a) => JSON.stringify(a).includes('Two files.')),
        ).toBe(true),
      { timeout: 20_000, interval: 50 },
    );
  });

  it('answers the Action.Submit fallback of the picker with its card, which says so when the agent chosen has left', async () => {
    const { app } = h.server;
    const { bob } = TEAMS_DEFAULTS.users;
    await app.agents.add(SYSTEM, { name: 'helper', owner: 'alice', displayName: 'Helper' });
    await app.agents.join(SYSTEM, { agent: 'alice/helper', workspace: 'eng' });
    const helper = (await app.store.agents.byQualifiedName('alice', 'helper'))!;
    await app.agents.remove(SYSTEM, 'alice/helper');
    // What an older client sends from the picker card: its Action.Submit data, the verb and the chosen input merged in.
    const submit = cardSubmit(standin, {
      from: bob,
      cardActivityId: '1760000000300',
      data: { sb: 'pickAgent', verb: 'chooseAgent', agentId: helper.id },
    });
    expect((await h.post(submit)).status).toBe(200);
    const [answer] = await vi.waitFor(
      () => {
        const found = repliesTo(submit.id);
        expect(found).toHaveLength(1);
        return found;
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(card(answer!.activity)?.contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(JSON.stringify(answer!.activity)).toContain('That agent is no longer in this workspace; choose another.');
    expect(JSON.stringify(answer!.activity)).not.toContain('Done:');
    expect(
      await app.store.defaultAgents.get({
        surface: 'teams',
        tenantId: standin.userTenantId,
        scope: 'user',
        scopeId: bob.aadObjectId,
      }),
    ).toBeNull();
  });

  it('delivers a group chat mention naming @reviewer, and lists agents on "agents"', async () => {
    const mention = groupChatMessage(standin, { text: '@reviewer summarize the thread' });
    expect((await h.post(mention)).status).toBe(200);
    await vi.waitFor(
      async () => expect((await inbox(h)).some((i) => i.message.body === '@reviewer summarize the thread')).toBe(true),
      { timeout: 20_000, interval: 50 },
    );

    const agents = groupChatMessage(standin, { text: 'agents' });
    await h.post(agents);
    await vi.waitFor(
      () => expect(JSON.stringify(repliesTo(agents.id))).toContain('**reviewer** — Reviewer: reviews pull requests'),
      { timeout: 20_000, interval: 50 },
    );
  });

  it('answers a mention naming nobody, or an unknown agent, with the agents to choose from', async () => {
    const nobody = channelMention(standin, { text: 'can someone look at this?' });
    const unknown = channelMention(standin, { text: 'ask reviewr to look' });
    await h.post(nobody);
    await h.post(unknown);
    await vi.waitFor(
      () => {
        expect(JSON.stringify(repliesTo(nobody.id))).toContain('Name the agent you want');
        expect(JSON.stringify(repliesTo(unknown.id))).toContain(
          'There is no agent \\"reviewr\\" in this workspace; did you mean \\"reviewer\\"?',
        );
      },
      { timeout: 20_000, interval: 50 },
    );
  });

  it('handles an activity Teams delivers twice once', async () => {
    const mention = channelMention(standin, { text: 'ask reviewer to count this once' });
    expect((await h.post(mention)).status).toBe(200);
    expect((await h.post(mention)).status).toBe(200);
    // Activities of one conversation (here the reply chain the mention started) are handled in the order received:
    // once a later one has arrived, a doubled earlier one would have arrived too.
    const marker = channelMention(standin, { text: 'ask reviewer to note this marker', threadRootId: mention.id });
    expect((await h.post(marker)).status).toBe(200);
    const seen: string[] = [];
    await vi.waitFor(
      async () => {
        seen.push(...(await inbox(h)).map((i) => i.message.body));
        expect(seen).toContain('ask reviewer to note this marker');
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(seen.filter((b) => b === 'ask reviewer to count this once')).toHaveLength(1);
  });

  it('refuses with 400, not a 503 to be sent again, an activity whose id cannot be stored (a NUL character)', async () => {
    for (const activity of [
      channelMention(standin, { text: 'ask reviewer to store this', id: 'a\u0000b' }),
      adaptiveCardAction(standin, { verb: 'approve', cardActivityId: '1:card', id: '\u0000' }),
    ]) {
      const res = await h.post(activity);
      expect(res.status, activity.type).toBe(400);
      expect(res.body).toMatchObject({
        error: { code: 'INVALID_INPUT', message: expect.stringMatching(/cannot be stored: key contains a NUL/) },
      });
    }
  });

  it('tells a tenant that is not connected how to connect it', async () => {
    const other = { ...standin, userTenantId: '0b0e2c4d-1111-4222-8333-444455556666' };
    const mention = channelMention(other, { text: 'ask reviewer to look' });
    expect((await h.post(mention)).status).toBe(200);
    await vi.waitFor(
      () =>
        expect(JSON.stringify(repliesTo(mention.id))).toContain(
          'switchboard teams connect WORKSPACE --tenant-id 0b0e2c4d-1111-4222-8333-444455556666',
        ),
      { timeout: 20_000, interval: 50 },
    );
  });

  describe('refuses every request whose token is not valid with 401, before anything happens', () => {
    const cases: Array<[string, PostActivityOptions]> = [
      ['no Authorization header', { authorization: null }],
      ['an empty bearer token', { authorization: 'Bearer ' }],
      ['a token expired beyond the five-minute tolerance', { expired: true }],
      ['a token for another app id', { audience: '00000000-0000-0000-0000-000000000000' }],
      ['a token from another issuer', { issuer: 'https://sts.windows.net/attacker/' }],
      ['a token for another serviceUrl', { serviceUrl: 'https://attacker.example/teams/' }],
      ['a token signed by an unpublished key', { wrongKey: true, kid: 'not-a-published-key' }],
      ['a forged token under the published key id', { wrongKey: true }],
      ['a token not valid for another hour', { claims: { nbf: Math.floor(Date.now() / 1000) + 3600 } }],
      ['an unsigned token (alg: none)', { authorization: `Bearer ${jwtWith({ alg: 'none', typ: 'JWT' })}` }],
      ['a token signed with a shared secret (HS256)', { authorization: `Bearer ${jwtWith({ alg: 'HS256' }, 'sig')}` }],
      ['a token naming no signing key', { authorization: `Bearer ${jwtWith({ alg: 'RS256' }, 'sig')}` }],
      ['a bearer value that is no JWT', { authorization: 'Bearer %%%.not.json' }],
    ];

    it.each(cases)('%s', async (_name, options) => {
      vi.spyOn(console, 'error').mockImplementation(() => undefined);
      try {
        const before = standin.calls.length;
        const activity = channelMention(standin, { text: `ask reviewer to do ${_name}` });
        const fetched = standin.requests.length;
        expect((await h.post(activity, options)).status).toBe(401);
        expect(standin.calls.length).toBe(before);
        // Refused from the header alone: no signing key was fetched for these.
        if (options.authorization) expect(standin.requests.length).toBe(fetched);
        expect((await inbox(h)).some((i) => i.message.body.includes(_name))).toBe(false);
      } finally {
        vi.restoreAllMocks();
      }
    });
  });
});
