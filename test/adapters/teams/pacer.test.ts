// The pacer keeps every Teams window (7/1 s, 8/2 s, 60/30 s, 1800/h) per
// conversation under a burst, with fake timers instead of waiting.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConversationPacer, TEAMS_LIMITS } from '../../../src/adapters/teams/pacer.ts';

/** Sends `n` posts into `key` as fast as the pacer lets them; resolves with their send times. */
async function burst(pacer: ConversationPacer, key: string, n: number): Promise<number[]> {
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
    for (let i = max; i < times.length; i += 1) if (times[i]! - times[i - max]! < perMs) out.push(`${max + 1} posts within ${perMs} ms at #${i}`);
  }
  return out;
}

describe('pacing posts into a Teams conversation', () => {
  beforeEach(() => { vi.useFakeTimers({ now: new Date('2030-01-01T00:00:00Z') }); });
  afterEach(() => { vi.useRealTimers(); });

  it('lets 7 posts go at once, then holds every window of Teams\' limits through 200 posts', async () => {
    const pacer = new ConversationPacer(TEAMS_LIMITS, Date.now, undefined, 0);
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
    const pacer = new ConversationPacer([{ max: 2, perMs: 1_000 }], Date.now, undefined, 50);
    const start = Date.now();
    const done = burst(pacer, 'a', 3);
    await vi.runAllTimersAsync();
    expect((await done).map((t) => t - start)).toEqual([0, 0, 1_050]);
  });

  it('paces each conversation on its own', async () => {
    const pacer = new ConversationPacer(TEAMS_LIMITS, Date.now, undefined, 0);
    const start = Date.now();
    const both = Promise.all([burst(pacer, 'a', 7), burst(pacer, 'b', 7)]);
    await vi.runAllTimersAsync();
    for (const times of await both) expect(times.every((t) => t === start)).toBe(true);
  });

  it('holds a conversation back after a 429 for its Retry-After', async () => {
    const pacer = new ConversationPacer(TEAMS_LIMITS, Date.now, undefined, 0);
    const start = Date.now();
    pacer.pause('a', 3_000);
    const done = burst(pacer, 'a', 1);
    await vi.runAllTimersAsync();
    expect((await done)[0]! - start).toBe(3_000);
  });
});
