import { describe, expect, it } from 'vitest';
import { findUnstorable, httpUrlOrNull, storableCopy, storableJson } from '../../src/core/safe-text.ts';
import { scrubSecrets } from '../../src/infra/logger.ts';

describe('text from outside', () => {
  it('finds a NUL character or a lone surrogate anywhere in a parsed body and names where it is', () => {
    const where = (v: unknown) => findUnstorable(v)?.where ?? null;
    expect(where({ body: 'fine', items: [{ title: 'ok' }, { title: 'a\u0000b' }] })).toBe('items[1].title');
    expect(where('plain\u0000')).toBe('the text');
    expect(where({ ['k\u0000']: 1 })).toBe('a key');
    expect(where({ body: 'fine', n: 3, nested: { deeper: [null, true] } })).toBeNull();
    expect(findUnstorable({ a: { b: 'x\ud800y' } })).toEqual({ where: 'a.b', what: 'surrogate' });
    expect(findUnstorable({ ['k\udc00']: 1 })).toEqual({ where: 'a key', what: 'surrogate' });
    // A well-formed pair (an emoji) is fine.
    expect(findUnstorable({ a: 'ok \ud83d\ude00' })).toBeNull();
  });

  it('makes a storable copy of a platform payload, keeping the text around what jsonb refuses', () => {
    const payload = { text: 'a\u0000b\ud800c \u{1F600}', list: ['\udfff'], ['k\u0000']: 1, n: 2 };
    expect(storableCopy(payload)).toEqual({
      text: 'a\uFFFDb\uFFFDc \u{1F600}',
      list: ['\uFFFD'],
      ['k\uFFFD']: 1,
      n: 2,
    });
    expect(JSON.parse(storableJson(payload))).toEqual(storableCopy(payload));
    const plain = { text: 'nothing to clean \u{1F600}' };
    expect(storableJson(plain)).toBe(JSON.stringify(plain));
  });

  it('lets only absolute http(s) URLs become links', () => {
    expect(httpUrlOrNull('https://acme.slack.com/archives/C1/p1')).toBe('https://acme.slack.com/archives/C1/p1');
    expect(httpUrlOrNull('http://localhost:3000/x')).toBe('http://localhost:3000/x');
    for (const bad of [
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      'data:text/html,<b>x</b>',
      'vbscript:x',
      '/relative',
      '',
      null,
      undefined,
      'not a url',
    ]) {
      expect(httpUrlOrNull(bad)).toBeNull();
    }
  });

  it('scrubs link nonces, sign-in tokens and agent or Slack tokens out of log text', () => {
    expect(scrubSecrets('open https://sb.example/link/AbC-123_x?x=1 now')).toBe(
      'open https://sb.example/link/[redacted]?x=1 now',
    );
    expect(scrubSecrets('/signin?token=s3cret&next=/')).toBe('/signin?token=[redacted]&next=/');
    expect(scrubSecrets('token sb_0123456789abcdef and xoxb-1-2-abc')).toBe('token [redacted] and [redacted]');
    expect(scrubSecrets('/api/links/3 and /account/links')).toBe('/api/links/3 and /account/links');
  });
});
