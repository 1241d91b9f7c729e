// A Teams channel bridged with a web channel keeps Teams' conversation shape:
// each case runs once on a channel without a bridge and once on a bridged one,
// on one server, and must come out the same. An agent's answer lands in the
// asker's reply chain as the agent, a reply in that chain reaches the agent,
// the agent's approval card and the done notice of what a listener filed go
// in the asker's reply chain; after a restart the chain still leads to the
// agent. Signed activities in through the real CloudAdapter, the stand-in out.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SYSTEM } from '../../../src/core/actor.ts';
import type { Agent } from '../../../src/core/entities.ts';
import type { Database } from '../../../src/infra/db/client.ts';
import { teamsRuntime } from '../../../src/surfaces/teams/index.ts';
import { chatOf } from '../../../src/surfaces/web/index.ts';
import { pgliteDb, postgresDb } from '../../support/db.ts';
import { botAdded, channelMention, channelMessage, channelMessageEdited } from '../../support/teams/activities.ts';
import { botAccountId, TEAMS_DEFAULTS } from '../../support/teams/defaults.ts';
import { startTeamsStandin, type TeamsStandin } from '../../support/teams/standin.ts';
import { startHarness, type Harness } from '../../support/teams/harness.ts';
import { takenInboxes } from '../../support/server.ts';

const WAIT = { timeout: 20_000, interval: 50 };
const { alice, bob } = TEAMS_DEFAULTS.users;
const PLAIN = TEAMS_DEFAULTS.generalChannelId;
const BRIDGED = TEAMS_DEFAULTS.channelId;

/** Each case: a channel, whether it is bridged with the web #general, and who asks there (unlinked, so a guest). */
const CASES = [
  { name: 'a Teams channel without a bridge', channel: PLAIN, side: 'plain', bridged: false, asker: alice },
  { name: 'a Teams channel bridged with a web channel', channel: BRIDGED, side: 'bridged', bridged: true, asker: bob },
];

