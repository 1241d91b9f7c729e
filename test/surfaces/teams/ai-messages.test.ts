// Agents' messages in Teams as AI-written messages: Teams' AI label, the
// agent's sources as citations, and the feedback buttons, whose answer (a
// `message/submitAction` invoke) reaches the agent's inbox.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import type { InboxItem } from '../../../src/core/messaging/message.ts';
import { pgliteDb } from '../../support/db.ts';
import { feedbackSubmit } from '../../support/teams/activities.ts';
import { TEAMS_DEFAULTS } from '../../support/teams/defaults.ts';
import { startTeamsStandin, type TeamsStandin, type WireActivity } from '../../support/teams/standin.ts';
import {
  askPersonally,
  chooseReviewer,
  inbox,
  mentionAndReceive,
  startHarness,
  type Harness,
} from '../../support/teams/harness.ts';

const AI_LABEL = {
  type: 'https://schema.org/Message',
  '@type': 'Message',
  '@context': 'https://schema.org',
  additionalType: ['AIGeneratedContent'],
};

describe("agents' messages in Teams as AI-written messages", () => {
  let db: Database;
  let standin: TeamsStandin;
  let h: Harness;

  beforeAll(async () => {
    [db, standin] = await Promise.all([pgliteDb.open(), startTeamsStandin()]);
    h = await startHarness({ database: db, standin });
    // The personal chat's messages go to the agent chosen there.
    await chooseReviewer(h, standin);
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  /** The agent answers in the conversation of `item`; resolves with the message stored and the activity Teams got. */
  async function answer(item: InboxItem, body: string, conversationId: string) {
    const sent = await h.server.app.messaging.send({
      workspace: h.workspace,
      sender: h.reviewer,
      conversationId: item.conversation.id,
      body,
    });
    const stored = await vi.waitFor(async () => {
      const m = await h.server.app.store.messages.get(h.workspace.id, sent.message!.id);
      expect(m?.externalId).toBeTruthy();
      return m!;
    });
    const activity = standin.activity(conversationId, stored.externalId!) as WireActivity;
    return { stored, activity };
  }

  /** Waits for a notice in the reviewer's inbox containing `text`. */
  function notice(text: string): Promise<InboxItem> {
    const seen: InboxItem[] = [];
    return vi.waitFor(async () => {
      seen.push(...(await inbox(h)));
      const found = seen.find((i) => i.message.body.includes(text));
      if (!found) throw new Error('no such notice yet');
      return found;
    });
  }

  it("labels an agent's answer as AI-generated, asks for feedback, and cites the sources it names", async () => {
    const { item, conversationId } = await askPersonally(h, standin, 'when did the outage start?');
    const { activity } = await answer(
      item,
      'It started at 09:12 [1] and the fix went out at 09:40 [2].\n\n' +
        '[1]: https://status.example.test/incidents/42 "Incident 42"\n' +
        '[2]: https://ci.example.test/runs/7',
      conversationId,
    );
    expect(activity.text).toBe(
      '**Reviewer** (alice/reviewer)\n\nIt started at 09:12 [1] and the fix went out at 09:40 [2].',
    );
    expect(activity.entities).toEqual([
      {
        ...AI_LABEL,
        citation: [
          {
            '@type': 'Claim',
            position: 1,
            appearance: {
              '@type': 'DigitalDocument',
              name: 'Incident 42',
              url: 'https://status.example.test/incidents/42',
            },
          },
          {
            '@type': 'Claim',
            position: 2,
            appearance: {
              '@type': 'DigitalDocument',
              name: 'ci.example.test/runs/7',
              url: 'https://ci.example.test/runs/7',
            },
          },
        ],
      },
    ]);
    expect(activity.channelData).toMatchObject({ feedbackLoopEnabled: true, feedbackLoop: { type: 'default' } });
  });

  it("labels a streamed answer's final message too", async () => {
    const { item } = await askPersonally(h, standin, 'summarise the week');
    const { app } = h.server;
    const started = await app.live.start({
      workspace: h.workspace,
      sender: h.reviewer,
      conversationId: item.conversation.id,
      surface: 'mcp',
      text: 'Three releases ',
    });
    await app.live.finish(h.workspace, h.reviewer, started.streamId, 'and no outage.');
    const final = await vi.waitFor(() => {
      const c = standin.calls.find(
        (x) =>
          (x.activity?.channelData as { streamType?: string } | undefined)?.streamType === 'final' &&
          JSON.stringify(x.activity).includes('no outage'),
      );
      expect(c?.status).toBe(201);
      return c!.activity!;
    });
    expect(final.entities).toEqual([AI_LABEL]);
    expect(final.channelData).toMatchObject({ streamType: 'final', feedbackLoopEnabled: true });
  });

  it("hands a person's 👎 and what they wrote to the agent, as a notice naming the message", async () => {
    const { item, activity: mention } = await mentionAndReceive(h, standin, 'explain the outage');
    const reply = `${mention.conversation.id};messageid=${mention.id}`;
    const { stored } = await answer(item, 'It was DNS.', reply);
    const res = await h.post(
      feedbackSubmit(standin, {
        messageId: stored.externalId!,
        reaction: 'dislike',
        text: 'It was the load balancer, not DNS.',
        place: { kind: 'channel', threadRootId: mention.id },
      }),
    );
    // Teams takes nothing but an empty 200 for this invoke.
    expect(res).toEqual({ status: 200, body: {} });
    const got = await notice(stored.id);
    expect(got.sender.name).toBe('switchboard');
    expect(got.message.body).toBe(
      `${TEAMS_DEFAULTS.users.alice.name} marked your message ${stored.id} in Teams as not helpful (👎) and wrote: ` +
        `"It was the load balancer, not DNS."\n\n(Conversation ${item.conversation.id}.)`,
    );

    // A 👍 without words; feedback on what is not an agent's answer reaches nobody.
    await h.post(
      feedbackSubmit(standin, {
        messageId: stored.externalId!,
        reaction: 'like',
        place: { kind: 'channel', threadRootId: mention.id },
      }),
    );
    expect((await notice(`${stored.id} in Teams as helpful`)).message.body).toContain('as helpful (👍).');
    const unknown = await h.post(feedbackSubmit(standin, { messageId: '1700000000999', reaction: 'like' }));
    expect(unknown).toEqual({ status: 200, body: {} });
    expect((await inbox(h)).filter((i) => i.message.body.includes('1700000000999'))).toEqual([]);
  });
});
