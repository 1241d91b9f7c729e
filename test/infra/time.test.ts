import { afterEach, describe, expect, it, vi } from 'vitest';
import { settlesWithin } from '../../src/infra/time.ts';

// One bound for every wait that must not hang: the queue's stop and ping, a failed start's close (server.ts).
describe('settlesWithin', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is true for a promise that settles in time, and leaves no timer behind', async () => {
    vi.useFakeTimers();
    expect(await settlesWithin(Promise.resolve('done'), 10_000)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('is false once the time is up while the promise is still pending', async () => {
    vi.useFakeTimers();
    const answer = settlesWithin(new Promise(() => {}), 10_000);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await answer).toBe(false);
  });

  it('throws the rejection of a promise that fails in time', async () => {
    vi.useFakeTimers();
    await expect(settlesWithin(Promise.reject(new Error('Redis refused')), 10_000)).rejects.toThrow('Redis refused');
    expect(vi.getTimerCount()).toBe(0);
  });
});
