import { conflict } from '../../domain/errors.ts';

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
