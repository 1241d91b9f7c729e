// The process's ports besides storage and jobs (ports.ts): the clock and
// cross-process wake-ups.
/** The payload of a wake-up that names nothing (a Notifier's subscribers may have missed some): look at the stored state again. */
export const RECHECK = '';

/** Cross-process wake-ups (Postgres NOTIFY or Redis pub/sub). */
export interface Notifier {
  /** Publishes after the current transaction committed; several topics with the same payload travel together. */
  publish(topic: string | readonly string[], payload: string): Promise<void>;
  /**
   * Resolves to an unsubscribe function. `fn` may also be called with RECHECK (an empty payload) when wake-ups may
   * have been missed (the connection carrying them was lost): look at the stored state again.
   */
  subscribe(topic: string, fn: (payload: string) => void): Promise<() => Promise<void>>;
}

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
