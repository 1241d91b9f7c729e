// Agents' Markdown as Slack shows it: mrkdwn, escaped, split within Slack's limits.
import { describe, expect, it } from 'vitest';
import { markdownToSlack, SECTION_LIMIT } from '../../../src/adapters/slack/format-out.ts';

const mrkdwn = (md: string) => {
  const r = markdownToSlack(md);
  expect(r.blocks).toBeUndefined();
  return r.text;
};

describe('Markdown to Slack mrkdwn', () => {
  it('converts emphasis, links and code', () => {
    expect(mrkdwn('**bold** _it_ *also it* ~~gone~~ `a*b`')).toBe('*bold* _it_ _also it_ ~gone~ `a*b`');
    expect(mrkdwn('[the plan](https://x.test/p?a=1&b=2) and https://x.test')).toBe('<https://x.test/p?a=1&amp;b=2|the plan> and <https://x.test>');
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
    expect(mrkdwn('# Plan **now**\n\n1. build\n2. test\n   - unit\n\n> said 🚀')).toBe('*Plan now*\n\n1. build\n2. test\n    ◦ unit\n\n> said 🚀');
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

describe('hostile agent Markdown for Slack', () => {
  it.each([
    ['quotes', `${'> '.repeat(3_000)}x`],
    ['lists', `${'- '.repeat(3_000)}x`],
  ])('renders Markdown nested thousands deep (%s) as escaped text instead of failing', (_name, md) => {
    const r = markdownToSlack(md);
    expect(r.text.startsWith('&gt; &gt; ') || r.text.startsWith('- - ')).toBe(true);
  });
});
