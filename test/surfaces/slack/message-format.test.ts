// Markdown both ways through the real Bolt app and the Slack Web API stand-in:
// what a person writes in Slack reaches the agent as Markdown with names, and
// what the agent writes in Markdown reaches chat.postMessage as mrkdwn.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import type { InboxItem } from '../../../src/core/messaging/message.ts';
import { pgliteDb } from '../../support/db.ts';
import { SLACK_DEFAULTS } from '../../support/slack/defaults.ts';
import { appMention, eventCallback } from '../../support/slack/payloads.ts';
import { startSlackStandin, type SlackStandin } from '../../support/slack/web-api-standin.ts';
import { inbox, startHarness, type Harness } from '../../support/slack/harness.ts';

describe('the message format between Slack and agents', () => {
  let db: Database;
  let standin: SlackStandin;
  let h: Harness;
  const seen: InboxItem[] = [];
  const received = (body: string) =>
    vi.waitFor(
      async () => {
        seen.push(...(await inbox(h)));
        const found = seen.find((i) => i.message.body === body);
        if (!found) throw new Error(`not received yet: ${body}`);
        return found;
      },
      { timeout: 10_000 },
    );

  beforeAll(async () => {
    [db, standin] = await Promise.all([pgliteDb.open(), startSlackStandin()]);
    standin.setUser('U0CAROL01', { real_name: 'Carol Chen', display_name: 'carol' });
    standin.setUser('U0DAN0001', { real_name: 'Dan Diaz', display_name: 'Dan' });
    standin.setChannel('C0GENERAL', { name: 'general' });
    standin.setChannel('C0DEPLOYS1', { name: 'deploys' });
    standin.setChannel('C0SECRET1', { name: 'acquisition-talks', is_private: true });
    h = await startHarness({ database: db, standin, seed: true });
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  it('gives the agent Markdown with names for people, channels and links', async () => {
    const text = `<@${SLACK_DEFAULTS.botUserId}> @reviewer ask <@U0DAN0001> about <https://x.test/pr?id=12&amp;v=2|PR 12> in <#C0RANDOM1|random>: *urgent*, 1 &lt; 2`;
    expect((await h.post(eventCallback(appMention({ user: 'U0CAROL01', channel: 'C0GENERAL', text })))).status).toBe(
      200,
    );
    await received('@reviewer ask @Dan about [PR 12](https://x.test/pr?id=12&v=2) in #random: **urgent**, 1 < 2');
  });

  it('gives the agent a message shared into the mention, as a quote under its author', async () => {
    const shared = {
      is_share: true,
      is_msg_unfurl: true,
      author_id: 'U0DAN0001',
      author_name: 'Dan',
      channel_id: 'C0DEPLOYS1',
      ts: '1724966776.474889',
      from_url: 'https://acme.slack.com/archives/C0DEPLOYS1/p1724966776474889',
      text: 'ERROR: connection refused to db-7',
      mrkdwn_in: ['text'],
    };
    const text = `<@${SLACK_DEFAULTS.botUserId}> @reviewer what does this error mean?`;
    await h.post(
      eventCallback(appMention({ user: 'U0CAROL01', channel: 'C0GENERAL', text, extra: { attachments: [shared] } })),
    );
    await received('@reviewer what does this error mean?\n\n> **Dan** wrote:\n>\n> ERROR: connection refused to db-7');
  });

  it('names channels referred to without a label through conversations.info, asked once, and never a private one', async () => {
    const text = `<@${SLACK_DEFAULTS.botUserId}> @reviewer <!here> post in <#C0DEPLOYS1> and <#C0GENERAL|>, not <#C0SECRET1>; cc <!subteam^S0ENG1> <!channel>`;
    await h.post(eventCallback(appMention({ user: 'U0CAROL01', channel: 'C0GENERAL', text })));
    await received('@reviewer @here post in #deploys and #general, not #C0SECRET1; cc @group(S0ENG1) @channel');
    await h.post(
      eventCallback(
        appMention({
          user: 'U0CAROL01',
          channel: 'C0GENERAL',
          text: `<@${SLACK_DEFAULTS.botUserId}> @reviewer again in <#C0DEPLOYS1>`,
        }),
      ),
    );
    await received('@reviewer again in #deploys');
    const asked = standin.callsTo('conversations.info').map((c) => c.args.channel);
    expect(asked.filter((c) => c === 'C0DEPLOYS1')).toHaveLength(1);
    expect(asked.sort()).toEqual(['C0DEPLOYS1', 'C0GENERAL', 'C0SECRET1']);
  });

  it('reads the rich_text block of a message in preference to its text', async () => {
    const blocks = [
      {
        type: 'rich_text',
        block_id: 'Xy1',
        elements: [
          {
            type: 'rich_text_section',
            elements: [
              { type: 'user', user_id: SLACK_DEFAULTS.botUserId },
              { type: 'text', text: ' @reviewer see ' },
              { type: 'text', text: 'this', style: { bold: true } },
              { type: 'text', text: ' from ' },
              { type: 'user', user_id: 'U0DAN0001' },
            ],
          },
        ],
      },
    ];
    const text = `<@${SLACK_DEFAULTS.botUserId}> @reviewer see *this* from <@U0DAN0001>`;
    await h.post(eventCallback(appMention({ user: 'U0CAROL01', channel: 'C0GENERAL', text, extra: { blocks } })));
    await received('@reviewer see **this** from @Dan');
  });

  it("posts the agent's Markdown as Slack mrkdwn, escaped", async () => {
    const item = await received('@reviewer see **this** from @Dan');
    await h.server.app.messaging.send({
      workspace: h.workspace,
      sender: h.reviewer,
      conversationId: item.conversation.id,
      body: '**Done**: see [the diff](https://x.test/d?a=1&b=2) and `a < b` <!channel>',
    });
    const post = await vi.waitFor(
      () => {
        const found = standin.callsTo('chat.postMessage').find((c) => String(c.args.text).startsWith('*Done*'));
        expect(found).toBeDefined();
        return found!;
      },
      { timeout: 10_000 },
    );
    expect(post.args.text).toBe('*Done*: see <https://x.test/d?a=1&amp;b=2|the diff> and `a &lt; b` &lt;!channel&gt;');
    expect(post.args.blocks).toBeUndefined();
  });
});
