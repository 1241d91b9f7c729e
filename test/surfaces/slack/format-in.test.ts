// Slack messages as agents read them: Markdown, with names instead of ids.
// Payload shapes follow Slack's documented `message`/`app_mention` events: the
// mrkdwn `text` and the `rich_text` block the Slack client sends with it.
import { describe, expect, it } from 'vitest';
import {
  labelsInText,
  referencedIds,
  slackToMarkdown,
  type SlackNames,
} from '../../../src/surfaces/slack/format/in.ts';

const names: SlackNames = {
  users: new Map([
    ['U0CAROL01', 'Carol Chen'],
    ['U0DAN0001', 'dan'],
  ]),
  channels: new Map([['C0GENERAL', 'general']]),
};
const section = (...elements: unknown[]) => ({ type: 'rich_text_section', elements });
const rich = (...elements: unknown[]) => ({ type: 'rich_text', block_id: 'b1', elements });

describe('Slack mrkdwn text to Markdown', () => {
  const md = (text: string) => slackToMarkdown({ text }, names, 'U0BOT').markdown;

  it("turns people, channels and broadcasts into readable names, and drops the app's own mention", () => {
    expect(md('<@U0BOT> ask <@U0CAROL01> in <#C0GENERAL> or <#C0OTHER|random>, <!here>')).toBe(
      'ask @Carol Chen in #general or #random, @here',
    );
    expect(md('cc <!subteam^S0ENG|@eng-team> and <@U0NOBODY>')).toBe('cc @eng-team and @U0NOBODY');
  });

  it('turns links into Markdown links, with | and > in them handled', () => {
    expect(md('see <https://x.test/a?b=1&amp;c=2|the plan> and <https://x.test>')).toBe(
      'see [the plan](https://x.test/a?b=1&c=2) and https://x.test',
    );
    expect(md('<https://x.test/q|a &gt; b [1]>')).toBe('[a > b \\[1\\]](https://x.test/q)');
    expect(md('<mailto:ops@example.com|ops@example.com>')).toBe('ops@example.com');
  });

  it('converts bold and strike, keeps italic, and leaves code alone', () => {
    expect(md('*ship* it _now_ ~not~ later')).toBe('**ship** it _now_ ~~not~~ later');
    expect(md('run `a*b*c` then\n```\nx = *y*\n&lt;tag&gt;\n```')).toBe('run `a*b*c` then\n\n```\nx = *y*\n<tag>\n```');
    expect(md('2*3*4 is not bold')).toBe('2*3*4 is not bold');
  });

  it('decodes entities and keeps quotes and emoji', () => {
    expect(md('&gt; quoted\nis 1 &lt; 2 &amp;&amp; 3 &gt; 2? :tada: 🚀')).toBe(
      '> quoted\nis 1 < 2 && 3 > 2? :tada: 🚀',
    );
  });

  it('names the agents mentioned with @name, not the people mentioned the Slack way', () => {
    const r = slackToMarkdown(
      { text: '<@U0BOT> ask @Reviewer and <@U0DAN0001>, <!channel>, `@notme`' },
      names,
      'U0BOT',
    );
    expect(r.markdown).toBe('ask @Reviewer and @dan, @channel, `@notme`');
    expect(r.names).toEqual(['reviewer']);
  });
});

