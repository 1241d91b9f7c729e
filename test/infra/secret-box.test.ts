import { describe, expect, it } from 'vitest';
import { createSecretBox, SecretBoxError } from '../../src/infra/secrets/secret-box.ts';

const box = createSecretBox('a-switchboard-secret-of-at-least-32-chars');

describe('the secret box for stored platform credentials', () => {
  it('opens what it sealed, and seals the same value differently each time', () => {
    const a = box.seal('xoxb-123-456-secret', 'slack-bot-token:T1');
    const b = box.seal('xoxb-123-456-secret', 'slack-bot-token:T1');
    expect(a).not.toBe(b);
    expect(a).not.toContain('xoxb');
    expect(box.open(a, 'slack-bot-token:T1')).toBe('xoxb-123-456-secret');
  });

  it("does not open a value sealed for another context (a token copied to another team's row)", () => {
    const sealed = box.seal('xoxb-team-one', 'slack-bot-token:T1');
    expect(() => box.open(sealed, 'slack-bot-token:T2')).toThrow(SecretBoxError);
  });

  it('does not open a tampered value or one sealed under another secret, and never says the value', () => {
    const sealed = box.seal('xoxb-private', 'ctx');
    const [v, iv, tag, data] = sealed.split('.');
    const flipped = Buffer.from(data, 'base64url');
    flipped[0] ^= 1;
    expect(() => box.open([v, iv, tag, flipped.toString('base64url')].join('.'), 'ctx')).toThrow(
      /SWITCHBOARD_SECRET changed|altered/,
    );
    const other = createSecretBox('another-secret-entirely-0123456789abcdef');
    const err = (() => {
      try {
        other.open(sealed, 'ctx');
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err).toBeInstanceOf(SecretBoxError);
    expect(err!.message).not.toContain('xoxb');
    expect(() => box.open('not-sealed', 'ctx')).toThrow(/format/);
  });

  it('signs values with a key of its own and checks signatures in constant time', () => {
    const sig = box.sign('slack-oauth-state');
    expect(box.verify('slack-oauth-state', sig)).toBe(true);
    expect(box.verify('slack-oauth-statf', sig)).toBe(false);
    expect(box.verify('slack-oauth-state', sig.slice(2))).toBe(false);
    expect(createSecretBox('another-secret-entirely-0123456789abcdef').sign('slack-oauth-state')).not.toBe(sig);
  });
});
