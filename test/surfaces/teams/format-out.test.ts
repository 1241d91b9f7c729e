// Agents' Markdown as Teams shows it: plain replies as markdown text Teams
// renders itself, tables/headings/long code as an Adaptive Card of TextRuns
// (never read as markup), nothing an agent writes turned into HTML or a ping it
// may not send, and every message inside Teams' size limit.
import { describe, expect, it } from 'vitest';
import {
  markdownToTeams,
  teamsText,
  type CardElement,
  type TeamsPerson,
} from '../../../src/surfaces/teams/format/out.ts';

const people = new Map<string, TeamsPerson>([['bob', { id: 'b0b-aad', name: 'Bob Okafor' }]]);
const text = (md: string) => {
  const r = markdownToTeams(md, people);
  if (r.kind !== 'text') throw new Error(`expected text, got a card for ${md}`);
  return r;
};
const card = (md: string, limit?: number) => {
  const r = markdownToTeams(md, people, limit);
  if (r.kind !== 'card') throw new Error(`expected a card for ${md}`);
  return r;
};
/** Every TextRun of a card body, in order. */
const runsOf = (body: CardElement[]): CardElement[] => {
  const out: CardElement[] = [];
  (function walk(v: unknown) {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      if ((v as CardElement).type === 'TextRun') out.push(v as CardElement);
      else Object.values(v).forEach(walk);
    }
  })(body);
  return out;
};

describe('plain replies: markdown text', () => {
  it.each([
    ['emphasis, strike and code', '**bold**, _it_, ~~old~~ and `x < y`', '**bold**, _it_, ~~old~~ and `x < y`'],
    ['a web link', 'see [the diff](https://x.test/d?a=1&b=2)', 'see [the diff](https://x.test/d?a=1\\&b=2)'],
    [
      'a link that is not a web link keeps its words only',
      '[click](javascript:alert(1)) or [mail](mailto:a@b.c)',
      'click or [mail](mailto:a@b.c)',
    ],
    ['an image becomes a link to it', '![chart](https://x.test/c.png)', '[chart](https://x.test/c.png)'],
    ['lists and quotes', '- one\n- two\n\n> quoted', '- one\n- two\n\n> quoted'],
    ['short code', '```js\nlet a = 1 < 2;\n```', '```js\nlet a = 1 < 2;\n```'],
    [
      '<, > and & as entities, so Teams reads no HTML',
      'a <b>bold</b> & <at>Bob Okafor</at> 1 > 0',
      'a &lt;b&gt;bold&lt;/b&gt; &amp; &lt;at&gt;Bob Okafor&lt;/at&gt; 1 &gt; 0',
    ],
    ['raw HTML blocks shown as text', '<script>alert(1)</script>', '&lt;script&gt;alert(1)&lt;/script&gt;'],
    ['entities the agent typed stay as typed', 'use &amp; or &#60;', 'use &amp; or &lt;'],
    [
      'a bare web address as a link, never <…>',
      'See https://github.com/acme/app/pull/12 for details.',
      'See [https://github.com/acme/app/pull/12](https://github.com/acme/app/pull/12) for details.',
    ],
    [
      'a bare e-mail address as a mail link, never <…>',
      'mail bob@example.com',
      'mail [bob@example.com](mailto:bob@example.com)',
    ],
    [
      'a link whose words are its address, and an autolink, never <…>',
      '[https://x.test/a](https://x.test/a) or <https://y.test>',
      '[https://x.test/a](https://x.test/a) or [https://y.test](https://y.test)',
    ],
  ])('%s', (_name, md, expected) => {
    expect(text(md).text).toBe(expected);
  });

  it('mentions a linked person named by handle, once per person, and nobody else', () => {
    const r = text('@bob please look; @bob, and @carol too. `@bob` in code is not one');
    expect(r.text).toBe(
      '<at>Bob Okafor</at> please look; <at>Bob Okafor</at>, and @carol too. `@bob` in code is not one',
    );
    expect(r.entities).toEqual([
      { type: 'mention', text: '<at>Bob Okafor</at>', mentioned: { id: 'b0b-aad', name: 'Bob Okafor' } },
    ]);
  });

  it("escapes a person's name inside the mention", () => {
    const r = markdownToTeams('hi @eve', new Map([['eve', { id: 'e', name: 'Eve <admin> & co' }]]));
    expect(r).toMatchObject({ kind: 'text', text: 'hi <at>Eve &lt;admin&gt; &amp; co</at>' });
    expect(r.kind === 'text' && r.entities[0].text).toBe('<at>Eve &lt;admin&gt; &amp; co</at>');
  });

  it('cuts a huge reply at a block within the limit and says so', () => {
    const md = Array.from({ length: 1200 }, (_x, i) => `Paragraph ${i} with **bold** & more words.`).join('\n\n');
    const r = text(md);
    expect(r.truncated).toBe(true);
    expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(24_000);
    expect(r.text).toContain('Paragraph 0 with **bold** &amp; more words.');
    expect(r.text.endsWith('_(The rest of this message is too long for Teams.)_')).toBe(true);
  });

  it('cuts one huge paragraph inside itself, never in the middle of an entity', () => {
    const r = text(`${'a&b '.repeat(8_000)}`);
    expect(r.truncated).toBe(true);
    expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(24_000);
    expect(r.text).toMatch(/^a&amp;b a&amp;b /);
    expect(r.text).not.toMatch(/&[a-z]*(?![a-z;])\s…/);
  });
});

