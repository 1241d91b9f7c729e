import { SwitchboardError } from '../errors.ts';
import type { Notifier } from '../ports.ts';

export interface WaitOptions<T> {
  notifier: Notifier;
  /** The topic whose publications mean "look again". */
  topic: string;
  /** Reads the current state (e.g. takes unread messages). */
  take: () => Promise<T>;
  /** Whether what `take` returned is worth returning now. */
  found: (value: T) => boolean;
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * Long-poll on a notifier topic: takes once at once, and again after every
 * wake-up, until something is found, the timeout passes or the signal aborts.
 * It listens before the first take, so a publication that lands between a take
 * and the wait is never missed. No take starts once the signal has aborted:
 * a take marks what it returns read, and whoever aborted (a client that
 * cancelled, a closed session, a server that drains) never reads the answer.
 * Aborted before the first take, it rejects with UNAVAILABLE, as it has
 * nothing to return.
 */
export async function waitForWake<T>(o: WaitOptions<T>): Promise<{ value: T; timedOut: boolean }> {
  let woken = false;
  let wake: () => void = () => {};
  const unsubscribe = await o.notifier.subscribe(o.topic, () => {
    woken = true;
    wake();
  });
  const deadline = Date.now() + o.timeoutMs;
  try {
    if (o.signal?.aborted) throw stoppedBeforeReading();
    for (;;) {
      woken = false;
      const value = await o.take();
      // Aborted while the take ran: what it took is returned all the same; the caller, who knows whether its answer
      // can still leave, hands it back unread if not (MessagingService.returnUnread).
      if (o.found(value)) return { value, timedOut: false };
      if (Date.now() >= deadline || o.signal?.aborted) return { value, timedOut: true };
      if (woken) continue;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          o.signal?.removeEventListener('abort', done);
          wake = () => {};
          resolve();
        };
        const timer = setTimeout(done, Math.max(0, deadline - Date.now()));
        wake = done;
        o.signal?.addEventListener('abort', done);
      });
      if (o.signal?.aborted) return { value, timedOut: true };
    }
  } finally {
    await unsubscribe();
  }
}

const stoppedBeforeReading = () =>
  new SwitchboardError(
    'UNAVAILABLE',
    'Stopped waiting before anything was read (the request was cancelled, or the server is stopping); nothing was marked read, so ask again.',
  );
