/** Stable codes every adapter maps to its own transport (HTTP status, MCP isError, CLI exit). */
export type ErrorCode =
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'NOT_PERMITTED'
  | 'NEEDS_SEAT'
  | 'PLAN_LIMIT'
  | 'INVALID_INPUT'
  | 'STALE_VERSION'
  | 'RATE_LIMITED'
  | 'UNAUTHENTICATED'
  | 'UNAVAILABLE';

/**
 * The one error family of Switchboard. `message` is a sentence a person or an
 * agent can act on: what went wrong (`reason`), then what to do (`hint`);
 * `details` carries machine-readable facts (limits, counts, the rule). A
 * surface that knows a better way out swaps the hint with `withHint`, never by
 * editing the text.
 */
export class SwitchboardError extends Error {
  readonly reason: string;

  constructor(
    readonly code: ErrorCode,
    reason: string,
    readonly details: Record<string, unknown> = {},
    readonly hint: string = '',
  ) {
    super(hint ? `${reason} ${hint}` : reason);
    this.name = 'SwitchboardError';
    this.reason = reason;
  }

  /** The same error with another hint (e.g. naming the web page instead of an MCP tool). */
  withHint(hint: string): SwitchboardError {
    return new SwitchboardError(this.code, this.reason, this.details, hint);
  }
}

export const notFound = (what: string, hint = '') =>
  new SwitchboardError('NOT_FOUND', `${what} was not found.${hint ? ' ' + hint : ''}`);
export const conflict = (message: string, details?: Record<string, unknown>) =>
  new SwitchboardError('CONFLICT', message, details);
export const notPermitted = (message: string, details?: Record<string, unknown>) =>
  new SwitchboardError('NOT_PERMITTED', message, details);
export const invalidInput = (message: string, details?: Record<string, unknown>) =>
  new SwitchboardError('INVALID_INPUT', message, details);
export const planLimit = (message: string, details?: Record<string, unknown>) =>
  new SwitchboardError('PLAN_LIMIT', message, details);

export const isSwitchboardError = (e: unknown): e is SwitchboardError => e instanceof SwitchboardError;

/**
 * A refusal the person can act on (permissions, limits, bad input), as opposed
 * to an outage (`UNAVAILABLE`): work that hit an outage is retried, never
 * answered with the outage's sentence and dropped.
 */
export const isRefusal = (e: unknown): e is SwitchboardError => isSwitchboardError(e) && !isOutage(e);

/** The database (or another part Switchboard needs) is away for now: retry later. */
export const isOutage = (e: unknown): boolean => isSwitchboardError(e) && e.code === 'UNAVAILABLE';

/** Thrown by job handlers when retrying cannot help (the queue records it and stops). */
export class PermanentFailure extends Error {
  constructor(
    message: string,
    readonly reason: string = message,
  ) {
    super(message);
    this.name = 'PermanentFailure';
  }
}

/**
 * Thrown by job handlers when the failure passes with time (a platform's 5xx or
 * timeout, the network, a rate limit): the queue retries it with backoff until
 * the job is too old, however many attempts that takes.
 */
export class TransientFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TransientFailure';
  }
}

/** Thrown by job handlers when the platform asked us to wait (e.g. HTTP 429 Retry-After): transient, with its wait. */
export class RetryLater extends TransientFailure {
  constructor(
    message: string,
    readonly afterMs: number,
  ) {
    super(message);
    this.name = 'RetryLater';
  }
}

/** A failure retrying fixes once the outage is over: a TransientFailure, or the database away (UNAVAILABLE). */
export const isTransient = (e: unknown): boolean => e instanceof TransientFailure || isOutage(e);
