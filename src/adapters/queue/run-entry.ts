import type { Logger } from 'pino';
import { PermanentFailure, RetryLater } from '../../domain/errors.ts';
import { systemClock, type Clock, type JobHandler, type OutboxEntry, type OutboxRepo } from '../../domain/ports.ts';

/** Options both queue adapters share: how entries are claimed and retried. */
export interface DeliveryOptions {
  /** How often to look for due entries when nobody kicks; default 500 ms. */
  pollMs?: number;
  /** Handlers running at once in this process; default 4. */
  concurrency?: number;
  /** Attempts before an entry that keeps throwing is marked failed; default 8 (4× that while it is asked to wait). */
  maxAttempts?: number;
  /** Delay before the next attempt after attempt `n` threw; default exponential with jitter, 1 s up to 5 min. */
  backoff?: (attempt: number) => number;
  /**
   * How long a claimed entry stays with this process before another may take it
   * (its process is presumed dead); default 30 s. It is renewed every third of
   * that while the handler runs, so only a dead or frozen process loses it.
   */
  leaseMs?: number;
  clock?: Clock;
}

export type ResolvedDelivery = Required<DeliveryOptions>;

export function resolveDelivery(o: DeliveryOptions): ResolvedDelivery {
  return {
    pollMs: o.pollMs ?? 500,
    concurrency: o.concurrency ?? 4,
    maxAttempts: o.maxAttempts ?? 8,
    backoff: o.backoff ?? exponentialBackoff(),
    leaseMs: o.leaseMs ?? 30_000,
    clock: o.clock ?? systemClock,
  };
}

/**
 * Doubles from `baseMs` per attempt up to `capMs`, then picks uniformly in the
 * upper half so processes that failed together do not retry together.
 */
export function exponentialBackoff({ baseMs = 1_000, capMs = 5 * 60_000, random = Math.random } = {}) {
  return (attempt: number) => {
    const ceiling = Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
    return Math.round(ceiling / 2 + random() * (ceiling / 2));
  };
}

/** An outbox repository, or a function returning the current one (when it is built after the queue). */
export type OutboxSource = OutboxRepo | (() => OutboxRepo);

export const outboxOf = (source: OutboxSource): (() => OutboxRepo) =>
  typeof source === 'function' ? source : () => source;

/** What became of one attempt, as recorded in the outbox. */
export type Outcome =
  | { kind: 'done' }
  | { kind: 'retry'; error: string; runAt: Date }
  | { kind: 'failed'; error: string };

export interface RunContext {
  handlers: ReadonlyMap<string, JobHandler>;
  outbox: OutboxRepo;
  delivery: ResolvedDelivery;
  logger: Logger;
}

/**
 * Runs the handler for one claimed entry and records the outcome in the outbox.
 * The lease is renewed while the handler runs; a worker that finds its claim
 * gone (it stalled past the lease and another took the entry) aborts the
 * handler's signal and records nothing. Throws only when recording fails; the
 * entry then stays queued until its lease runs out and is delivered again.
 */
export async function runEntry(entry: OutboxEntry, ctx: RunContext): Promise<Outcome> {
  const lease = holdLease(entry, ctx);
  let outcome: Outcome;
  try {
    outcome = await attempt(entry, ctx, lease.signal);
  } finally {
    await lease.release();
  }
  const where = { entryId: entry.id, topic: entry.topic, attempt: entry.attempts };
  switch (outcome.kind) {
    case 'done':
      await ctx.outbox.markDone(entry.id, entry.attempts);
      ctx.logger.debug(where, 'job done');
      break;
    case 'retry':
      await ctx.outbox.markRetry(entry.id, outcome.error, outcome.runAt, entry.attempts);
      ctx.logger.warn({ ...where, error: outcome.error, retryAt: outcome.runAt }, 'job failed; will retry');
      break;
    case 'failed':
      await ctx.outbox.markFailed(entry.id, outcome.error, entry.attempts);
      ctx.logger.error({ ...where, error: outcome.error }, 'job failed for good');
      break;
  }
  return outcome;
}

/** Renews the entry's lease every third of its length until released; aborts `signal` if the claim is lost. */
function holdLease(entry: OutboxEntry, ctx: RunContext): { signal: AbortSignal; release(): Promise<void> } {
  const { leaseMs, clock } = ctx.delivery;
  const controller = new AbortController();
  let renewing: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    renewing = ctx.outbox.renewLease(entry.id, entry.attempts, new Date(clock.now().getTime() + leaseMs)).then((held) => {
      if (held || controller.signal.aborted) return;
      ctx.logger.warn({ entryId: entry.id, topic: entry.topic, attempt: entry.attempts }, 'lost the lease of a running job; another worker has it');
      controller.abort();
      clearInterval(timer);
    }, (err: unknown) => {
      // The database may be back before the lease runs out; the next beat tries again.
      ctx.logger.warn({ err, entryId: entry.id }, 'could not renew the lease of a running job');
    });
  }, Math.max(10, Math.floor(leaseMs / 3)));
  return {
    signal: controller.signal,
    async release() {
      clearInterval(timer);
      await renewing;
    },
  };
}

async function attempt(entry: OutboxEntry, ctx: RunContext, signal: AbortSignal): Promise<Outcome> {
  const handler = ctx.handlers.get(entry.topic);
  if (!handler) return { kind: 'failed', error: `no handler for topic ${entry.topic}` };
  const { maxAttempts, backoff, clock } = ctx.delivery;
  try {
    await handler(entry.payload, { attempt: entry.attempts, entryId: entry.id, signal });
    return { kind: 'done' };
  } catch (e) {
    if (e instanceof PermanentFailure) return { kind: 'failed', error: e.reason };
    const error = describe(e);
    // Being asked to wait (a 429 with Retry-After, or our own pacing) is not a failure of the work, so it may go on
    // past maxAttempts; it still counts, so a platform that never recovers cannot hold an entry forever.
    const budget = e instanceof RetryLater ? maxAttempts * RETRY_LATER_FACTOR : maxAttempts;
    if (entry.attempts >= budget) return { kind: 'failed', error: `gave up after ${entry.attempts} attempts: ${error}` };
    const delayMs = e instanceof RetryLater ? e.afterMs : backoff(entry.attempts);
    return { kind: 'retry', error, runAt: new Date(clock.now().getTime() + Math.max(0, delayMs)) };
  }
}

/** How many times maxAttempts an entry may be retried while the platform keeps asking it to wait. */
export const RETRY_LATER_FACTOR = 4;

const describe = (e: unknown) => (e instanceof Error ? e.message || e.name : String(e));
