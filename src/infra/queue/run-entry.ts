import type { Logger } from 'pino';
import { isDeliveryError, jobErrorFor } from '../../core/delivery/failure.ts';
import { isTransient, PermanentFailure, RetryLater } from '../../core/errors.ts';
import {
  systemClock,
  type Clock,
  type JobHandler,
  type OutboxEntry,
  type OutboxRepo,
  type SettledAttempt,
} from '../../core/ports.ts';

/** Options both queue adapters share: how entries are claimed and retried. */
export interface DeliveryOptions {
  /** How often to look for due entries when nobody kicks; default 500 ms. */
  pollMs?: number;
  /** Handlers running at once in this process; default 4. */
  concurrency?: number;
  /** Attempts before an entry that keeps throwing an error not known to pass (a bug) is marked failed; default 8. */
  maxAttempts?: number;
  /**
   * How long an entry that keeps meeting transient failures (an outage, a rate limit, the database away) is retried,
   * counted from when it was written; default 30 minutes. An entry older than that still gets LAST_TRIES attempts.
   */
  maxAgeMs?: number;
  /** Delay before the next attempt after attempt `n` threw; default exponential with jitter, 1 s up to 5 min. */
  backoff?: (attempt: number) => number;
  /**
   * How long a claimed entry stays with this process before another may take it
   * (its process is presumed dead); default 30 s. It is renewed every third of
   * that while the handler runs, so only a dead or frozen process loses it.
   */
  leaseMs?: number;
  /**
   * Ingest first: while a request waits for its acknowledgement (`JobQueue.holdForIngest`), new entries wait to be
   * claimed, for this long at most, after which claims go on unheld for as long again; default 1 s, 0 turns it off.
   */
  ingestFirstMs?: number;
  clock?: Clock;
}

export type ResolvedDelivery = Required<DeliveryOptions>;

export function resolveDelivery(o: DeliveryOptions): ResolvedDelivery {
  return {
    pollMs: o.pollMs ?? 500,
    concurrency: o.concurrency ?? 4,
    maxAttempts: o.maxAttempts ?? 8,
    maxAgeMs: o.maxAgeMs ?? 30 * 60_000,
    backoff: o.backoff ?? exponentialBackoff(),
    leaseMs: o.leaseMs ?? 30_000,
    ingestFirstMs: o.ingestFirstMs ?? 1_000,
    clock: o.clock ?? systemClock,
  };
}

/**
 * Doubles from `baseMs` per attempt up to `capMs`, then picks uniformly in the
 * upper half so processes that failed together do not retry together.
 */
function exponentialBackoff({ baseMs = 1_000, capMs = 5 * 60_000, random = Math.random } = {}) {
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
  /** Records an outcome in the outbox; by default one statement each (markDone, markRetry, markFailed). */
  record?: (entry: OutboxEntry, outcome: Outcome) => Promise<void>;
}

/** The outcome as `OutboxRepo.claimDue` records it with a later claim. */
export function settledAttempt(entry: OutboxEntry, outcome: Outcome): SettledAttempt {
  const at = { id: entry.id, attempt: entry.attempts };
  switch (outcome.kind) {
    case 'done':
      return { ...at, status: 'done' };
    case 'retry':
      return { ...at, status: 'pending', error: outcome.error, runAt: outcome.runAt };
    case 'failed':
      return { ...at, status: 'failed', error: outcome.error };
  }
}

