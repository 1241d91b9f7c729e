// The poll loop's holds (ingest first): while a request waits for its acknowledgement, and for HOLD_LINGER_MS after
// the last one was answered, the loop claims nothing, for maxHoldMs at most, and after a hold that long it runs
// unheld for as long again. Timers are faked, so every
// step is exact: nothing here waits on the clock.
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HOLD_LINGER_MS, PollLoop } from '../../../src/infra/queue/poll-loop.ts';

const logger = pino({ level: 'silent' });

describe('PollLoop holds', () => {
  let loop: PollLoop | null = null;
  let ticks = 0;
  const start = (maxHoldMs: number) => {
    // A long poll: ticks come from start and kicks only.
    loop = new PollLoop({
      name: 'test',
      pollMs: 3_600_000,
      maxHoldMs,
      logger,
      tick: async () => {
        ticks += 1;
        return false;
      },
    });
    loop.start();
    return loop;
  };

  beforeEach(() => {
    vi.useFakeTimers();
    ticks = 0;
  });
  afterEach(async () => {
    const stopping = loop?.stop();
    await vi.runOnlyPendingTimersAsync();
    await stopping;
    loop = null;
    vi.useRealTimers();
  });

  it('ticks at once when nothing holds it', async () => {
    start(60_000);
    await vi.advanceTimersByTimeAsync(0);
    expect(ticks).toBe(1);
  });

  it('waits until every hold is released and none came for HOLD_LINGER_MS', async () => {
    const l = new PollLoop({
      name: 'test',
      pollMs: 3_600_000,
      maxHoldMs: 60_000,
      logger,
      tick: async () => {
        ticks += 1;
        return false;
      },
    });
    loop = l;
    const [a, b] = [l.hold(), l.hold()];
    l.start();
    await vi.advanceTimersByTimeAsync(30_000);
    expect(ticks).toBe(0);
    a();
    a(); // a second call releases nothing more
    await vi.advanceTimersByTimeAsync(0);
    expect(ticks).toBe(0);
    b();
    await vi.advanceTimersByTimeAsync(HOLD_LINGER_MS - 1);
    expect(ticks).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(ticks).toBe(1);
    // Held again: a kick waits for the release too, and a request arriving in the gap after one answered still counts.
    const c = l.hold();
    l.kick();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(ticks).toBe(1);
    c();
    await vi.advanceTimersByTimeAsync(HOLD_LINGER_MS - 1);
    const d = l.hold();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(ticks).toBe(1);
    d();
    await vi.advanceTimersByTimeAsync(HOLD_LINGER_MS);
    expect(ticks).toBe(2);
  });

  it('waits maxHoldMs at most, then runs unheld for as long again before a hold counts again', async () => {
    const l = start(500);
    l.hold(); // never released: requests keep coming
    await vi.advanceTimersByTimeAsync(0);
    expect(ticks).toBe(1); // the tick at start was not held (the hold came after it)
    l.kick();
    await vi.advanceTimersByTimeAsync(499);
    expect(ticks).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(ticks).toBe(2);
    // The next 500 ms are unheld: a kick ticks at once.
    await vi.advanceTimersByTimeAsync(400);
    l.kick();
    await vi.advanceTimersByTimeAsync(0);
    expect(ticks).toBe(3);
    // After them, holds count again.
    await vi.advanceTimersByTimeAsync(100);
    l.kick();
    await vi.advanceTimersByTimeAsync(499);
    expect(ticks).toBe(3);
    await vi.advanceTimersByTimeAsync(1);
    expect(ticks).toBe(4);
  });

  it('holds nothing when maxHoldMs is 0', async () => {
    const l = new PollLoop({
      name: 'test',
      pollMs: 3_600_000,
      maxHoldMs: 0,
      logger,
      tick: async () => {
        ticks += 1;
        return false;
      },
    });
    loop = l;
    l.hold();
    l.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(ticks).toBe(1);
  });

  it('stops while held without ticking', async () => {
    const l = new PollLoop({
      name: 'test',
      pollMs: 3_600_000,
      maxHoldMs: 60_000,
      logger,
      tick: async () => {
        ticks += 1;
        return false;
      },
    });
    l.hold();
    l.start();
    await vi.advanceTimersByTimeAsync(1_000);
    await l.stop();
    expect(ticks).toBe(0);
  });
});
