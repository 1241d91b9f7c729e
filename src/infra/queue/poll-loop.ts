import type { Logger } from 'pino';

/**
 * Calls `tick` every `pollMs`, at once when kicked, and again straight away
 * while `tick` says there may be more to do. A failing tick is logged and
 * tried again after the interval, so a database outage does not spin.
 *
 * A tick can be held back (`hold`) while something more urgent runs: a
 * request waiting for its acknowledgement. It then waits until every hold is
 * released and none came for HOLD_LINGER_MS (requests arriving one after
 * another leave short gaps that must not let a claim in), but never longer
 * than `maxHoldMs`; after waiting that long, ticks run unheld for as long
 * again, so a steady stream of holds slows the work down by half at most and
 * never stops it.
 */
/** How long a released hold still counts (see PollLoop). */
export const HOLD_LINGER_MS = 50;

export class PollLoop {
  private running = false;
  private kicked = false;
  private wake: (() => void) | null = null;
  private finished: Promise<void> = Promise.resolve();
  private holds = 0;
  private lastRelease = -Infinity;
  private unheld: (() => void) | null = null;
  private unheldUntil = 0;

  constructor(
    private readonly o: {
      name: string;
      pollMs: number;
      logger: Logger;
      tick: () => Promise<boolean>;
      maxHoldMs?: number;
    },
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.finished = this.run();
  }

  kick(): void {
    this.kicked = true;
    this.wake?.();
  }

  /** Holds ticks back until the returned function is called (see the class comment). */
  hold(): () => void {
    this.holds += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds -= 1;
      this.lastRelease = Date.now();
      if (this.holds === 0) this.unheld?.();
    };
  }

  /** Resolves once the current tick, if any, has returned. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    this.unheld?.();
    await this.finished;
  }

  private async run(): Promise<void> {
    while (this.running) {
      await this.whileHeld();
      if (!this.running) break;
      this.kicked = false;
      let more = false;
      try {
        more = await this.o.tick();
      } catch (e) {
        this.o.logger.error({ err: e, loop: this.o.name }, 'could not look for due jobs; trying again shortly');
      }
      if (!this.running) break;
      if (more || this.kicked) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.o.pollMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }

  /** Waits while held, for `maxHoldMs` at most; a wait that long leaves the next `maxHoldMs` unheld. */
  private async whileHeld(): Promise<void> {
    const maxMs = this.o.maxHoldMs ?? 0;
    if (maxMs <= 0 || Date.now() < this.unheldUntil) return;
    const deadline = Date.now() + maxMs;
    while (this.running) {
      const now = Date.now();
      const quietAt = this.holds > 0 ? Infinity : this.lastRelease + HOLD_LINGER_MS;
      if (quietAt <= now) return;
      if (now >= deadline) {
        this.unheldUntil = now + maxMs;
        return;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(deadline, quietAt) - now);
        this.unheld = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.unheld = null;
    }
  }
}
