// How posting paces itself per channel, and how Slack's errors are sorted into
// wait, retry and give up.
import { webApi } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { classifySlackError } from '../../../src/adapters/slack/errors.ts';
import { ChannelPacer } from '../../../src/adapters/slack/pacer.ts';

describe('the channel pacer', () => {
  beforeEach(() => { vi.useFakeTimers(); });
  afterEach(() => { vi.useRealTimers(); });

  it('spaces posts into one channel by the interval, and leaves other channels alone', async () => {
    const pacer = new ChannelPacer(1000, () => Date.now());
    const done: string[] = [];
    const post = (channel: string, label: string) => pacer.wait(channel).then(() => done.push(label));
    const all = Promise.all([post('C1', 'a'), post('C1', 'b'), post('C2', 'x'), post('C1', 'c')]);
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toEqual(['a', 'x']);
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toEqual(['a', 'x']);
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toEqual(['a', 'x', 'b']);
    await vi.advanceTimersByTimeAsync(1000);
    await all;
    expect(done).toEqual(['a', 'x', 'b', 'c']);
  });

  it('holds a channel back for a Retry-After', async () => {
    const pacer = new ChannelPacer(0, () => Date.now());
    pacer.pause('C1', 5000);
    let posted = false;
    const waiting = pacer.wait('C1').then(() => { posted = true; });
    await vi.advanceTimersByTimeAsync(4999);
    expect(posted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await waiting;
    expect(posted).toBe(true);
  });
});

describe('sorting Slack errors', () => {
  const platform = (error: string) => Object.assign(new Error(`An API error occurred: ${error}`), { code: webApi.ErrorCode.PlatformError, data: { ok: false, error } });

  it('waits for Retry-After on a 429', () => {
    const e = Object.assign(new Error('rate limited'), { code: webApi.ErrorCode.RateLimitedError, retryAfter: 7 });
    expect(classifySlackError(e)).toMatchObject({ kind: 'rate_limited', afterMs: 7000 });
  });

  it.each(['channel_not_found', 'not_in_channel', 'is_archived', 'account_inactive', 'invalid_auth', 'token_revoked'])('gives up on %s with a sentence', (code) => {
    const f = classifySlackError(platform(code));
    expect(f).toMatchObject({ kind: 'permanent', code });
    expect((f as { reason: string }).reason).not.toBe(code);
  });

  it('retries Slack\'s own trouble, server errors and network failures', () => {
    expect(classifySlackError(platform('internal_error')).kind).toBe('transient');
    expect(classifySlackError(Object.assign(new Error('x'), { code: webApi.ErrorCode.HTTPError, statusCode: 502 })).kind).toBe('transient');
    expect(classifySlackError(Object.assign(new Error('x'), { code: webApi.ErrorCode.RequestError, original: new Error('ECONNRESET') }))).toMatchObject({ kind: 'transient', reason: expect.stringContaining('ECONNRESET') });
  });
});
