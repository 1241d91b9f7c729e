/**
 * Spaces posts into one Slack channel (Slack allows about one message a second
 * per channel) and holds a channel back after a 429. In-process: several
 * processes each pace their own posts, and Slack's 429 covers the rest.
 */
export class ChannelPacer {
  private readonly nextAt = new Map<string, number>();

  constructor(private readonly intervalMs: number, private readonly now: () => number = Date.now) {}

  /** Resolves when a post into `channel` may go out, and reserves that slot. */
  async wait(channel: string): Promise<void> {
    const now = this.now();
    const at = Math.max(now, this.nextAt.get(channel) ?? 0);
    this.nextAt.set(channel, at + this.intervalMs);
    this.forget(now);
    if (at > now) await new Promise((resolve) => setTimeout(resolve, at - now));
  }

  /** Holds `channel` back for `ms` (Slack's Retry-After). */
  pause(channel: string, ms: number): void {
    this.nextAt.set(channel, Math.max(this.nextAt.get(channel) ?? 0, this.now() + ms));
  }

  /** Drops channels idle for a while, so the map does not grow without end. */
  private forget(now: number) {
    if (this.nextAt.size < 1000) return;
    for (const [channel, at] of this.nextAt) if (at < now - 60_000) this.nextAt.delete(channel);
  }
}