describe('Slack rich_text blocks to Markdown', () => {
  it('prefers the blocks over the text and keeps their styling', () => {
    const blocks = [
      rich(
        section(
          { type: 'user', user_id: 'U0BOT' },
          { type: 'text', text: ' ask @reviewer about ' },
          { type: 'link', url: 'https://github.com/acme/api/pull/12', text: 'PR 12' },
          { type: 'text', text: ': it is ' },
          { type: 'text', text: 'urgent ', style: { bold: true } },
          { type: 'text', text: 'and ', style: { bold: true, italic: true } },
          { type: 'text', text: 'a*b', style: { code: true } },
          { type: 'text', text: ' ' },
          { type: 'emoji', name: 'rocket', unicode: '1f680' },
          { type: 'text', text: ' 2*3*4 ' },
          { type: 'channel', channel_id: 'C0GENERAL' },
        ),
      ),
    ];
    const r = slackToMarkdown({ text: 'ignored when blocks are present', blocks }, names, 'U0BOT');
    expect(r.markdown).toBe(
      'ask @reviewer about [PR 12](https://github.com/acme/api/pull/12): it is **urgent** **_and_** `a*b` 🚀 2\\*3\\*4 #general',
    );
    expect(r.names).toEqual(['reviewer']);
  });

  it('reads lists (nested by indent), quotes and preformatted code', () => {
    const blocks = [
      rich(
        section({ type: 'text', text: 'Plan:' }),
        {
          type: 'rich_text_list',
          style: 'ordered',
          indent: 0,
          elements: [section({ type: 'text', text: 'build' }), section({ type: 'text', text: 'test' })],
        },
        { type: 'rich_text_list', style: 'bullet', indent: 1, elements: [section({ type: 'text', text: 'unit' })] },
        {
          type: 'rich_text_quote',
          elements: [
            { type: 'text', text: 'ship it, ' },
            { type: 'user', user_id: 'U0CAROL01' },
          ],
        },
        { type: 'rich_text_preformatted', elements: [{ type: 'text', text: 'npm publish @scope/pkg\n<b>' }] },
      ),
    ];
    expect(slackToMarkdown({ blocks }, names).markdown).toBe(
      'Plan:\n\n1. build\n2. test\n   - unit\n\n> ship it, @Carol Chen\n\n```\nnpm publish @scope/pkg\n<b>\n```',
    );
    expect(slackToMarkdown({ blocks }, names).names).toEqual([]);
  });

  it('falls back to the text when a block holds an element it does not know', () => {
    const blocks = [rich(section({ type: 'text', text: 'hi' }, { type: 'future_thing', x: 1 }))];
    expect(slackToMarkdown({ text: '*hi* there', blocks }, names).markdown).toBe('**hi** there');
  });

  it('lists the ids to look up, and reads labels Slack already wrote into the text', () => {
    const blocks = [rich(section({ type: 'user', user_id: 'U0DAN0001' }, { type: 'channel', channel_id: 'C0RANDOM' }))];
    expect(referencedIds({ text: '<@U0CAROL01> in <#C0GENERAL|general>', blocks })).toEqual({
      users: ['U0CAROL01', 'U0DAN0001'],
      channels: ['C0GENERAL', 'C0RANDOM'],
    });
    const labels = labelsInText('<#C0GENERAL|general> <@U0X|ana> <#C0Y>');
    expect([...labels.channels]).toEqual([['C0GENERAL', 'general']]);
    expect([...labels.users]).toEqual([['U0X', 'ana']]);
  });
});

