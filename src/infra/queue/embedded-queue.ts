import type { Logger } from 'pino';
import type { JobHandler, JobQueue, OutboxEntry } from '../../core/ports.ts';
import { PollLoop } from './poll-loop.ts';
import {
  outboxOf,
  recordAlone,
  resolveDelivery,
  runEntry,
  settledAttempt,
  type DeliveryOptions,
  type Outcome,
  type OutboxSource,
  type ResolvedDelivery,
} from './run-entry.ts';

export interface EmbeddedQueueOptions extends DeliveryOptions {
  outbox: OutboxSource;
  logger: Logger;
}

/** An outcome waiting to be recorded by the next claim, and the job waiting for it. */
interface Settling {
  entry: OutboxEntry;
  outcome: Outcome;
  recorded(): void;
  failed(e: unknown): void;
}

/**
 * Delivers outbox entries from inside this process, polling the database.
 * Several processes may run one each over the same database: claiming skips
 * what others hold, and an ordering key is only ever in flight once.
 *
 * A finished job's outcome is recorded by the next claim, in the same
 * statement (OutboxRepo.claimDue's `settled`): the jobs that finished while a
 * claim was in flight are recorded together, and the next entry of a finished
 * job's ordering key is claimed by that statement too.
 */
export class EmbeddedQueue implements JobQueue {
  private readonly handlers = new Map<string, JobHandler>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly delivery: ResolvedDelivery;
  private readonly outbox;
  private readonly logger: Logger;
  private readonly loop: PollLoop;
  private settling: Settling[] = [];
  private stopping = false;

  constructor(o: EmbeddedQueueOptions) {
    this.delivery = resolveDelivery(o);
    this.outbox = outboxOf(o.outbox);
    this.logger = o.logger;
    this.loop = new PollLoop({
      name: 'embedded-queue',
      pollMs: this.delivery.pollMs,
      maxHoldMs: this.delivery.ingestFirstMs,
      logger: o.logger,
      tick: () => this.claim(),
    });
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
    // Outcomes from here on are recorded one by one, as the loop will not claim again.
    this.stopping = true;
    await this.loop.stop();
    await this.recordSettling(0).catch((err: unknown) =>
      this.logger.error({ err }, 'could not record the last job outcomes; those jobs run again when their leases end'),
    );
    await Promise.allSettled([...this.inFlight]);
  }

  async ping(): Promise<void> {}

  /** Records the outcomes waiting and claims as many due entries as there are free slots; true when there may be more. */
  private async claim(): Promise<boolean> {
    // Jobs whose outcome waits here free their slot once it is recorded, by this very statement.
    const free = this.delivery.concurrency - this.inFlight.size + this.settling.length;
    if (free <= 0) return false; // a finishing job kicks the loop
    const entries = await this.recordSettling(free);
    for (const entry of entries) this.dispatch(entry);
    return entries.length === free;
  }

  /** One statement: the outcomes waiting, and a claim of up to `limit` entries. */
  private async recordSettling(limit: number): Promise<OutboxEntry[]> {
    const batch = this.settling.splice(0);
    if (!batch.length && limit <= 0) return [];
    try {
      const entries = await this.outbox().claimDue(
        limit,
        this.delivery.clock.now(),
        this.delivery.leaseMs,
        batch.map((s) => settledAttempt(s.entry, s.outcome)),
      );
      for (const s of batch) s.recorded();
      return entries;
    } catch (e) {
      // One outcome the database refuses must not cost the others theirs: each is tried alone (in an outage, in vain).
      await Promise.all(batch.map((s) => recordAlone(this.outbox(), s.entry, s.outcome).then(s.recorded, s.failed)));
      throw e;
    }
  }

  /** How a job's outcome is recorded: with the next claim, or by itself once the queue stops. */
  private record = (entry: OutboxEntry, outcome: Outcome): Promise<void> => {
    if (this.stopping) return recordAlone(this.outbox(), entry, outcome);
    return new Promise<void>((recorded, failed) => {
      this.settling.push({ entry, outcome, recorded, failed });
      this.loop.kick();
    });
  };

  private dispatch(entry: OutboxEntry): void {
    const ctx = {
      handlers: this.handlers,
      outbox: this.outbox(),
      delivery: this.delivery,
      logger: this.logger,
      record: this.record,
    };
    const job: Promise<void> = runEntry(entry, ctx)
      .then(
        () => undefined,
        (e: unknown) => {
          this.logger.error(
            { err: e, entryId: entry.id, topic: entry.topic },
            'could not record the job outcome; it runs again when its lease ends',
          );
        },
      )
      // The claim that recorded the outcome filled the slot already (and took the next entry of the same ordering key).
      .finally(() => {
        this.inFlight.delete(job);
      });
    this.inFlight.add(job);
  }
}
