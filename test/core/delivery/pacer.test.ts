// The one pacer keeps every platform's windows per key under a burst: Teams'
// (7/1 s, 8/2 s, 60/30 s, 1800/h) and Slack's one post a second per channel,
// with fake timers instead of waiting.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TEAMS_LIMITS } from '../../../src/surfaces/teams/settings.ts';
import { DeliveryError } from '../../../src/core/delivery/failure.ts';
import { pacedCall, Pacer } from '../../../src/core/delivery/pacer.ts';
import { RetryLater } from '../../../src/core/errors.ts';

/** Sends `n` posts into `key` as fast as the pacer lets them; resolves with their send times. */
async function burst(pacer: Pacer, key: string, n: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i += 1) {
    await pacer.wait(key);
    times.push(Date.now());
  }
  return times;
}

/** Whether any window of the limits holds more posts than allowed. */
function violations(times: number[], limits = TEAMS_LIMITS): string[] {
  const out: string[] = [];
  for (const { max, perMs } of limits) {
    for (let i = max; i < times.length; i += 1)
      if (times[i]! - times[i - max]! < perMs) out.push(`${max + 1} posts within ${perMs} ms at #${i}`);
  }
  return out;
}

describe('pacing posts into a Teams conversation', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: new Date('2030-01-01T00:00:00Z') });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("lets 7 posts go at once, then holds every window of Teams' limits through 200 posts", async () => {
    const pacer = new Pacer(TEAMS_LIMITS, { maxWaitMs: Infinity });
    const start = Date.now();
    const done = burst(pacer, '19:channel@thread.tacv2', 200);
    await vi.runAllTimersAsync();
    const times = await done;

    expect(times.slice(0, 7).every((t) => t === start)).toBe(true);
    expect(times[7]! - start).toBe(1_000);
    expect(violations(times)).toEqual([]);
    // 60 per 30 s is what binds a long burst: 200 posts need at least three full windows.
    expect(times.at(-1)! - start).toBeGreaterThanOrEqual(90_000);
  });

  it('widens each window by the margin, for network jitter', async () => {
    const pacer = new Pacer([{ max: 2, perMs: 1_000 }], { marginMs: 50 });
    const start = Date.now();
    const done = burst(pacer, 'a', 3);
    await vi.runAllTimersAsync();
    expect((await done).map((t) => t - start)).toEqual([0, 0, 1_050]);
  });

  it('paces each conversation on its own', async () => {
    const pacer = new Pacer(TEAMS_LIMITS, { maxWaitMs: Infinity });
    const start = Date.now();
    const both = Promise.all([burst(pacer, 'a', 7), burst(pacer, 'b', 7)]);
    await vi.runAllTimersAsync();
    for (const times of await both) expect(times.every((t) => t === start)).toBe(true);
  });

  it('holds a conversation back after a 429 for its Retry-After', async () => {
    const pacer = new Pacer(TEAMS_LIMITS, { maxWaitMs: Infinity });
    const start = Date.now();
    pacer.pause('a', 3_000);
    const done = burst(pacer, 'a', 1);
    await vi.runAllTimersAsync();
    expect((await done)[0]! - start).toBe(3_000);
  });
});

describe('pacing posts into a Slack channel', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('spaces posts into one channel by the interval, and leaves other channels alone', async () => {
    const pacer = new Pacer([{ max: 1, perMs: 1000 }]);
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
    const pacer = new Pacer([{ max: 1, perMs: 0 }]);
    pacer.pause('C1', 5000);
    let posted = false;
    const waiting = pacer.wait('C1').then(() => {
      posted = true;
    });
    await vi.advanceTimersByTimeAsync(4999);
    expect(posted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await waiting;
    expect(posted).toBe(true);
  });
});

describe('a long wait and a 429', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('hands a wait longer than maxWaitMs back to the queue instead of sleeping through it in a job', async () => {
    const pacer = new Pacer([{ max: 1, perMs: 60_000 }], { maxWaitMs: 10_000 });
    await pacer.wait('C1');
    const err = await pacer.wait('C1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RetryLater);
    expect((err as RetryLater).afterMs).toBe(60_000);
  });

  it('pauses the key for the Retry-After of a rate-limited call, so the next call waits too', async () => {
    const pacer = new Pacer([{ max: 100, perMs: 1_000 }]);
    const limited = new DeliveryError({ kind: 'rate_limited', afterMs: 4_000, reason: 'slow down' });
    await expect(
      pacedCall(pacer, 'C1', async () => {
        throw limited;
      }),
    ).rejects.toBe(limited);
    const start = Date.now();
    let at = 0;
    const next = pacedCall(pacer, 'C1', async () => {
      at = Date.now();
    });
    await vi.advanceTimersByTimeAsync(4_000);
    await next;
    expect(at - start).toBe(4_000);
  });
});
