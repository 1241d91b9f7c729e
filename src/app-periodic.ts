// The upkeep a deployment runs every hour, once however many processes share its database
// (core/delivery/periodic.ts): purges of what is kept for a while only, the sweep of ended web sessions, and the
// upkeep each surface names for the tables only it keeps (ChatSurface.upkeep).
import type { App } from './app-types.ts';
import { periodicHandler, scheduleNextPeriod, type PeriodicTask } from './core/delivery/periodic.ts';

const HOUR_MS = 3600_000;
/** Handled Slack/Teams requests, finished jobs and records of posts made once (cards, confirmations): long past any redelivery or retry. */
const KEPT_MS = 7 * 24 * HOUR_MS;

/** Every periodic task, by topic; each logs what it deleted. */
export function periodicTasks(app: App): PeriodicTask[] {
  const before = (ms: number) => new Date(app.clock.now().getTime() - ms);
  const hourly = (topic: string, what: string, run: () => Promise<number>): PeriodicTask => ({
    topic,
    everyMs: HOUR_MS,
    async run() {
      const deleted = await run();
      if (deleted) app.logger.info({ deleted, topic }, what);
    },
  });
  return [
    hourly('upkeep.history', "purged messages past their plan's history", () => app.messaging.purgeHistory()),
    hourly('upkeep.inbound', 'purged handled inbound requests', () => app.store.inbound.purgeBefore(before(KEPT_MS))),
    hourly('upkeep.jobs', 'purged finished jobs', () => app.store.outbox.purgeDoneBefore(before(KEPT_MS))),
    hourly('upkeep.posts', 'purged old post records', () => app.store.posts.purgeBefore(before(KEPT_MS))),
    // What agents read counts against where they post for a few minutes only (linking/audience-service.ts).
    hourly('upkeep.reads', 'forgot old audience reads', () => app.audiences.forgetOldReads()),
    // Expired sessions are refused when used already; this only keeps the table small.
    hourly('upkeep.sessions', 'deleted expired web sessions', () => app.store.sessions.deleteExpired(app.clock.now())),
    // The tables only one surface keeps, as each surface names its upkeep.
    ...[...app.surfaceModules.values()].flatMap((s) =>
      Object.entries(s.upkeep ?? {}).map(([topic, u]) => hourly(topic, u.what, () => u.run())),
    ),
  ];
}

/**
 * Registers the periodic tasks' jobs (every process that builds an App knows them, as it knows every topic); called once
 * the surfaces are built, for theirs.
 */
export function registerPeriodicWork(app: App): void {
  for (const task of periodicTasks(app))
    app.queue.register(task.topic, periodicHandler(app.store.outbox, app.clock, task));
}

/**
 * Schedules each task's next period, for a process that runs the queue: the first to start adds the entries, the
 * others find them there, and each run schedules the period after its own.
 */
export async function schedulePeriodicWork(app: App): Promise<void> {
  for (const task of periodicTasks(app)) await scheduleNextPeriod(app.store.outbox, app.clock, task);
}
