// What people write in Teams reaches agents as Markdown: the HTML Teams sends
// (or its plain text) read tolerantly, the bot's own mention removed, people's
// mentions as names, and nothing a hostile message carries turned into markup.
import { describe, expect, it } from 'vitest';
import { teamsToMarkdown, type TeamsEntity } from '../../../src/surfaces/teams/format/in.ts';

const BOT = '28:bot';
const botMention: TeamsEntity = {
  type: 'mention',
  text: '<at>Switchboard</at>',
  mentioned: { id: BOT, name: 'Switchboard' },
};
const bobMention: TeamsEntity = {
  type: 'mention',
  text: '<at>Bob Okafor</at>',
  mentioned: { id: '29:bob', name: 'Bob Okafor' },
};
const html = (content: string, entities: TeamsEntity[] = []) =>
  teamsToMarkdown({ text: 'ignored', attachments: [{ contentType: 'text/html', content }], entities }, BOT);
const mention = (i: number, name: string) =>
  `<span itemtype="http://schema.skype.com/Mention" itemscope="" itemid="${i}">${name}</span>`;

describe('Teams HTML to Markdown', () => {
  it.each([
    [
      'bold, italic and strike',
      '<p><b>bold</b> <i>it</i> <strong>s</strong> <em>e</em> <s>gone</s></p>',
      '**bold** _it_ **s** _e_ ~~gone~~',
    ],
    [
      'a web link',
      '<p>see <a href="https://example.com/a?b=1&amp;c=2" title="x>y">the docs</a></p>',
      'see [the docs](https://example.com/a?b=1\\&c=2)',
    ],
    [
      'a link that is not a web link keeps only its words',
      '<p><a href="javascript:alert(1)">click</a> <a href="data:text/html,x">me</a></p>',
      'click me',
    ],
    ['inline code', '<p>run <code>npm   ci</code> now</p>', 'run `npm ci` now'],
    [
      'a code block keeps its lines and markup as text',
      '<pre><code>if (a &lt; b) {\n  **x**\n}</code></pre>',
      '```\nif (a < b) {\n  **x**\n}\n```',
    ],
    ['lists, nested', '<ul><li>one</li><li>two<ol><li>a</li><li>b</li></ol></li></ul>', '- one\n- two\n  1. a\n  2. b'],
    ['an ordered list with a start', '<ol start="3"><li>c</li></ol>', '3. c'],
    ['paragraphs and line breaks', '<p>first<br>second</p><p>third</p>', 'first\nsecond\n\nthird'],
    ['divs as Teams nests them', '<div><div>hello&nbsp;there</div><div>again</div></div>', 'hello there\n\nagain'],
    [
      'a heading and a quote',
      '<h2>Plan</h2><blockquote><p>ship <b>it</b></p></blockquote>',
      '## Plan\n\n> ship **it**',
    ],
    [
      'a table',
      '<table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td><b>1</b></td></tr></table>',
      '| k | v     |\n| - | ----- |\n| a | **1** |',
    ],
    [
      'an emoji image keeps its character, other images drop',
      '<p>ok <img alt="👍" itemtype="http://schema.skype.com/Emoji" src="x"> <img src="https://x/y.png" alt="secret"></p>',
      'ok 👍',
    ],
    [
      'scripts, styles and comments say nothing',
      '<p>a<script>alert("x")</script><style>p{}</style><!-- hidden -->b</p>',
      'ab',
    ],
    [
      'raw Markdown typed as text is escaped, not obeyed',
      '<p>*not bold* and [x](javascript:y) and &lt;b&gt;</p>',
      '\\*not bold\\* and \\[x]\\(javascript:y) and \\<b>',
    ],
    ['a style inside the same style', '<p><b>a <strong>b</strong> c</b></p>', '**a b c**'],
    ['an unclosed tag and a stray closing tag', '<p><b>bold <i>both</p></b></i> after', '**bold _both_**\n\nafter'],
    ['numeric entities, and a broken one', '<p>&#65;&#x42;&#0;&bogus;</p>', 'AB\ufffd\\&bogus;'],
    ['any named entity, the rare ones too', '<p>&hearts; &eacute;&rarr;&frac12; &NotEqualTilde;</p>', '♥ é→½ ≂̸'],
    ['list items never closed, closed as a browser closes them', '<ul><li>one<li>two</ul>', '- one\n- two'],
    ['a paragraph opened inside bold keeps the bold on both sides', '<p><b>a<p>b</b>c', '**a**\n\n**b**c'],
    ['a comment never closed hides the rest, as in a browser', '<p>x</p><!-- never closed <b>y</b>', 'x'],
  ])('%s', (_name, input, expected) => {
    expect(html(input).markdown).toBe(expected);
  });

  it("removes the bot's own mention and names the agents the message gives", () => {
    const r = html(
      `<p>${mention(0, 'Switchboard')}&nbsp;ask reviewer to ping ${mention(1, 'Bob Okafor')} about A&amp;B</p>`,
      [botMention, bobMention],
    );
    expect(r.markdown).toBe('ask reviewer to ping @Bob Okafor about A\\&B');
    expect(r.names).toEqual(['reviewer']);
    expect(r.mentioned).toEqual([]);
  });

  it("never takes a person mentioned the Teams way for an agent, even one with an agent's name", () => {
    const reviewerPerson: TeamsEntity = {
      type: 'mention',
      text: '<at>reviewer</at>',
      mentioned: { id: '29:rev', name: 'reviewer' },
    };
    const r = html(`<p>${mention(0, 'Switchboard')} hi ${mention(1, 'reviewer')}, cc @builder</p>`, [
      botMention,
      reviewerPerson,
    ]);
    expect(r.markdown).toBe('hi @reviewer, cc @builder');
    expect(r.names).toEqual(['builder']);
    expect(r.mentioned).toEqual(['builder']);
  });

  it('keeps a mention of someone else named like the bot', () => {
    const other = { ...botMention, mentioned: { id: '28:other', name: 'Switchboard' } };
    expect(html(`<p>${mention(0, 'Switchboard')} hi</p>`, [other]).markdown).toBe('@Switchboard hi');
  });
});

