/** At most `max` posts in any `perMs` milliseconds. */
export interface PaceWindow {
  max: number;
  perMs: number;
}

/** Teams' limits for a bot posting into one conversation. */
export const TEAMS_LIMITS: PaceWindow[] = [
  { max: 7, perMs: 1_000 },
  { max: 8, perMs: 2_000 },
  { max: 60, perMs: 30_000 },
  { max: 1_800, perMs: 3_600_000 },
];

/**
 * Paces posts into each Teams conversation so every window holds, and holds
 * a conversation back after a 429. In-process: several
 * processes each pace their own posts, and Teams' 429 covers the rest.
 */
export class ConversationPacer {
  /** Reserved send times per conversation, ascending. */
  private readonly slots = new Map<string, number[]>();
  private readonly pausedUntil = new Map<string, number>();
  private readonly horizonMs: number;

  /**
   * `marginMs` widens every window a little: Teams counts posts as they arrive,
   * and network jitter must not push two of them into one window.
   */
  constructor(
    private readonly windows: PaceWindow[],
    private readonly now: () => number = Date.now,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    private readonly marginMs = 50,
  ) {
    this.horizonMs = Math.max(0, ...windows.map((w) => w.perMs + marginMs));
  }

  /**
   * Resolves when a post into `key` may go out, and records it as sent then.
   * The moment is taken when the wait ends, not when it began: a late timer
   * (a busy event loop) must not make a later post look further apart than it is.
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
      await this.sleep(at - now);
    }
  }

  /** Holds `key` back for `ms` (Teams' Retry-After). */
  pause(key: string, ms: number): void {
    this.pausedUntil.set(key, Math.max(this.pausedUntil.get(key) ?? 0, this.now() + ms));
  }

  /** The first moment at or after `from` when one more post keeps every window within its limit. */
  private earliest(times: number[], from: number): number {
    let at = from;
    for (;;) {
      let next = at;
      for (const w of this.windows) {
        const span = w.perMs + this.marginMs;
        const inWindow = times.filter((t) => t > at - span);
        // The post `max` places back must have left the window.
        if (inWindow.length >= w.max) next = Math.max(next, inWindow[inWindow.length - w.max]! + span);
      }
      if (next === at) return at;
      at = next;
    }
  }

  /** Drops conversations idle past the longest window, so the maps do not grow without end. */
  private forget(now: number) {
    if (this.slots.size < 1000) return;
    for (const [key, times] of this.slots) {
      if ((times.at(-1) ?? 0) < now - this.horizonMs) this.slots.delete(key);
    }
    for (const [key, until] of this.pausedUntil) if (until < now) this.pausedUntil.delete(key);
  }
}
