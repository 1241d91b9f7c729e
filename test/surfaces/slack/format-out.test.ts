// Agents' Markdown as Slack shows it: mrkdwn, escaped, split within Slack's limits.
import { describe, expect, it } from 'vitest';
import { markdownToSlack, SECTION_LIMIT } from '../../../src/surfaces/slack/format/out.ts';

const mrkdwn = (md: string) => {
  const r = markdownToSlack(md);
  expect(r.blocks).toBeUndefined();
  return r.text;
};

describe('Markdown to Slack mrkdwn', () => {
  it('converts emphasis, links and code', () => {
    expect(mrkdwn('**bold** _it_ *also it* ~~gone~~ `a*b`')).toBe('*bold* _it_ _also it_ ~gone~ `a*b`');
    expect(mrkdwn('[the plan](https://x.test/p?a=1&b=2) and https://x.test')).toBe(
      '<https://x.test/p?a=1&amp;b=2|the plan> and <https://x.test>',
    );
    expect(mrkdwn('**bold _and nested_**')).toBe('*bold _and nested_*');
  });

  it('keeps | and > in links from breaking them', () => {
    expect(mrkdwn('[a > b | c](https://x.test/q?x=|y)')).toBe('<https://x.test/q?x=%7Cy|a &gt; b | c>');
  });

  it('escapes Slack syntax so an agent cannot ping or spoof a mention', () => {
    expect(mrkdwn('<!channel> <@U0CAROL01> & <b>')).toBe('&lt;!channel&gt; &lt;@U0CAROL01&gt; &amp; &lt;b&gt;');
    expect(mrkdwn('@here is just text')).toBe('@here is just text');
  });

  it('never links javascript: or other schemes', () => {
    expect(mrkdwn('[click](javascript:alert(1))')).toBe('click');
  });

  it('keeps code blocks as code, escaped, with *stars* untouched', () => {
    expect(mrkdwn('```js\nif (a < b) x = *y*;\n```')).toBe('```\nif (a &lt; b) x = *y*;\n```');
  });

  it('shows headings bold, lists with bullets, quotes, tables and emoji', () => {
    expect(mrkdwn('# Plan **now**\n\n1. build\n2. test\n   - unit\n\n> said 🚀')).toBe(
      '*Plan now*\n\n1. build\n2. test\n    ◦ unit\n\n> said 🚀',
    );
    expect(mrkdwn('- [x] done\n- [ ] todo')).toBe('☑ done\n☐ todo');
    expect(mrkdwn('| a | bb |\n|---|---|\n| 1 | 2 |')).toBe('```\na | bb\n--+---\n1 | 2\n```');
  });

  it('splits a long message into sections Slack accepts, reopening code blocks at the cut', () => {
    const para = 'word '.repeat(500).trim();
    const code = Array.from({ length: 400 }, (_v, i) => `line ${i} <x>`).join('\n');
    const r = markdownToSlack(`${para}\n\n${para}\n\n\`\`\`\n${code}\n\`\`\``);
    expect(r.blocks!.length).toBeGreaterThan(2);
    for (const b of r.blocks!) expect(b.text.text.length).toBeLessThanOrEqual(SECTION_LIMIT);
    const codeSections = r.blocks!.filter((b) => b.text.text.includes('line 0') || b.text.text.includes('line 399'));
    for (const b of codeSections) expect(b.text.text.match(/```/g)).toHaveLength(2);
    expect(r.blocks!.map((b) => b.text.text).join('\n')).toContain('line 399 &lt;x&gt;');
    expect(r.text.length).toBeLessThanOrEqual(300);
  });
});

describe('long agent answers in Slack sections', () => {
  const sections = (md: string, lead?: string) => {
    const r = markdownToSlack(md, lead);
    expect(r.blocks!.length).toBeLessThanOrEqual(50);
    for (const b of r.blocks!) expect(b.text.text.length).toBeLessThanOrEqual(SECTION_LIMIT);
    return { text: r.text, blocks: r.blocks!.map((b) => b.text.text) };
  };
  /** Every `<` closed by a `>` before the next one opens. */
  const balanced = (s: string) => (s.match(/<[^<>]*>|[<>]/g) ?? []).every((m) => m.length > 1);

  it('cuts a paragraph of links between links, never inside one, and the notification before a link it cannot hold', () => {
    const links = Array.from({ length: 200 }, (_v, i) => `[link ${i}](https://example.com/some/long/path/${i})`);
    const { text, blocks } = sections(links.join(' '));
    expect(blocks.length).toBeGreaterThan(2);
    for (const b of blocks) {
      expect(balanced(b)).toBe(true);
      expect(b).toMatch(
        /^<https:\/\/example\.com\/some\/long\/path\/\d+\|link \d+>( <https:\/\/example\.com\/some\/long\/path\/\d+\|link \d+>)*$/,
      );
    }
    expect(blocks.join(' ').match(/<https:\/\/example\.com\/some\/long\/path\/(\d+)\|link \1>/g)).toHaveLength(200);
    expect(text.length).toBeLessThanOrEqual(300);
    expect(balanced(text)).toBe(true);
    expect(text).toMatch(/>…$/);
  });

  it('closes bold, italic and strike before a cut and opens them again after it', () => {
    const { blocks } = sections(
      `Intro **${'very bold words '.repeat(300)}done** then _${'italic '.repeat(500)}done_ ~~${'struck '.repeat(500)}out~~.`,
    );
    for (const b of blocks) {
      for (const mark of ['*', '_', '~'])
        expect(b.split(mark).length % 2, `${mark} in ${b.slice(0, 40)}…${b.slice(-40)}`).toBe(1);
    }
    expect(blocks[0]).toMatch(/^Intro \*very bold words .* words\*$/);
    expect(blocks[1]).toMatch(/^\*very bold words /);
    expect(blocks.join('\n')).toContain(' done* then _italic ');
    expect(blocks.join('\n')).toContain(' done_ ~struck ');
    expect(blocks.at(-1)).toMatch(/ out~\.$/);
  });

  it('splits between paragraphs and list items first, keeping each whole and numbered', () => {
    const paras = Array.from({ length: 8 }, (_v, i) => `Paragraph ${i}: ${'some words here '.repeat(60).trim()}.`);
    const items = Array.from(
      { length: 80 },
      (_v, i) => `${i + 1}. step **${i + 1}** of the plan, see [the runbook](https://x.test/run/${i + 1}) for how`,
    );
    const { blocks } = sections(`${paras.join('\n\n')}\n\n${items.join('\n')}\n\n> ${'a quoted line '.repeat(300)}`);
    const all = blocks.join('\n');
    for (const p of paras) expect(blocks.some((b) => b.includes(p))).toBe(true);
    for (let i = 1; i <= 80; i += 1)
      expect(all).toContain(`\n${i}. step *${i}* of the plan, see <https://x.test/run/${i}|the runbook> for how`);
    for (const b of blocks) expect(b).not.toMatch(/^ /);
    // A quote too long for one section goes on as a quote.
    const quoted = blocks.filter((b) => b.includes('a quoted line'));
    expect(quoted.length).toBeGreaterThan(1);
    for (const b of quoted)
      expect(
        b
          .split('\n')
          .filter((l) => l.includes('a quoted line'))
          .every((l) => l.startsWith('> ')),
      ).toBe(true);
  });

  it('puts a lead before the message, in its first section', () => {
    const { text, blocks } = sections('word '.repeat(1200).trim(), '<@U0CAROL01> asked *Reviewer* (`@reviewer`):');
    expect(blocks[0]).toMatch(/^<@U0CAROL01> asked \*Reviewer\* \(`@reviewer`\): word word/);
    expect(text).toMatch(/^<@U0CAROL01> asked \*Reviewer\* \(`@reviewer`\): word word/);
    expect(blocks.join(' ').match(/word/g)).toHaveLength(1200);
  });
});

describe('hostile agent Markdown for Slack', () => {
  it.each([
    ['quotes', `${'> '.repeat(3_000)}x`],
    ['lists', `${'- '.repeat(3_000)}x`],
  ])('renders Markdown nested thousands deep (%s) as escaped text instead of failing', (_name, md) => {
    const r = markdownToSlack(md);
    expect(r.text.startsWith('&gt; &gt; ') || r.text.startsWith('- - ')).toBe(true);
  });
});
