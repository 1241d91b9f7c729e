// The one failure type of outbound delivery. Each surface adapter translates
// its SDK's errors into a DeliveryFailure in one place (its errors.ts); what a
// failure means for the job that made the call is decided here, once.
import { PermanentFailure, RetryLater, TransientFailure } from '../errors.ts';

/** What a failed platform call means, whichever platform it was. */
export type DeliveryFailure =
  /** The platform asked us to wait (HTTP 429); `afterMs` is its Retry-After, null when it gave none. */
  | { kind: 'rate_limited'; afterMs: number | null; reason: string }
  /** Network trouble, the platform's own outage, a timeout: the call may work later (and may have reached the platform). */
  | { kind: 'transient'; reason: string }
  /**
   * A refusal retrying cannot fix; `code` is the platform's, `reason` a sentence a person or an agent can act on.
   * `placeGone`: the channel or chat posted to is gone for the app (deleted, archived, the app taken out of it).
   */
  | { kind: 'permanent'; code: string; reason: string; placeGone?: boolean };

/** Thrown by a surface's outbound calls: the classified failure, never the SDK's error (it may carry a token). */
export class DeliveryError extends Error {
  constructor(readonly failure: DeliveryFailure) {
    super(failure.reason);
    this.name = 'DeliveryError';
  }
}

export const isDeliveryError = (e: unknown): e is DeliveryError => e instanceof DeliveryError;

/**
 * What the job queue should do about a failure: wait out a Retry-After plus a
 * little jitter (so conversations throttled together do not return together),
 * back off on other retryable failures (the queue's backoff has jitter too),
 * both until the job is too old, or stop for good.
 */
export function jobErrorFor(failure: DeliveryFailure, random: () => number = Math.random): Error {
  switch (failure.kind) {
    case 'rate_limited':
      return failure.afterMs === null
        ? new TransientFailure(failure.reason)
        : new RetryLater(
            failure.reason,
            Math.round(failure.afterMs + random() * Math.min(5_000, 250 + failure.afterMs / 5)),
          );
    case 'transient':
      return new TransientFailure(failure.reason);
    case 'permanent':
      return new PermanentFailure(failure.reason, `${failure.reason} (${failure.code})`);
  }
}
