// Markdown both ways through the real CloudAdapter and the Bot Framework
// connector stand-in: what a person writes in Teams (HTML, mentions) reaches
// the agent as Markdown with names, and the agent's Markdown reaches Teams as
// markdown text with real mentions, or as a card when it holds a table.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import type { InboxItem } from '../../../src/core/messaging/message.ts';
import { pgliteDb } from '../../support/db.ts';
import { channelMention } from '../../support/teams/activities.ts';
import { TEAMS_DEFAULTS } from '../../support/teams/defaults.ts';
import { startTeamsStandin, type TeamsStandin, type WireActivity } from '../../support/teams/standin.ts';
import { inbox, startHarness, type Harness } from '../../support/teams/harness.ts';

const bob = TEAMS_DEFAULTS.users.bob;

describe('the message format between Teams and agents', () => {
  let db: Database;
  let standin: TeamsStandin;
  let h: Harness;
  let item: InboxItem;
  const posted = (needle: string) =>
    vi.waitFor(
      () => {
        const found = standin.delivered('sendToConversation').find((c) => JSON.stringify(c.activity).includes(needle));
        expect(found).toBeDefined();
        return found!.activity as WireActivity & Record<string, unknown>;
      },
      { timeout: 20_000, interval: 50 },
    );

  beforeAll(async () => {
    [db, standin] = await Promise.all([pgliteDb.open(), startTeamsStandin()]);
    h = await startHarness({ database: db, standin });
    await h.server.app.orgs.addPerson(SYSTEM, { handle: 'bob', org: 'acme', displayName: 'Bob' });
    await h.link(bob, 'bob');
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  it("gives the agent Markdown: formatting kept, the bot's mention gone, a person mentioned by name", async () => {
    const activity = channelMention(standin, { text: 'ask reviewer to check' });
    const bobAt = `<at>${bob.name}</at>`;
    activity.text = `<at>${TEAMS_DEFAULTS.botName}</at> ask reviewer to check PR 12 with ${bobAt}: run npm ci`;
    activity.attachments = [
      {
        contentType: 'text/html',
        content:
          `<p><span itemtype="http://schema.skype.com/Mention" itemscope="" itemid="0">${TEAMS_DEFAULTS.botName}</span>&nbsp;ask reviewer to check <b>PR 12</b> ` +
          `(<a href="https://git.test/pr/12">diff</a>) with <span itemtype="http://schema.skype.com/Mention" itemscope="" itemid="1">${bob.name}</span>:</p>` +
          '<pre><code>npm ci &amp;&amp; npm test</code></pre><script>alert(1)</script>',
      },
      {
        contentType: 'application/vnd.microsoft.teams.file.download.info',
        content: { downloadUrl: 'https://files.test/secret' },
      },
    ];
    activity.entities = [
      ...(activity.entities ?? []),
      { type: 'mention', text: bobAt, mentioned: { id: bob.id, name: bob.name } },
    ];
    expect((await h.post(activity)).status).toBe(200);
    const expected =
      'ask reviewer to check **PR 12** ([diff](https://git.test/pr/12)) with @Bob Okafor:\n\n```\nnpm ci && npm test\n```';
    const seen: InboxItem[] = [];
    item = await vi.waitFor(
      async () => {
        seen.push(...(await inbox(h)));
        const found = seen.find((i) => i.message.body === expected);
        if (!found) throw new Error(`not delivered yet; seen: ${seen.map((i) => i.message.body).join(' | ')}`);
        return found;
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(item.message.body).not.toContain('files.test');
  });

  it('posts a plain answer as markdown text, mentioning the linked person the agent names', async () => {
    await h.server.app.messaging.send({
      workspace: h.workspace,
      sender: h.reviewer,
      conversationId: item.conversation.id,
      body: '@bob: **done**, see [the run](https://ci.test/1) and `a < b` <at>Everyone</at>',
    });
    const post = await posted('see [the run]');
    expect(post.textFormat).toBe('markdown');
    expect(post.text).toBe(
      '**Reviewer** (alice/reviewer)\n\n<at>Bob</at>: **done**, see [the run](https://ci.test/1) and `a < b` &lt;at&gt;Everyone&lt;/at&gt;',
    );
    expect(post.entities).toEqual([
      { type: 'mention', text: '<at>Bob</at>', mentioned: { id: bob.aadObjectId, name: 'Bob' } },
      // An agent's message is labelled as AI-written (ai-content.ts).
      {
        type: 'https://schema.org/Message',
        '@type': 'Message',
        '@context': 'https://schema.org',
        additionalType: ['AIGeneratedContent'],
      },
    ]);
  });

  it("posts a table as an Adaptive Card under the agent's header with its avatar", async () => {
    await h.server.app.messaging.send({
      workspace: h.workspace,
      sender: h.reviewer,
      conversationId: item.conversation.id,
      body: 'Results:\n\n| check | state |\n| --- | --- |\n| unit | **pass** |\n| e2e | fail |',
    });
    const post = await posted('"text":"e2e"');
    const attachment = (
      post.attachments as Array<{ contentType: string; content: { body: Array<Record<string, unknown>> } }>
    )[0];
    expect(attachment.contentType).toBe('application/vnd.microsoft.card.adaptive');
    const body = attachment.content.body;
    expect(JSON.stringify(body[0])).toContain('https://example.test/reviewer.png');
    expect(body[1]).toMatchObject({ type: 'RichTextBlock', inlines: [{ type: 'TextRun', text: 'Results:' }] });
    expect(body[2]).toMatchObject({ type: 'Table', firstRowAsHeader: true });
    expect(JSON.stringify(body[2])).toContain('{"type":"TextRun","text":"pass","weight":"Bolder"}');
  });
});
