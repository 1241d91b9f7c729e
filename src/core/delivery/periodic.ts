// Work that runs once per period (an hour) however many processes share the database: each period of a task is one
// outbox entry whose id is derived from the task and the period, so every process that schedules it names the same
// row and the outbox keeps the first. The queue that claims it (embedded loop or BullMQ) runs it once, as any job.
import { createHash } from 'node:crypto';
import type { Clock, JobHandler, OutboxRepo } from '../ports.ts';

/** A piece of upkeep (a purge, a sweep) run once every `everyMs` across every process. */
export interface PeriodicTask {
  /** The outbox topic of its entries. */
  topic: string;
  everyMs: number;
  /** Does the work; a throw is retried as any job's. */
  run(): Promise<void>;
}

/** The entry id of a task's `period`-th period (counted from the epoch): the same in every process. */
export function periodEntryId(topic: string, period: number): string {
  const h = createHash('sha256').update(`${topic}:${period}`).digest('hex');
  // Shaped as a UUID of version 8 (custom) and the RFC variant, so the outbox's uuid column takes it.
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((Number.parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Adds the entry of the task's next period (a no-op when another process, or an earlier run, added it). */
export async function scheduleNextPeriod(
  outbox: Pick<OutboxRepo, 'addOnce'>,
  clock: Clock,
  task: PeriodicTask,
): Promise<void> {
  const period = Math.floor(clock.now().getTime() / task.everyMs) + 1;
  await outbox.addOnce({
    id: periodEntryId(task.topic, period),
    topic: task.topic,
    payload: { period },
    runAt: new Date(period * task.everyMs),
  });
}

/**
 * The job of a periodic task: it schedules the next period first, so a run that fails (and is retried, or given up)
 * never ends the series, then does the work.
 */
export function periodicHandler(outbox: Pick<OutboxRepo, 'addOnce'>, clock: Clock, task: PeriodicTask): JobHandler {
  return async () => {
    await scheduleNextPeriod(outbox, clock, task);
    await task.run();
  };
}