describe('messages shared into a message, and user groups', () => {
  // A shared (or forwarded) message arrives as an `is_share` attachment: its mrkdwn `text`, the original
  // message's blocks under `message_blocks`, and its author; a link preview is an attachment without them.
  const share = (over: Record<string, unknown> = {}) => ({
    is_share: true,
    is_msg_unfurl: true,
    ts: '1724966776.474889',
    author_id: 'U0DAN0001',
    author_name: 'dan',
    channel_id: 'C0GENERAL',
    from_url: 'https://acme.slack.com/archives/C0GENERAL/p1724966776474889',
    fallback: '[Aug 29th] dan: ERROR: connection refused to db-7',
    text: '*ERROR:* connection refused to db-7',
    mrkdwn_in: ['text'],
    footer: 'Slack Conversation',
    message_blocks: [
      {
        team: 'T0ACME',
        channel: 'C0GENERAL',
        ts: '1724966776.474889',
        message: {
          blocks: [
            rich(
              section(
                { type: 'text', text: 'ERROR:', style: { bold: true } },
                { type: 'text', text: ' connection refused to db-7 for ' },
                { type: 'user', user_id: 'U0CAROL01' },
              ),
            ),
          ],
        },
      },
    ],
    ...over,
  });

  it('gives the agent the shared message as a quote under its author, read like the message itself', () => {
    const r = slackToMarkdown(
      { text: '<@U0BOT> @reviewer what does this error mean?', attachments: [share()] },
      names,
      'U0BOT',
    );
    expect(r.markdown).toBe(
      '@reviewer what does this error mean?\n\n> **dan** wrote:\n>\n> **ERROR:** connection refused to db-7 for @Carol Chen',
    );
    expect(r.names).toEqual(['reviewer']);
  });

  it('reads the shared text when there are no blocks, shares without a comment, and the ids shared messages refer to', () => {
    const plainShare = share({
      message_blocks: undefined,
      author_name: undefined,
      text: 'ask @builder about <#C0GENERAL>',
    });
    const r = slackToMarkdown({ text: '', attachments: [plainShare] }, names);
    expect(r.markdown).toBe('> **dan** wrote:\n>\n> ask @builder about #general');
    // An agent named in what was shared is quoted, not addressed.
    expect(r.names).toEqual([]);
    expect(referencedIds({ text: 'see', attachments: [share()] })).toEqual({ users: ['U0CAROL01'], channels: [] });
    expect(referencedIds({ text: 'see', attachments: [plainShare] })).toEqual({
      users: ['U0DAN0001'],
      channels: ['C0GENERAL'],
    });
  });

  it('leaves link previews out', () => {
    const unfurl = {
      title: 'Example',
      title_link: 'https://example.com',
      text: 'A page about things',
      service_name: 'example.com',
      from_url: 'https://example.com',
    };
    expect(slackToMarkdown({ text: 'look <https://example.com>', attachments: [unfurl] }, names).markdown).toBe(
      'look https://example.com',
    );
  });

  it('names a user group by its handle, or by its id when Slack gave none', () => {
    const md = (text: string, blocks?: unknown[]) =>
      slackToMarkdown({ text, ...(blocks ? { blocks } : {}) }, names).markdown;
    expect(md('paging <!subteam^S0ONCALL>')).toBe('paging @group(S0ONCALL)');
    expect(md('paging <!subteam^S0ONCALL|@oncall>')).toBe('paging @oncall');
    const blocks = [rich(section({ type: 'text', text: 'paging ' }, { type: 'usergroup', usergroup_id: 'S0ONCALL' }))];
    expect(md('paging <!subteam^S0ONCALL|@oncall>', blocks)).toBe('paging @oncall');
    expect(md('paging <!subteam^S0ONCALL>', blocks)).toBe('paging @group(S0ONCALL)');
    expect(slackToMarkdown({ text: 'paging <!subteam^S0ONCALL|@oncall>' }, names).names).toEqual([]);
  });
});

describe('hostile Slack text', () => {
  const names: SlackNames = { users: new Map(), channels: new Map() };
  it.each([
    ['unclosed angle brackets', '<'.repeat(40_000)],
    ['unclosed references', '<@U1|'.repeat(8_000)],
    ['unclosed channel labels', '<#C1|x '.repeat(6_000)],
    ['markers everywhere', '*_~`<&'.repeat(6_000)],
  ])('reads %s of a 40,000-character message in bounded time', (_name, text) => {
    const started = performance.now();
    const r = slackToMarkdown({ text }, names);
    expect(r.markdown.length).toBeGreaterThan(0);
    expect(referencedIds({ text }).users.length).toBeLessThanOrEqual(1);
    // Each took seconds to minutes when a reference could run to the end of the text; now milliseconds. Generous for a loaded machine.
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('never lets a label carry markup into the Markdown', () => {
    expect(slackToMarkdown({ text: '<https://x.test|a](javascript:alert(1))[b>' }, names).markdown).toBe(
      '[a\\](javascript:alert(1))\\[b](https://x.test)',
    );
  });
});
