import { describe, expect, it } from 'vitest';
import {
  excerpt,
  HIT_END,
  HIT_START,
  markedSnippet,
  parseMarkdown,
  plainText,
  stringifyMarkdown,
} from '../../../src/core/format/markdown.ts';
import { mentionsInTree, parseMentions } from '../../../src/core/format/mentions.ts';

describe('parseMentions', () => {
  it('finds bare and owner/name mentions once each, in order, lowercased', () => {
    expect(parseMentions('@Helper can you ask @alice/builder and @bob? Thanks @helper')).toEqual([
      'helper',
      'alice/builder',
      'bob',
    ]);
  });

  it('does not take an email address or a path for a mention', () => {
    expect(parseMentions('write to ops@example.com or see /docs/@latest and https://x.com/@user')).toEqual([]);
  });

  it('leaves sentence punctuation out of the name', () => {
    expect(parseMentions('Thanks, @helper. And @bob-, @carol_! (@builder) look; @qa.')).toEqual([
      'helper',
      'bob',
      'carol',
      'builder',
      'qa',
    ]);
  });

  it('keeps dots and dashes inside a name', () => {
    expect(parseMentions('@build.bot and @code-review')).toEqual(['build.bot', 'code-review']);
  });

  it('reads no mention inside code spans, code blocks or raw HTML', () => {
    const body =
      'run `@deploy now`, then\n\n```\nnpm publish @scope/pkg\n```\n\nsee <!-- @hidden --> and ask @reviewer';
    expect(parseMentions(body)).toEqual(['reviewer']);
  });

  it('reads mentions inside emphasis, links, lists and quotes', () => {
    expect(parseMentions('**@Lead** see [@docs](https://x.test)\n\n- @one\n\n> @two')).toEqual([
      'lead',
      'docs',
      'one',
      'two',
    ]);
  });

  it('does not take broadcast words for names', () => {
    expect(parseMentions('@here @channel @everyone and @ops')).toEqual(['ops']);
  });

  it('reads a text without markup as its tree would, without parsing it', () => {
    // Texts made of what people write around mentions (block markers, addresses, punctuation, line breaks, indents)
    // but none of the characters that send a text through the parser: the tree, asked too, finds the same names.
    const pieces = [
      '@bob',
      '@Ann',
      '@a.b',
      '@x/y',
      '@ops-',
      '@here',
      '@',
      '@@',
      '-@',
      '.@',
      'bob@x.test',
      'hi',
      '42',
      '.',
      ',',
      '-',
      '+',
      '/',
      '#',
      '# ',
      '> ',
      '>',
      '- ',
      '+ ',
      '1. ',
      '1) ',
      ' ',
      '  ',
      '   ',
      '\n',
      '\n\n',
      '  \n',
      '\r\n',
      '|',
      '---',
      '===',
      'http://x.test/',
      'HTTPS://a.b',
      'www.x.test/',
      'WWW.a.b',
      'mailto:',
      'x.y',
      '=',
      ':',
      '(',
      ')',
      '!',
      '?',
      "'",
      '"',
      '$',
      '%',
      '^',
      '{',
      '}',
      ';',
      'é',
      '😀',
    ];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pick = <T>(xs: T[]) => xs[Math.floor(next() * xs.length)];
    const spaces = (most: number) => ' '.repeat(Math.floor(next() * (most + 1)));
    // Lines as people shape them too: a few spaces, up to two quote or list markers, spaces, then words.
    const markers = ['> ', '>', '- ', '+ ', '1. ', '1) ', '2) ', '10. ', '# '];
    const line = () =>
      `${spaces(3)}${Array.from({ length: Math.floor(next() * 3) }, () => pick(markers)).join('')}${spaces(6)}${pick(pieces)}${pick(pieces)}`;
    let withNames = 0;
    for (let i = 0; i < 2000; i++) {
      const text =
        i % 2
          ? Array.from({ length: 1 + Math.floor(next() * 12) }, () => pick(pieces)).join('')
          : Array.from({ length: 1 + Math.floor(next() * 4) }, line).join(pick(['\n', '\n\n', '  \n']));
      const found = parseMentions(text);
      expect(found, JSON.stringify(text)).toEqual(mentionsInTree(text));
      if (found.length) withNames += 1;
    }
    expect(withNames).toBeGreaterThan(400);
  });

  it('reads no mention in code indented after a quote or list marker', () => {
    for (const text of ['-     @bob', '1)     @bob', '10.     @bob', '>     @bob', '> -     @bob', '- a\n-     @bob']) {
      expect(parseMentions(text), JSON.stringify(text)).toEqual([]);
    }
    expect(parseMentions('@bob\n\n-     @ann\n\n@carl')).toEqual(['bob', 'carl']);
    expect(parseMentions('>    @bob')).toEqual(['bob']);
  });

  it('still reads through the parser a text with markup, and an indented line as code', () => {
    expect(parseMentions('ask @carol_bot, not `@deploy`')).toEqual(['carol_bot']);
    expect(parseMentions('_@lead_ and @bob')).toEqual(['lead', 'bob']);
    expect(parseMentions('look:\n\n    @code here\n\nthen @bob')).toEqual(['bob']);
  });
});

describe('hostile nesting', () => {
  it.each([
    ['quotes', `${'> '.repeat(3000)}@deep`],
    ['lists', `${'- '.repeat(3000)}@deep`],
    ['indented lists', `${Array.from({ length: 300 }, (_x, i) => `${'  '.repeat(i)}- x`).join('\n')} @deep`],
  ])('reads a message nested thousands deep (%s) as its literal words, without exhausting the stack', (_name, body) => {
    expect(parseMarkdown(body).children).toEqual([{ type: 'paragraph', children: [{ type: 'text', value: body }] }]);
    expect(parseMentions(body)).toEqual(['deep']);
    expect(stringifyMarkdown(parseMarkdown(body)).length).toBeGreaterThan(body.length);
  });

  it('keeps the structure of ordinary nesting, and of indented code', () => {
    expect(parseMarkdown('> > - a\n>   - b').children[0].type).toBe('blockquote');
    expect(parseMarkdown(`\`\`\`\n${' '.repeat(100)}deep\n\`\`\``).children[0].type).toBe('code');
  });
});

describe('plain text and excerpts of Markdown', () => {
  it('drops the syntax and keeps the words', () => {
    expect(plainText('**Bold** and [a link](https://x.test) `code`')).toBe('Bold and a link code');
  });

  it('flattens whitespace and cuts long text with an ellipsis', () => {
    expect(excerpt('a\n\n  b   c')).toBe('a b c');
    expect(excerpt('x'.repeat(100), 10)).toBe(`${'x'.repeat(9)}…`);
    expect(excerpt('# Plan\n\n**ship** it')).toBe('Plan ship it');
  });
});

describe('search snippets', () => {
  const hit = (w: string) => `${HIT_START}${w}${HIT_END}`;

  it('marks each hit once, whatever emphasis the message had around it', () => {
    expect(markedSnippet(`The **${hit('quarterly')}** report`)).toBe('The **quarterly** report');
    expect(markedSnippet(`${hit('quarterly')}** report and \`code\``)).toBe('**quarterly** report and code');
  });

  it('keeps link labels, whole or cut off, without their syntax', () => {
    expect(markedSnippet(`see [the ${hit('plan')}](https://x.test/p) now`)).toBe('see the **plan** now');
    expect(markedSnippet(`${hit('plan')} is [ready`)).toBe('**plan** is ready');
    expect(markedSnippet(`${hit('plan')}](https://x.test) is out`)).toBe('**plan** is out');
  });
});