describe('reply chains in Teams, with and without a bridge', () => {
  let db: Database;
  let standin: TeamsStandin;
  let h: Harness;
  let triage: Agent;
  let general: string;
  /** Per channel: the asker's first message (the root of its chain) and the conversation the agent answered in. */
  const asked = new Map<string, { root: string; body: string; answeredIn: string }>();

  beforeAll(async () => {
    [db, standin] = await Promise.all([(postgresDb() ?? pgliteDb).open(), startTeamsStandin()]);
    h = await startHarness({ database: db, standin });
    const { app } = h.server;
    expect((await h.post(botAdded(standin, { scope: 'team' }))).status).toBe(200);
    await vi.waitFor(
      async () =>
        expect(await teamsRuntime(app.surfaceModules).references.serviceUrlOf(standin.userTenantId)).not.toBeNull(),
      WAIT,
    );
    await app.bridges.add(SYSTEM, {
      workspace: 'eng',
      channel: 'general',
      to: [{ surface: 'teams', channel: BRIDGED }],
    });
    general = (await app.store.chat.channelByName(h.workspace.id, 'general'))!.conversationId;
    ({ agent: triage } = await app.agents.add(SYSTEM, { name: 'triage', owner: 'alice', displayName: 'Triage' }));
    await app.agents.join(SYSTEM, { agent: 'alice/triage', workspace: 'eng' });
    await app.listening.listen(SYSTEM, 'eng', `teams:${PLAIN}`, 'alice/triage');
    await app.listening.listen(SYSTEM, 'eng', 'general', 'alice/triage');
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  const chain = (channel: string, root: string) => `${channel};messageid=${root}`;
  const send = async (activity: ReturnType<typeof channelMessage>) => {
    expect((await h.post(activity)).status).toBe(200);
    return activity;
  };
  const { got, times } = takenInboxes(() => h);
  /** Our posts (new posts and replies) that contain `text`. */
  const postsWith = (text: string) =>
    standin.delivered('sendToConversation').filter((c) => JSON.stringify(c.activity).includes(text));
  const posted = (text: string) =>
    vi.waitFor(() => {
      const calls = postsWith(text);
      if (!calls.length) throw new Error(`nothing posted to Teams with "${text}" yet`);
      return calls;
    }, WAIT);

  describe.each(CASES)('$name', ({ channel, side, bridged, asker }) => {
    it("posts the agent's answer in the asker's reply chain, as the agent, once, and never takes its echo back", async () => {
      const body = `ask reviewer to check the deploy (${side})`;
      const mention = channelMention(standin, { text: body, from: asker, channelId: channel });
      await send(mention);
      // Teams sends an activity again when it missed our answer.
      await send(mention);
      const item = await got(h.reviewer, body);
      const sent = await h.server.app.messaging.send({
        workspace: h.workspace,
        sender: h.reviewer,
        conversationId: item.conversation.id,
        body: `The deploy looks fine (${side}).`,
      });
      asked.set(channel, { root: mention.id, body, answeredIn: sent.conversation!.id });
      const [answer, ...again] = await posted(`The deploy looks fine (${side}).`);
      expect(again).toEqual([]);
      expect(answer.conversationId).toBe(chain(channel, mention.id));
      expect(answer.activity?.text).toBe(`**Reviewer** (alice/reviewer)\n\nThe deploy looks fine (${side}).`);
      // The first time a guest asks an agent, the link card goes to their personal chat, once.
      const prompts = () =>
        standin.delivered('createConversation').filter((c) => JSON.stringify(c.parameters).includes(asker.id));
      await vi.waitFor(() => expect(prompts()).toHaveLength(1), WAIT);
      if (bridged) {
        const { chat } = chatOf(h.server.app);
        const viewer = await chat.viewer((await h.server.app.store.people.get('alice'))!.id, 'eng');
        const thread = await chat.history(viewer, sent.conversation!.id);
        expect(thread.root).toMatchObject({ body, via: 'Teams' });
        expect((await chat.history(viewer, general)).messages.map((m) => m.body)).not.toContain(
          `The deploy looks fine (${side}).`,
        );
      }
      // Our own post coming back (from the bot's `28:` id) is not taken in.
      await send({
        ...channelMessage(standin, {
          text: String(answer.activity?.text),
          id: answer.createdId,
          channelId: channel,
          threadRootId: mention.id,
        }),
        from: { id: botAccountId(standin.appId), name: TEAMS_DEFAULTS.botName },
      });
    });

    it('delivers a reply in that chain to the agent once, and the listener overhears it', async () => {
      const { root, answeredIn } = asked.get(channel)!;
      const reply = `thanks, also check the logs (${side})`;
      await send(channelMessage(standin, { text: reply, from: asker, channelId: channel, threadRootId: root }));
      const item = await got(h.reviewer, reply);
      expect(item).toMatchObject({ overheard: false, conversation: { id: answeredIn } });
      expect((await got(triage, reply)).overheard).toBe(true);
      // A later reply in the chain is handled after it: everything before reached the agent once.
      const later = `and the metrics (${side})`;
      await send(channelMessage(standin, { text: later, from: asker, channelId: channel, threadRootId: root }));
      await got(h.reviewer, later);
      expect(times(h.reviewer, reply)).toBe(1);
      expect(times(h.reviewer, `The deploy looks fine (${side}).`)).toBe(0);
      expect(times(h.reviewer, asked.get(channel)!.body)).toBe(1);
    });

    it("shows the agent's approval card in the asker's reply chain, once", async () => {
      const { app } = h.server;
      const body = `ask reviewer to roll back version 41 (${side})`;
      const mention = await send(channelMention(standin, { text: body, from: asker, channelId: channel }));
      const item = await got(h.reviewer, body);
      const approval = await app.approvals.request(h.reviewer, h.workspace, {
        title: `Roll back to version 40 (${side})`,
        details: 'Version 41 breaks the export.',
        conversationId: item.conversation.id,
      });
      const [card] = await posted(`Roll back to version 40 (${side})`);
      expect(card.conversationId).toBe(chain(channel, mention.id));
      await vi.waitFor(async () => expect(await app.approvals.views(approval.id, 'teams')).toHaveLength(1), WAIT);
      expect(postsWith(`Roll back to version 40 (${side})`)).toHaveLength(1);
    });

    it('files what a listener overheard as intake, with the Teams link, and tells the asker in their reply chain once it is done', async () => {
      const { app } = h.server;
      const text = `the export button is broken (${side})`;
      const plain = await send(channelMessage(standin, { text, from: asker, channelId: channel }));
      const heard = await got(triage, text);
      expect(heard.overheard).toBe(true);
      const item = await app.intake.file(triage, h.workspace, {
        title: 'Export button broken',
        kind: 'bug',
        summary: text,
        sourceIds: [heard.message.id],
      });
      expect(item.sources).toEqual([
        expect.objectContaining({
          surface: 'teams',
          permalink: expect.stringContaining(`/l/message/${encodeURIComponent(channel)}/${plain.id}`),
        }),
      ]);
      // An edit in Teams follows to what Switchboard stored.
      const edited = `the export button is broken on Safari (${side})`;
      await send(channelMessageEdited(standin, { id: plain.id, text: edited, from: asker, channelId: channel }));
      await vi.waitFor(
        async () => expect((await app.store.messages.get(h.workspace.id, heard.message.id))?.body).toBe(edited),
        WAIT,
      );
      const { told } = await app.intake.update(triage, h.workspace, { id: item.id, status: 'done' });
      expect(told).toBe(1);
      const notices = () =>
        postsWith('the change you asked for is now live').filter((c) => c.conversationId?.startsWith(channel));
      const [notice, ...again] = await vi.waitFor(() => {
        expect(notices().length).toBeGreaterThan(0);
        return notices();
      }, WAIT);
      expect(again).toEqual([]);
      expect(notice.conversationId).toBe(chain(channel, plain.id));
      expect(notice.activity?.text).toMatch(/^\*\*Switchboard\*\* \(/);
      expect(notice.activity?.text).not.toContain('via');
    });
  });

  it('still leads a reply in the chain to the agent after a restart', async () => {
    await h.stop();
    h = await startHarness({ database: db, standin, seed: false });
    for (const { channel, side, asker } of CASES) {
      const { root, answeredIn } = asked.get(channel)!;
      const reply = `one more thing after the restart (${side})`;
      await send(channelMessage(standin, { text: reply, from: asker, channelId: channel, threadRootId: root }));
      expect((await got(h.reviewer, reply)).conversation.id).toBe(answeredIn);
    }
  });
});
