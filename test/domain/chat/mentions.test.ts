import { describe, expect, it } from 'vitest';
import { excerpt, parseMentions } from '../../../src/domain/chat/mentions.ts';

describe('parseMentions', () => {
  it('finds bare and owner/name mentions once each, in order, lowercased', () => {
    expect(parseMentions('@Helper can you ask @alice/builder and @bob? Thanks @helper')).toEqual(['helper', 'alice/builder', 'bob']);
  });

  it('does not take an email address or a path for a mention', () => {
    expect(parseMentions('write to ops@example.com or see /docs/@latest')).toEqual([]);
  });

  it('leaves sentence punctuation out of the name', () => {
    expect(parseMentions('Thanks, @helper. And @bob-, @carol_!')).toEqual(['helper', 'bob', 'carol']);
  });

  it('keeps dots and dashes inside a name', () => {
    expect(parseMentions('@build.bot and @code-review')).toEqual(['build.bot', 'code-review']);
  });
});

describe('excerpt', () => {
  it('flattens whitespace and cuts long text with an ellipsis', () => {
    expect(excerpt('a\n\n  b   c')).toBe('a b c');
    expect(excerpt('x'.repeat(100), 10)).toBe(`${'x'.repeat(9)}…`);
  });
});