describe('rich replies: an Adaptive Card', () => {
  it('shows a table as a Table with a header row, cells as exact text', () => {
    const r = card('| name | state |\n| - | - |\n| **api** | <b>ok</b> |');
    const t = r.body[0] as { type: string; firstRowAsHeader: boolean; rows: Array<{ cells: unknown[] }> };
    expect(t).toMatchObject({ type: 'Table', firstRowAsHeader: true });
    expect(t.rows).toHaveLength(2);
    expect(runsOf(r.body).map((x) => x.text)).toEqual(['name', 'state', 'api', '<b>ok</b>']);
    expect(runsOf(r.body)[2]).toMatchObject({ weight: 'Bolder' });
  });

  it('shows headings large and bold, and long code as one monospace run', () => {
    const code = Array.from({ length: 20 }, (_x, i) => `line ${i} **not bold** <tag>`).join('\n');
    const r = card(
      `# Report\n\nAll *good*, see [log](https://x.test/l) and [bad](javascript:x).\n\n\`\`\`\n${code}\n\`\`\``,
    );
    const runs = runsOf(r.body);
    expect(runs[0]).toMatchObject({ text: 'Report', weight: 'Bolder', size: 'Large' });
    expect(runs.find((x) => x.text === 'good')).toMatchObject({ italic: true });
    expect(runs.find((x) => x.text === 'log')).toMatchObject({
      selectAction: { type: 'Action.OpenUrl', url: 'https://x.test/l' },
    });
    expect(runs.find((x) => String(x.text).includes('bad'))).not.toHaveProperty('selectAction');
    expect(JSON.stringify(r.body)).not.toContain('javascript');
    expect(runs.at(-1)).toMatchObject({ text: code, fontType: 'Monospace' });
  });

  it('gives streamed drafts safe markdown text even when the answer will be a card', () => {
    const draft = teamsText('# Title\n\n| a |\n| - |\n| <b> |');
    expect(draft.startsWith('# Title\n\n| a')).toBe(true);
    expect(draft).toContain('| &lt;b&gt; |');
  });

  it('keeps short code and plain replies out of cards', () => {
    expect(markdownToTeams('```\nshort\n```').kind).toBe('text');
    expect(markdownToTeams('just words').kind).toBe('text');
  });

  it('lists nested items with bullets and numbers', () => {
    const r = card('## Plan\n\n1. build\n2. test\n   - unit\n   - e2e');
    expect(
      runsOf(r.body)
        .map((x) => x.text)
        .join(''),
    ).toBe('Plan1. build\n2. test\n\u00a0\u00a0\u00a0\u00a0◦ unit\n\u00a0\u00a0\u00a0\u00a0◦ e2e');
  });

  it('keeps a card within the limit: a huge code block is cut and the card says so', () => {
    const code = Array.from({ length: 5000 }, (_x, i) => `const v${i} = "${'x'.repeat(20)}";`).join('\n');
    const r = card(`# Dump\n\n\`\`\`\n${code}\n\`\`\`\n\nafter`);
    expect(r.truncated).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(r.body))).toBeLessThanOrEqual(24_000);
    expect(JSON.stringify(r.body)).toContain('const v0 = ');
    expect(JSON.stringify(r.body)).not.toContain('after');
    expect(r.body.at(-1)).toMatchObject({
      type: 'TextBlock',
      text: '(The rest of this message is too long for Teams.)',
    });
  });

  it('cuts a huge table by rows: its header and the rows that fit, a note of how many were left out, then what follows', () => {
    const rows = Array.from({ length: 400 }, (_x, i) => `| row ${i} | value ${i} | ok |`).join('\n');
    const r = card(`Here are the results:\n\n| a | b | c |\n| - | - | - |\n${rows}\n\nSummary: all fine.`);
    expect(r.truncated).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(r.body))).toBeLessThanOrEqual(24_000);
    expect(r.body.map((e) => e.type)).toEqual(['RichTextBlock', 'Table', 'TextBlock', 'RichTextBlock']);
    const kept = (r.body[1] as { rows: unknown[] }).rows;
    expect(kept.length).toBeGreaterThan(20);
    expect(JSON.stringify(kept[0])).toContain('"a"');
    expect(JSON.stringify(kept.at(-1))).toContain(`row ${kept.length - 2}`);
    expect(r.body[2]).toMatchObject({
      type: 'TextBlock',
      text: `(${401 - kept.length} more rows of this table are too long for Teams.)`,
    });
    expect(runsOf([r.body[3]!])[0]).toMatchObject({ text: 'Summary: all fine.' });
  });

  it('survives deeply nested Markdown', () => {
    const r = markdownToTeams(`# t\n\n${'> '.repeat(200)}deep`);
    expect(JSON.stringify(r)).toContain('deep');
  });
});
