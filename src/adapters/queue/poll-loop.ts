import type { Logger } from 'pino';

/**
 * Calls `tick` every `pollMs`, at once when kicked, and again straight away
 * while `tick` says there may be more to do. A failing tick is logged and
 * tried again after the interval, so a database outage does not spin.
 */
export class PollLoop {
  private running = false;
  private kicked = false;
  private wake: (() => void) | null = null;
  private finished: Promise<void> = Promise.resolve();

  constructor(private readonly o: { name: string; pollMs: number; logger: Logger; tick: () => Promise<boolean> }) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.finished = this.run();
  }

  kick(): void {
    this.kicked = true;
    this.wake?.();
  }

  /** Resolves once the current tick, if any, has returned. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.finished;
  }

  private async run(): Promise<void> {
    while (this.running) {
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
        this.wake = () => { clearTimeout(timer); resolve(); };
      });
      this.wake = null;
    }
  }
}
