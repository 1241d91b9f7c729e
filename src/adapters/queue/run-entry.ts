import type { Logger } from 'pino';
import { PermanentFailure, RetryLater } from '../../domain/errors.ts';
import { systemClock, type Clock, type JobHandler, type OutboxEntry, type OutboxRepo } from '../../domain/ports.ts';

/** Options both queue adapters share: how entries are claimed and retried. */
export interface DeliveryOptions {
  /** How often to look for due entries when nobody kicks; default 500 ms. */
  pollMs?: number;
  /** Handlers running at once in this process; default 4. */
  concurrency?: number;
  /** Attempts before an entry that keeps throwing is marked failed; default 8. */
  maxAttempts?: number;
  /** Delay before the next attempt after attempt `n` threw; default exponential with jitter, 1 s up to 5 min. */
  backoff?: (attempt: number) => number;
  /**
   * How long a claimed entry stays with this process before another may take it
   * (its process is presumed dead); default 10 min. Keep it above the slowest handler.
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
    leaseMs: o.leaseMs ?? 10 * 60_000,
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
 * Throws only when recording fails; the entry then stays queued until its lease
 * runs out and is delivered again.
 */
export async function runEntry(entry: OutboxEntry, ctx: RunContext): Promise<Outcome> {
  const outcome = await attempt(entry, ctx);
  const where = { entryId: entry.id, topic: entry.topic, attempt: entry.attempts };
  switch (outcome.kind) {
    case 'done':
      await ctx.outbox.markDone(entry.id);
      ctx.logger.debug(where, 'job done');
      break;
    case 'retry':
      await ctx.outbox.markRetry(entry.id, outcome.error, outcome.runAt);
      ctx.logger.warn({ ...where, error: outcome.error, retryAt: outcome.runAt }, 'job failed; will retry');
      break;
    case 'failed':
      await ctx.outbox.markFailed(entry.id, outcome.error);
      ctx.logger.error({ ...where, error: outcome.error }, 'job failed for good');
      break;
  }
  return outcome;
}

async function attempt(entry: OutboxEntry, ctx: RunContext): Promise<Outcome> {
  const handler = ctx.handlers.get(entry.topic);
  if (!handler) return { kind: 'failed', error: `no handler for topic ${entry.topic}` };
  const { maxAttempts, backoff, clock } = ctx.delivery;
  try {
    await handler(entry.payload, { attempt: entry.attempts, entryId: entry.id });
    return { kind: 'done' };
  } catch (e) {
    if (e instanceof PermanentFailure) return { kind: 'failed', error: e.reason };
    const error = describe(e);
    // A Retry-After counts as an attempt too, so a platform that never recovers cannot hold an entry forever.
    if (entry.attempts >= maxAttempts) return { kind: 'failed', error: `gave up after ${entry.attempts} attempts: ${error}` };
    const delayMs = e instanceof RetryLater ? e.afterMs : backoff(entry.attempts);
    return { kind: 'retry', error, runAt: new Date(clock.now().getTime() + Math.max(0, delayMs)) };
  }
}

const describe = (e: unknown) => (e instanceof Error ? e.message || e.name : String(e));
