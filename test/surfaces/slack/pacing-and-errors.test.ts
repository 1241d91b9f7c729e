// How Slack's errors are sorted into wait, retry and give up (pacing itself is
// tested with the shared pacer, test/core/delivery/pacer.test.ts).
import { webApi } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { classifySlackError } from '../../../src/surfaces/slack/errors.ts';

describe('sorting Slack errors', () => {
  const platform = (error: string) =>
    Object.assign(new Error(`An API error occurred: ${error}`), {
      code: webApi.ErrorCode.PlatformError,
      data: { ok: false, error },
    });

  it('waits for Retry-After on a 429', () => {
    const e = Object.assign(new Error('rate limited'), { code: webApi.ErrorCode.RateLimitedError, retryAfter: 7 });
    expect(classifySlackError(e)).toMatchObject({ kind: 'rate_limited', afterMs: 7000 });
  });

  it.each(['channel_not_found', 'not_in_channel', 'is_archived', 'account_inactive', 'invalid_auth', 'token_revoked'])(
    'gives up on %s with a sentence',
    (code) => {
      const f = classifySlackError(platform(code));
      expect(f).toMatchObject({ kind: 'permanent', code });
      expect((f as { reason: string }).reason).not.toBe(code);
    },
  );

  it("retries Slack's own trouble, server errors and network failures", () => {
    expect(classifySlackError(platform('internal_error')).kind).toBe('transient');
    expect(
      classifySlackError(Object.assign(new Error('x'), { code: webApi.ErrorCode.HTTPError, statusCode: 502 })).kind,
    ).toBe('transient');
    expect(
      classifySlackError(
        Object.assign(new Error('x'), { code: webApi.ErrorCode.RequestError, original: new Error('ECONNRESET') }),
      ),
    ).toMatchObject({ kind: 'transient', reason: expect.stringContaining('ECONNRESET') });
  });
});