/** Records an outcome by itself: one statement. */
export async function recordAlone(outbox: OutboxRepo, entry: OutboxEntry, outcome: Outcome): Promise<void> {
  switch (outcome.kind) {
    case 'done':
      return outbox.markDone(entry.id, entry.attempts);
    case 'retry':
      return outbox.markRetry(entry.id, outcome.error, outcome.runAt, entry.attempts);
    case 'failed':
      return outbox.markFailed(entry.id, outcome.error, entry.attempts);
  }
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
  await (ctx.record ?? ((e, o) => recordAlone(ctx.outbox, e, o)))(entry, outcome);
  switch (outcome.kind) {
    case 'done':
      ctx.logger.debug(where, 'job done');
      break;
    case 'retry':
      ctx.logger.warn({ ...where, error: outcome.error, retryAt: outcome.runAt }, 'job failed; will retry');
      break;
    case 'failed':
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
  const timer = setInterval(
    () => {
      renewing = ctx.outbox.renewLease(entry.id, entry.attempts, new Date(clock.now().getTime() + leaseMs)).then(
        (held) => {
          if (held || controller.signal.aborted) return;
          ctx.logger.warn(
            { entryId: entry.id, topic: entry.topic, attempt: entry.attempts },
            'lost the lease of a running job; another worker has it',
          );
          controller.abort();
          clearInterval(timer);
        },
        (err: unknown) => {
          // The database may be back before the lease runs out; the next beat tries again.
          ctx.logger.warn({ err, entryId: entry.id }, 'could not renew the lease of a running job');
        },
      );
    },
    Math.max(10, Math.floor(leaseMs / 3)),
  );
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
  // A topic this process does not know is another version's (during a rolling upgrade): left for a process that
  // knows it, as a transient failure, so it fails for good only once it is past maxAgeMs.
  if (!handler)
    return verdict(
      entry,
      new RetryLater(`no handler for topic ${entry.topic} in this process`, UNKNOWN_TOPIC_RETRY_MS),
      ctx.delivery,
    );
  try {
    await handler(entry.payload, {
      attempt: entry.attempts,
      entryId: entry.id,
      signal,
      failsForGood: (e) => verdict(entry, e, ctx.delivery).kind === 'failed',
      ...(entry.inbound ? { inbound: entry.inbound } : {}),
    });
    return { kind: 'done' };
  } catch (e) {
    return verdict(entry, e, ctx.delivery);
  }
}

/**
 * What becomes of an entry whose attempt threw `thrown`: a permanent failure
 * stops it; a transient one (an outage, a rate limit, the database away) is
 * retried until the entry is older than maxAgeMs, however many attempts that
 * takes; anything else (a bug, most likely) stops after maxAttempts.
 */
function verdict(entry: OutboxEntry, thrown: unknown, delivery: ResolvedDelivery): Exclude<Outcome, { kind: 'done' }> {
  const e = isDeliveryError(thrown) ? jobErrorFor(thrown.failure) : thrown;
  if (e instanceof PermanentFailure) return { kind: 'failed', error: e.reason };
  const { maxAttempts, maxAgeMs, backoff, clock } = delivery;
  const error = describe(e);
  const now = clock.now().getTime();
  if (isTransient(e)) {
    const ageMs = now - entry.createdAt.getTime();
    // An entry that waited behind others of its conversation may be old before its first attempt: it still gets a few.
    if (ageMs >= maxAgeMs && entry.attempts >= LAST_TRIES) {
      return { kind: 'failed', error: `gave up after ${entry.attempts} attempts over ${duration(ageMs)}: ${error}` };
    }
  } else if (entry.attempts >= maxAttempts) {
    return { kind: 'failed', error: `gave up after ${entry.attempts} attempts: ${error}` };
  }
  const delayMs = e instanceof RetryLater ? e.afterMs : backoff(entry.attempts);
  return { kind: 'retry', error, runAt: new Date(now + Math.max(0, delayMs)) };
}

/** When an entry of a topic this process does not know is tried again (by whichever process claims it then). */
const UNKNOWN_TOPIC_RETRY_MS = 60_000;

/** Attempts an entry past its max age still gets when its failures are transient. */
export const LAST_TRIES = 3;

const duration = (ms: number) => (ms < 60_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`);

/** A thrown value as text, whatever it is (an object without a string form too: recording the outcome must not throw). */
function describe(e: unknown): string {
  if (e instanceof Error) return e.message || e.name;
  try {
    return String(e);
  } catch {
    return Object.prototype.toString.call(e);
  }
}
