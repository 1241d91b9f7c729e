// People talking to agents from Slack: mentions naming agents, the channel's
// default agent, the slash command, DMs with the agent chosen in App Home, and
// who the message is from (a linked person or a guest).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { count, inArray } from 'drizzle-orm';
import type { Database } from '../../../src/infra/db/client.ts';
import { messages } from '../../../src/infra/db/schema.ts';
import { PICK_AGENT } from '../../../src/surfaces/slack/home.ts';
import { slackRuntime } from '../../../src/app-surfaces.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import type { InboxItem } from '../../../src/core/messaging/message.ts';
import type { Agent } from '../../../src/core/entities.ts';
import { pgliteDb } from '../../support/db.ts';
import { SLACK_DEFAULTS, dmChannelId } from '../../support/slack/defaults.ts';
import {
  appHomeOpened,
  appMention,
  eventCallback,
  fileShare,
  memberJoinedChannel,
  messageIm,
  staticSelectAction,
} from '../../support/slack/signed-request.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import { postCommand, startHarness, type Harness } from '../../support/slack/harness.ts';

const BOT = `<@${SLACK_DEFAULTS.botUserId}>`;
const CAROL = 'U0CAROL01';
const ALICE = 'U0ALICE01';

describe('talking to agents from Slack', () => {
  let db: Database;
  let standin: SlackStandin;
  let h: Harness;
  let tester: Agent;
  const seen = new Map<string, InboxItem[]>();

  /** Waits until `agent` has received a message with this body; keeps everything read on the way. */
  const received = (agent: Agent, body: string) =>
    vi.waitFor(
      async () => {
        const got = seen.get(agent.id) ?? [];
        got.push(...(await h.server.app.messaging.checkInbox(agent, h.workspace, 50)).items);
        seen.set(agent.id, got);
        const found = got.find((i) => i.message.body === body);
        if (!found) throw new Error(`${agent.name} has not received "${body}"`);
        return found;
      },
      { timeout: 20_000, interval: 50 },
    );
  const ephemeralTo = (user: string, contains: string) =>
    vi.waitFor(
      () => {
        const found = standin
          .callsTo('chat.postEphemeral')
          .find((c) => c.args.user === user && String(c.args.text).includes(contains));
        if (!found) throw new Error(`no ephemeral to ${user} containing "${contains}"`);
        return found;
      },
      { timeout: 20_000, interval: 50 },
    );
  const mention = (text: string, user = CAROL, channel = 'C0GENERAL') =>
    h.post(eventCallback(appMention({ user, channel, text: `${BOT} ${text}` })));
  const command = (text: string, channel = 'C0GENERAL', user = CAROL) =>
    postCommand(h, standin, { command: '/switchboard', text, user_id: user, channel_id: channel });

  beforeAll(async () => {
    [db, standin] = await Promise.all([pgliteDb.open(), startSlackStandin()]);
    standin.setUser(CAROL, { real_name: 'Carol Chen', display_name: 'carol', email: 'carol@example.test' });
    standin.setUser(ALICE, { real_name: 'Alice Adams', email: 'alice@example.test' });
    h = await startHarness({ database: db, standin, seed: true });
    const { app } = h.server;
    await app.orgs.addPerson(SYSTEM, { handle: 'bob', org: 'acme' });
    for (const [owner, name] of [
      ['alice', 'builder'],
      ['bob', 'builder'],
      ['bob', 'tester'],
    ] as const) {
      await app.agents.add(SYSTEM, { name, owner, displayName: name[0].toUpperCase() + name.slice(1) });
      await app.agents.join(SYSTEM, { agent: `${owner}/${name}`, workspace: 'eng' });
    }
    tester = (await app.store.agents.byQualifiedName('bob', 'tester'))!;
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  describe('mentions', () => {
    it('deliver to every agent named, from the Slack user as a guest with their identity', async () => {
      expect((await mention('@reviewer and @bob/tester please check the release notes')).status).toBe(200);
      const body = '@reviewer and @bob/tester please check the release notes';
      const [forReviewer, forTester] = await Promise.all([received(h.reviewer, body), received(tester, body)]);
      expect(forReviewer.conversation.id).toBe(forTester.conversation.id);
      expect(forReviewer.sender.name).toBe('guest');
      const identity = await slackRuntime(h.server.app).identities.get(forReviewer.asker.identityId!);
      expect(identity).toMatchObject({
        surface: 'slack',
        tenantId: SLACK_DEFAULTS.teamId,
        externalUserId: CAROL,
        displayName: 'carol',
        email: 'carol@example.test',
        personId: null,
      });
    });

    it('from a linked person come from their own person agent', async () => {
      const rt = slackRuntime(h.server.app);
      const identity = await rt.identities.upsert({
        surface: 'slack',
        tenantId: SLACK_DEFAULTS.teamId,
        externalUserId: ALICE,
      });
      const alice = (await h.server.app.store.people.get('alice'))!;
      expect(await rt.identities.link(identity.id, alice.id, new Date())).not.toBeNull();
      await mention('@reviewer this is Alice, linked', ALICE);
      const item = await received(h.reviewer, '@reviewer this is Alice, linked');
      expect(item.sender).toMatchObject({ kind: 'person', name: 'alice' });
      expect(item.asker).toMatchObject({ personId: alice.id, handle: 'alice', identityId: identity.id });
    });

    it('naming an unknown agent get an ephemeral reply with the closest names, and nothing is sent', async () => {
      await mention('@reviewr can you look?');
      const reply = await ephemeralTo(CAROL, '@reviewr');
      expect(reply.args.text).toContain('did you mean `@reviewer`');
      await mention('@builder build it');
      const ambiguous = await ephemeralTo(CAROL, '@builder');
      expect(ambiguous.args.text).toContain('alice/builder');
      expect(ambiguous.args.text).toContain('bob/builder');
      const [stored] = await db.db
        .select({ n: count() })
        .from(messages)
        .where(inArray(messages.body, ['@reviewr can you look?', '@builder build it']));
      expect(Number(stored.n)).toBe(0);
    });

    it("naming nobody list the agents, or go to the channel's default agent once one is set", async () => {
      await mention('can someone help?', CAROL, 'C0RANDOM');
      const list = await ephemeralTo(CAROL, 'Name the agent you want');
      expect(list.args).toMatchObject({ channel: 'C0RANDOM' });
      expect(list.args.text).toContain('`@reviewer` — Reviewer: reviews pull requests');

      const set = await command('default tester', 'C0RANDOM');
      expect(await set.json()).toMatchObject({
        response_type: 'in_channel',
        text: expect.stringContaining('*Tester*'),
      });
      await mention('can someone help now?', CAROL, 'C0RANDOM');
      await received(tester, 'can someone help now?');
    });

    it('can be found again with search, with the Slack permalink', async () => {
      await mention('@reviewer the flaky checkout test again');
      await received(h.reviewer, '@reviewer the flaky checkout test again');
      const hits = await h.server.app.messaging.search(h.reviewer, h.workspace, { text: 'flaky checkout', limit: 5 });
      expect(hits[0].message.permalink).toMatch(/^https:\/\/switchboard-test\.slack\.com\/archives\/C0GENERAL\/p\d+/);
    });

    it('are refused with a reason when the workspace requires linked accounts', async () => {
      await h.server.app.store.workspaces.update(h.workspace.id, { requireLinking: true });
      try {
        await mention('@reviewer guests are not allowed here');
        await ephemeralTo(CAROL, 'linked their Slack account');
      } finally {
        await h.server.app.store.workspaces.update(h.workspace.id, { requireLinking: false });
      }
      await mention('@reviewer guests are welcome again');
      const inbox = await received(h.reviewer, '@reviewer guests are welcome again');
      expect(seen.get(h.reviewer.id)!.map((i) => i.message.body)).not.toContain(
        '@reviewer guests are not allowed here',
      );
      expect(inbox).toBeDefined();
    });
  });

  it('introduces itself when added to a channel, and not when someone else joins', async () => {
    await h.post(eventCallback(memberJoinedChannel({ user: 'U0SOMEONE', channel: 'C0NEWCHAN' })));
    await h.post(
      eventCallback(memberJoinedChannel({ user: SLACK_DEFAULTS.botUserId, channel: 'C0NEWCHAN', inviter: CAROL })),
    );
    await vi.waitFor(
      () =>
        expect(standin.messages('C0NEWCHAN').map((m) => m.text)).toEqual([
          expect.stringContaining('Mention me and name an agent'),
        ]),
      { timeout: 20_000, interval: 50 },
    );
  });

  describe('the slash command', () => {
    it('sends to the agent named first, posting the request in the channel as the thread it answers in', async () => {
      const started = Date.now();
      const res = await command('reviewer look at #418');
      expect(res.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(3000);
      const item = await received(h.reviewer, 'look at #418');
      const request = standin.callsTo('chat.postMessage').find((c) => String(c.args.text).includes('look at #418'))!;
      expect(request.args).toMatchObject({
        channel: 'C0GENERAL',
        text: `<@${CAROL}> asked *Reviewer* (\`@reviewer\`): look at #418`,
      });
      await h.server.app.messaging.send({
        workspace: h.workspace,
        sender: h.reviewer,
        conversationId: item.conversation.id,
        body: 'On #418.',
      });
      await vi.waitFor(
        () =>
          expect(standin.messages('C0GENERAL').find((m) => m.text === 'On #418.')).toMatchObject({
            thread_ts: (request.response as { ts: string }).ts,
            username: 'Reviewer',
          }),
        { timeout: 20_000, interval: 50 },
      );
    });

    it('reads the request like a message: a channel without a label by its name', async () => {
      standin.setChannel('C0RELEASE1', { name: 'releases' });
      expect((await command('reviewer ship it in <#C0RELEASE1> &amp; *say so*')).status).toBe(200);
      await received(h.reviewer, 'ship it in #releases & **say so**');
    });

    it('posts a long request whole in the channel, in sections Slack accepts, not just its notification', async () => {
      const body = `${Array.from({ length: 60 }, (_v, i) => `Check endpoint ${i} of the billing API for timeouts and retries.`).join(' ')}\n\nLAST: page the on-call if any fail.`;
      expect(body.length).toBeGreaterThan(3000);
      expect((await command(`reviewer ${body}`)).status).toBe(200);
      await received(h.reviewer, body);
      const request = standin
        .callsTo('chat.postMessage')
        .find((c) => String(c.args.text).includes('Check endpoint 0 of the billing API'))!;
      expect(String(request.args.text)).toMatch(new RegExp(`^<@${CAROL}> asked \\*Reviewer\\*`));
      expect(request.args.blocks, 'the request is posted in sections').toBeInstanceOf(Array);
      const sections = (request.args.blocks as Array<{ text: { text: string } }>).map((b) => b.text.text);
      for (const text of sections) expect(text.length).toBeLessThanOrEqual(3000);
      expect(sections[0]).toMatch(
        new RegExp(`^<@${CAROL}> asked \\*Reviewer\\* \\(\`@reviewer\`\\): Check endpoint 0`),
      );
      expect(sections.join('\n')).toContain('Check endpoint 59 of the billing API');
      expect(sections.at(-1)).toContain('LAST: page the on-call if any fail.');
    });

    it('lists the agents, explains itself, and refuses unknown agents, all only to the person asking', async () => {
      expect(await (await command('agents')).json()).toMatchObject({
        response_type: 'ephemeral',
        text: expect.stringContaining('`@tester` — Tester'),
      });
      expect(await (await command('help')).json()).toMatchObject({
        response_type: 'ephemeral',
        text: expect.stringContaining('/switchboard agents'),
      });
      expect(await (await command('nobody hello')).json()).toMatchObject({
        response_type: 'ephemeral',
        text: expect.stringContaining('There is no agent `@nobody`'),
      });
      expect(await (await command('reviewer')).json()).toMatchObject({
        text: expect.stringContaining('Write what you want to tell Reviewer'),
      });
    });
  });

  describe('DMs and the App Home tab', () => {
    const DAN = 'U0DAN0001';

    it('publishes a picker of the agents in the Home tab', async () => {
      standin.setUser(DAN, { real_name: 'Dan Doe' });
      await h.post(eventCallback(appHomeOpened({ user: DAN })));
      const view = await vi.waitFor(
        () => {
          const v = standin.homeView(DAN);
          if (!v) throw new Error('no home view yet');
          return v as { blocks: Array<{ accessory?: { action_id: string; options: Array<{ value: string }> } }> };
        },
        { timeout: 20_000, interval: 50 },
      );
      const picker = view.blocks.find((b) => b.accessory?.action_id === PICK_AGENT)!.accessory!;
      expect(picker.options.map((o) => o.value)).toContain(h.reviewer.id);
      expect(picker.options.map((o) => o.value)).toContain(tester.id);
    });

    it('asks a person who has not chosen to pick an agent before their DM goes anywhere', async () => {
      await h.post(eventCallback(messageIm({ user: DAN, text: 'hello?' })));
      await vi.waitFor(
        () =>
          expect(
            standin.messages(dmChannelId(DAN)).find((m) => String(m.text).startsWith('Choose the agent')),
          ).toBeDefined(),
        { timeout: 20_000, interval: 50 },
      );
    });

    it('saves the choice, says so in the DM, and sends DMs to the chosen agent, whose answer lands in the DM', async () => {
      const res = await h.post(
        staticSelectAction({ user: DAN, action_id: PICK_AGENT, selected: { value: tester.id, text: 'Tester' } }),
      );
      expect(res.status).toBe(200);
      await vi.waitFor(
        () =>
          expect(
            standin.messages(dmChannelId(DAN)).find((m) => String(m.text).includes('You are now talking to *Tester*')),
          ).toBeDefined(),
        { timeout: 20_000, interval: 50 },
      );
      expect(
        await h.server.app.store.defaultAgents.get({
          surface: 'slack',
          tenantId: SLACK_DEFAULTS.teamId,
          scope: 'user',
          scopeId: DAN,
        }),
      ).toBe(tester.id);
      const republished = standin.homeView(DAN) as {
        blocks: Array<{ accessory?: { initial_option?: { value: string } } }>;
      };
      expect(republished.blocks.find((b) => b.accessory)?.accessory?.initial_option?.value).toBe(tester.id);

      await h.post(eventCallback(messageIm({ user: DAN, text: 'can you run the smoke tests?' })));
      const item = await received(tester, 'can you run the smoke tests?');
      expect(item.conversation.title).toBe('Slack DM with Dan Doe');
      await h.server.app.messaging.send({
        workspace: h.workspace,
        sender: tester,
        conversationId: item.conversation.id,
        body: 'Smoke tests are green.',
      });
      await vi.waitFor(
        () => {
          const answer = standin.messages(dmChannelId(DAN)).find((m) => m.text === 'Smoke tests are green.');
          expect(answer).toMatchObject({ username: 'Tester' });
          expect(answer?.thread_ts).toBeUndefined();
        },
        { timeout: 20_000, interval: 50 },
      );
    });

    it('sends a DM with a file attached (file_share) to the chosen agent as its text, and a file with no text nowhere', async () => {
      const dm = dmChannelId(DAN);
      const postedBefore = standin.messages(dm).length;
      await h.post(eventCallback(fileShare({ user: DAN, channel: dm, channel_type: 'im', text: '' })));
      await h.post(
        eventCallback(
          fileShare({
            user: DAN,
            channel: dm,
            channel_type: 'im',
            text: 'the checkout page looks broken, see the screenshot',
          }),
        ),
      );
      // One DM's requests are handled in order: once the second arrived, the first was handled.
      const item = await received(tester, 'the checkout page looks broken, see the screenshot');
      expect(item.conversation.title).toBe('Slack DM with Dan Doe');
      expect(seen.get(tester.id)!.filter((i) => i.message.body.trim() === '')).toHaveLength(0);
      expect(standin.messages(dm)).toHaveLength(postedBefore);
    });
  });
});
