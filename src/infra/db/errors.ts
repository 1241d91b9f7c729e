import { conflict, invalidInput, SwitchboardError } from '../../core/errors.ts';
import { NUL_REFUSAL } from '../../core/safe-text.ts';

/** The Postgres error code of `e` or of what it wraps (drizzle wraps driver errors). */
export function pgCode(e: unknown): string | undefined {
  let cur: unknown = e;
  for (let i = 0; i < 4 && cur && typeof cur === 'object'; i++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Runs `fn`, turning a unique violation into a CONFLICT with the given sentence. */
export async function uniqueOr<T>(fn: () => Promise<T>, message: string): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (pgCode(e) === '23505') throw conflict(message);
    throw e;
  }
}

// SQLSTATE 08xxx (connection exception) and 57P01–57P03 (the server is shutting down or not yet up). Not 08P01 when
// the server says the statement's bind message did not add up (the driver could not frame more than 65,535 values):
// the connection works on. Every other 08P01 is lost, as PgBouncer answers its own failures with that code
// (query_wait_timeout, "pgbouncer cannot connect to server") and then closes the connection.
const LOST_CODES = /^(08...|57P0[123])$/;
const TOO_MANY_VALUES = /^bind message /;
/** The server's answer to a statement with more values than the protocol can count (see LOST_CODES). */
const tooManyValues = (code: unknown, message: unknown) =>
  code === '08P01' && typeof message === 'string' && TOO_MANY_VALUES.test(message);
const LOST_SYSCALL = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND']);
// node-postgres and pg-pool say these without a code; only their words tell them apart.
const LOST_MESSAGE =
  /Connection terminated|connection error|timeout exceeded when trying to connect|Client was closed|Cannot use a pool after calling end|not currently accepting connections|too many clients/i;

/** True when `e` (or what it wraps) says the database could not be reached, rather than that a query was wrong. */
export function isConnectionLost(e: unknown): boolean {
  let cur: unknown = e;
  for (let i = 0; i < 4 && cur && typeof cur === 'object'; i++) {
    const { code, message } = cur as { code?: unknown; message?: unknown };
    if (
      typeof code === 'string' &&
      ((LOST_CODES.test(code) && !tooManyValues(code, message)) || LOST_SYSCALL.has(code))
    )
      return true;
    if (typeof message === 'string' && LOST_MESSAGE.test(message)) return true;
    cur = (cur as { cause?: unknown }).cause;
  }
  return false;
}

/** The typed error callers see while the database is away: HTTP answers 503, jobs retry. */
export const databaseUnavailable = () =>
  new SwitchboardError('UNAVAILABLE', 'The database cannot be reached right now; try again in a few seconds.');

// 22021: a NUL byte in text; 22P05: \u0000 in JSON. Both are bad input that slipped past the edge checks.
const NUL_CODES = new Set(['22021', '22P05']);

/**
 * The driver's error in the one error family where it has a meaning for the
 * caller: a lost connection is UNAVAILABLE, a NUL character or a statement too
 * large to send INVALID_INPUT; anything else is returned unchanged.
 */
export function translateDriverError(e: unknown): unknown {
  if (isConnectionLost(e)) return databaseUnavailable();
  const code = pgCode(e);
  if (code === '08P01')
    return new SwitchboardError(
      'INVALID_INPUT',
      'This asks the database about too many items in one statement (more than 65,535 values); ask about fewer at a time.',
    );
  if (code && NUL_CODES.has(code)) return invalidInput(NUL_REFUSAL);
  return e;
}

/**
 * `store` with every method of every repository in it, and its own (`transaction`), turning a driver error into the
 * one error family (translateDriverError) so the domain and every adapter never see a driver's. A new object: `store`
 * is left as it was. Proxies, because a repository's methods live on its class's prototype.
 */
export function translatingErrors<S extends object>(store: S): S {
  const guard = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(t, key, receiver) {
        const value = Reflect.get(t, key, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          const out = value.apply(t, args);
          return out instanceof Promise
            ? out.catch((e: unknown) => {
                throw translateDriverError(e);
              })
            : out;
        };
      },
    });
  const repositories = Object.fromEntries(
    Object.entries(store).map(([k, v]) => [k, typeof v === 'object' && v !== null ? guard(v) : v]),
  );
  return guard(repositories as S);
}