describe('Teams plain text to Markdown', () => {
  const text = (
    t: string,
    entities: TeamsEntity[] = [],
    attachments?: Array<{ contentType: string; content: unknown }>,
  ) => teamsToMarkdown({ text: t, entities, attachments }, BOT);

  it('reads <at> mentions, entities and line breaks of the text when there is no HTML', () => {
    const r = text(
      '<at>Switchboard</at> ask reviewer to ping <at>Bob Okafor</at> about A&amp;B&nbsp;&lt;now&gt;\nthanks',
      [botMention, bobMention],
    );
    expect(r.markdown).toBe('ask reviewer to ping @Bob Okafor about A\\&B \\<now>\nthanks');
    expect(r.names).toEqual(['reviewer']);
  });

  it('ignores other attachments (files, cards) and HTML that is not a string', () => {
    const r = text(
      'the file',
      [],
      [
        {
          contentType: 'application/vnd.microsoft.teams.file.download.info',
          content: { downloadUrl: 'https://x/secret' },
        },
        {
          contentType: 'application/vnd.microsoft.card.adaptive',
          content: { body: [{ type: 'TextBlock', text: 'card words' }] },
        },
        { contentType: 'text/html', content: { not: 'a string' } },
      ],
    );
    expect(r.markdown).toBe('the file');
  });

  it("gives empty Markdown for a message that is only the bot's mention", () => {
    expect(text('<at>Switchboard</at> ', [botMention]).markdown).toBe('');
  });
});

describe('hostile Teams input', () => {
  it('reads deeply nested markup without exhausting the stack', () => {
    const deep = `${'<div><b><i>'.repeat(3_000)}deep${'</i></b></div>'.repeat(3_000)}`;
    const r = html(deep);
    expect(r.markdown.startsWith('**_deep_**')).toBe(true);
    expect(r.markdown.length).toBeLessThan(20);
  });

  it('reads a huge message in bounded time and size', () => {
    const started = performance.now();
    const r = html(`<p>${'word <b>bold</b> &amp; <a href="https://e.x/">l</a> '.repeat(50_000)}</p>`);
    expect(r.markdown.length).toBeLessThan(50_000);
    expect(r.markdown.startsWith('word **bold** & [l](https://e.x/) word')).toBe(true);
    // Generous: at most 40 KB is read, even on a loaded machine.
    expect(performance.now() - started).toBeLessThan(30_000);
  });

  it('does not hang on an attribute that never closes its quote, or a lone <', () => {
    expect(html(`<p>a <a href="https://x ${'"'.repeat(1)}${' x='.repeat(20_000)}`).markdown.length).toBeGreaterThan(0);
    expect(html('<p>1 < 2 and 3 > 2 <3</p>').markdown).toBe('1 < 2 and 3 > 2 <3');
  });
});
