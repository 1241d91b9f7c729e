import type { Logger } from 'pino';
import type { JobHandler, JobQueue, OutboxEntry } from '../../domain/ports.ts';
import { PollLoop } from './poll-loop.ts';
import { outboxOf, resolveDelivery, runEntry, type DeliveryOptions, type OutboxSource, type ResolvedDelivery } from './run-entry.ts';

export interface EmbeddedQueueOptions extends DeliveryOptions {
  outbox: OutboxSource;
  logger: Logger;
}

/**
 * Delivers outbox entries from inside this process, polling the database.
 * Several processes may run one each over the same database: claiming skips
 * what others hold, and an ordering key is only ever in flight once.
 */
export class EmbeddedQueue implements JobQueue {
  private readonly handlers = new Map<string, JobHandler>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly delivery: ResolvedDelivery;
  private readonly outbox;
  private readonly logger: Logger;
  private readonly loop: PollLoop;

  constructor(o: EmbeddedQueueOptions) {
    this.delivery = resolveDelivery(o);
    this.outbox = outboxOf(o.outbox);
    this.logger = o.logger;
    this.loop = new PollLoop({ name: 'embedded-queue', pollMs: this.delivery.pollMs, maxHoldMs: this.delivery.ingestFirstMs, logger: o.logger, tick: () => this.claim() });
  }

  register(topic: string, handler: JobHandler): void {
    this.handlers.set(topic, handler);
  }

  async start(): Promise<void> {
    this.loop.start();
  }

  kick(): void {
    this.loop.kick();
  }

  holdForIngest(): () => void {
    return this.loop.hold();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    await Promise.allSettled([...this.inFlight]);
  }

  async ping(): Promise<void> {}

  /** Claims as many due entries as there are free slots; true when there may be more. */
  private async claim(): Promise<boolean> {
    const free = this.delivery.concurrency - this.inFlight.size;
    if (free <= 0) return false; // a finishing job kicks the loop
    const entries = await this.outbox().claimDue(free, this.delivery.clock.now(), this.delivery.leaseMs);
    for (const entry of entries) this.dispatch(entry);
    return entries.length === free;
  }

  private dispatch(entry: OutboxEntry): void {
    const ctx = { handlers: this.handlers, outbox: this.outbox(), delivery: this.delivery, logger: this.logger };
    const job: Promise<void> = runEntry(entry, ctx)
      .then(() => undefined, (e: unknown) => {
        this.logger.error({ err: e, entryId: entry.id, topic: entry.topic }, 'could not record the job outcome; it runs again when its lease ends');
      })
      .finally(() => {
        this.inFlight.delete(job);
        // A free slot, and perhaps the next entry of the same ordering key.
        this.loop.kick();
      });
    this.inFlight.add(job);
  }
}
