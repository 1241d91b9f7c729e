// One pacer for every platform: each keeps its own limits (Slack about one
// post a second per channel; Teams 7/1 s, 8/2 s, 60/30 s, 1800/h per
// conversation) as windows, and a 429 holds the conversation back. Pure: the
// clock and the sleep are injected.
import { RetryLater } from '../errors.ts';
import { isDeliveryError } from './failure.ts';

/** At most `max` posts in any `perMs` milliseconds. */
export interface PaceWindow {
  max: number;
  perMs: number;
}

export interface PacerOptions {
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /**
   * Widens every window a little: the platform counts posts as they arrive,
   * and network jitter must not push two of them into one window.
   */
  marginMs?: number;
  /**
   * A wait longer than this is not slept through inside a job (it would hold
   * one of the queue's few slots): `wait` throws RetryLater instead, and the
   * entry comes back when its turn is near. Default 40 s (above the longest
   * window a burst usually meets, Teams' 30 s).
   */
  maxWaitMs?: number;
}

/**
 * Paces calls per key (a channel, a conversation) within this process.
 * Several processes each pace their own calls, and the platform's 429 covers the rest.
 */
export class Pacer {
  /** Send times per key, ascending. */
  private readonly slots = new Map<string, number[]>();
  private readonly pausedUntil = new Map<string, number>();
  private readonly horizonMs: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly marginMs: number;
  private readonly maxWaitMs: number;

  constructor(
    private readonly windows: PaceWindow[],
    o: PacerOptions = {},
  ) {
    this.now = o.now ?? Date.now;
    this.sleep = o.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.marginMs = o.marginMs ?? 0;
    this.maxWaitMs = o.maxWaitMs ?? 40_000;
    this.horizonMs = Math.max(0, ...windows.map((w) => w.perMs + this.marginMs));
  }

  /**
   * Resolves when a call into `key` may go out, and records it as made then.
   * The moment is taken when the wait ends, not when it began: a late timer
   * (a busy event loop) must not make a later call look further apart than it is.
   * Throws RetryLater when the wait would be longer than `maxWaitMs`.
   */
  async wait(key: string): Promise<void> {
    for (;;) {
      const now = this.now();
      const times = (this.slots.get(key) ?? []).filter((t) => t > now - this.horizonMs);
      this.slots.set(key, times);
      const at = this.earliest(times, Math.max(now, this.pausedUntil.get(key) ?? 0));
      if (at <= now) {
        times.push(now);
        this.forget(now);
        return;
      }
      if (at - now > this.maxWaitMs)
        throw new RetryLater(
          `paced: the platform's limit for this conversation allows the next post in ${at - now} ms`,
          at - now,
        );
      await this.sleep(at - now);
    }
  }

  /** Holds `key` back for `ms` (the platform's Retry-After). */
  pause(key: string, ms: number): void {
    this.pausedUntil.set(key, Math.max(this.pausedUntil.get(key) ?? 0, this.now() + ms));
  }

  /** The first moment at or after `from` when one more call keeps every window within its limit. */
  private earliest(times: number[], from: number): number {
    let at = from;
    for (;;) {
      let next = at;
      for (const w of this.windows) {
        const span = w.perMs + this.marginMs;
        const inWindow = times.filter((t) => t > at - span);
        // The call `max` places back must have left the window.
        if (inWindow.length >= w.max) next = Math.max(next, inWindow[inWindow.length - w.max]! + span);
      }
      if (next === at) return at;
      at = next;
    }
  }

  /** Drops keys idle past the longest window, so the maps do not grow without end. */
  private forget(now: number) {
    if (this.slots.size < 1000) return;
    for (const [key, times] of this.slots) {
      if ((times.at(-1) ?? 0) < now - this.horizonMs) this.slots.delete(key);
    }
    for (const [key, until] of this.pausedUntil) if (until < now) this.pausedUntil.delete(key);
  }
}

/**
 * Makes one platform call in its turn: waits for the pacer, and when the
 * platform answers 429 holds the key back for its Retry-After, so the calls
 * queued behind it wait too instead of meeting the same 429.
 */
export async function pacedCall<T>(pacer: Pacer, key: string, call: () => Promise<T>): Promise<T> {
  await pacer.wait(key);
  try {
    return await call();
  } catch (e) {
    if (isDeliveryError(e) && e.failure.kind === 'rate_limited') pacer.pause(key, e.failure.afterMs ?? 1_000);
    throw e;
  }
}
