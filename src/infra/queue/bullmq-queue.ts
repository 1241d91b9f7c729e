import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { JobHandler, JobQueue, OutboxEntry } from '../../core/ports.ts';
import { settlesWithin } from '../time.ts';
import { STARTUP_PATIENCE_MS } from '../db/client.ts';
import { PollLoop } from './poll-loop.ts';
import {
  outboxOf,
  resolveDelivery,
  runEntry,
  type DeliveryOptions,
  type OutboxSource,
  type ResolvedDelivery,
} from './run-entry.ts';

export interface BullmqQueueOptions extends DeliveryOptions {
  redisUrl: string;
  outbox: OutboxSource;
  logger: Logger;
  /** Default `switchboard`. */
  queueName?: string;
  /** Redis key prefix; default BullMQ's own (`bull`). */
  prefix?: string;
  /** At most this many entries moved to Redis per relay pass; default 100 (fewer when the workers are busy). */
  relayBatch?: number;
  /** How long stop() waits for Redis, then for running jobs (default STOP_WAIT_MS each). */
  stopWaitMs?: number;
  /** How long start() waits for an unreachable Redis (default: as long as for the database). */
  startPatienceMs?: number;
}

/**
 * How long stop() waits for Redis before it gives up on it: a Redis that is away would otherwise keep the process
 * from ever exiting. Well inside the 10 s a supervisor (Docker, systemd) usually grants before SIGKILL.
 */
const STOP_WAIT_MS = 5_000;
/** How long ping() waits for Redis: less than the 5 s a health check usually allows `/readyz`. */
const PING_WAIT_MS = 2_000;

/** The job data: a pointer to the outbox entry and the attempt this job stands for. */
interface RelayedJob {
  entryId: string;
  attempt: number;
}

/**
 * Delivers outbox entries through BullMQ. The outbox stays the source of truth:
 * a relay loop claims due entries and adds one job per attempt, and the worker
 * records every outcome (and every retry time) back in the outbox, so retries
 * survive a restart and a lost Redis job is relayed again when its lease ends.
 */
export class BullmqQueue implements JobQueue {
  private readonly handlers = new Map<string, JobHandler>();
  private readonly delivery: ResolvedDelivery;
  private readonly outbox;
  private readonly logger: Logger;
  private readonly redis: Redis;
  private readonly relay: PollLoop;
  private queue: Queue<RelayedJob> | null = null;
  private worker: Worker<RelayedJob> | null = null;
  private stopping: Promise<void> | null = null;
  /** The worker's own connection (BullMQ duplicates ours for its blocking reads), closed with ours when stop() gives up. */
  private blocking: Connection | undefined;

  constructor(private readonly o: BullmqQueueOptions) {
    this.delivery = resolveDelivery(o);
    this.outbox = outboxOf(o.outbox);
    this.logger = o.logger;
    // BullMQ needs maxRetriesPerRequest: null; commands wait for a reconnect instead of failing.
    this.redis = new Redis(o.redisUrl, { maxRetriesPerRequest: null, lazyConnect: true });
    this.redis.on('error', (err) => this.logger.warn({ err }, 'Redis connection error'));
    this.relay = new PollLoop({
      name: 'bullmq-relay',
      pollMs: this.delivery.pollMs,
      maxHoldMs: this.delivery.ingestFirstMs,
      logger: o.logger,
      tick: () => this.relayDue(),
    });
  }

  register(topic: string, handler: JobHandler): void {
    this.handlers.set(topic, handler);
  }

  async start(): Promise<void> {
    if (this.queue) return;
    if (this.stopping) throw new Error('This queue was stopped; create a new one to deliver again.');
    await this.reachable();
    const name = this.o.queueName ?? 'switchboard';
    const shared = { connection: this.redis, ...(this.o.prefix ? { prefix: this.o.prefix } : {}) };
    this.queue = new Queue<RelayedJob>(name, shared);
    this.queue.on('error', (err) => this.logger.warn({ err }, 'BullMQ queue error'));
    this.worker = new Worker<RelayedJob>(name, (job) => this.process(job), {
      ...shared,
      concurrency: this.delivery.concurrency,
    });
    this.worker.on('error', (err) => this.logger.warn({ err }, 'BullMQ worker error'));
    await Promise.all([this.queue.waitUntilReady(), this.worker.waitUntilReady()]);
    this.blocking = await this.worker.getBackend().blockingClient;
    if (!this.stopping) this.relay.start();
  }

  kick(): void {
    this.relay.kick();
  }

  /** Holds back relaying: jobs already in Redis, and workers of other processes, carry on. */
  holdForIngest(): () => void {
    return this.relay.hold();
  }

  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  /**
   * Waits for Redis at start as start-up waits for the database (a server still starting, a failover): ioredis keeps
   * trying to connect, and this gives up after STARTUP_PATIENCE_MS with a sentence naming REDIS_URL's server.
   */
  private async reachable(patienceMs = this.o.startPatienceMs ?? STARTUP_PATIENCE_MS): Promise<void> {
    const ready = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.redis.off('ready', onReady);
        resolve(false);
      }, patienceMs);
      const onReady = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.redis.once('ready', onReady);
    });
    // A failed first attempt is not the end: ioredis tries again on its own (logged as Redis connection errors).
    if (this.redis.status === 'wait')
      this.redis
        .connect()
        .catch(() =>
          this.logger.warn({ redis: serverOf(this.o.redisUrl) }, 'Redis cannot be reached yet; waiting for it'),
        );
    if (this.redis.status === 'ready' || (await ready)) return;
    throw new Error(
      `Redis at ${serverOf(this.o.redisUrl)} (REDIS_URL) could not be reached in ${Math.round(patienceMs / 1000)} s; start it, or correct REDIS_URL.`,
    );
  }

  async ping(): Promise<void> {
    // A command waits for as long as Redis is away (maxRetriesPerRequest: null): a readiness check must not. Not yet
    // connected ('wait') is fine: the ping connects.
    const { status } = this.redis;
    if (status !== 'ready' && status !== 'wait') throw new Error(`Redis is unreachable (connection ${status})`);
    if (!(await settlesWithin(this.redis.ping(), PING_WAIT_MS)))
      throw new Error(`Redis did not answer a ping within ${PING_WAIT_MS / 1000} s`);
  }

  /**
   * Closes gracefully while Redis answers. Past STOP_WAIT_MS it gives up on Redis: its connections close, so the
   * commands still waiting fail (an entry claimed for a job Redis never took is handed back to the outbox) and jobs
   * already running finish and record their outcome in the outbox; it waits STOP_WAIT_MS more at most for those.
   * Nothing durable is lost: an entry not handed to Redis is still in the outbox and is relayed after a restart.
   */
  private async shutdown(): Promise<void> {
    let waitingFor = 'the relay handing entries to Redis';
    const closing = (async () => {
      await this.relay.stop();
      waitingFor = 'the worker (running jobs and its connection)';
      // The worker first: close() waits for active jobs, which record their outcome in the outbox.
      await this.worker?.close();
      waitingFor = 'the queue';
      await this.queue?.close();
      waitingFor = 'the connection';
      if (this.redis.status === 'wait')
        this.redis.disconnect(); // never connected
      else await this.redis.quit().catch(() => this.redis.disconnect());
    })();
    const waitMs = this.o.stopWaitMs ?? STOP_WAIT_MS;
    if (await settlesWithin(closing, waitMs)) return;
    this.logger.warn(
      { waitingFor, redis: this.redis.status, waitedMs: waitMs },
      'Redis did not let the queue stop in time; closing its connections without waiting (entries not handed to Redis stay in the outbox for the next start)',
    );
    // Closing before its connection ends: a worker not yet closing would connect again. The steps above call the same close().
    void this.worker?.close().catch(() => {});
    for (const connection of [this.redis, this.blocking]) if (connection) endNow(connection);
    if (await settlesWithin(closing, waitMs)) return;
    this.logger.warn(
      { waitingFor },
      'stopped without waiting any longer; an entry whose job was still running is delivered again once its lease runs out',
    );
  }

  /** Moves due outbox entries to Redis; true when there may be more. */
  private async relayDue(): Promise<boolean> {
    const queue = this.queue;
    if (!queue) return false;
    // Only as many as the workers will start soon: a long line in Redis would keep a new entry of
    // another conversation waiting behind it, and let leases run out before their jobs start.
    const room = Math.max(0, this.delivery.concurrency * 2 - (await queue.getWaitingCount()));
    const limit = Math.min(this.o.relayBatch ?? 100, room);
    if (limit === 0) return false; // a finishing job kicks the relay
    const entries = await this.outbox().claimDue(limit, this.delivery.clock.now(), this.delivery.leaseMs);
    if (entries.length === 0) return false;
    try {
      await queue.addBulk(
        entries.map((e) => ({
          name: e.topic,
          data: { entryId: e.id, attempt: e.attempts },
          // One job per claim (its lease end tells claims apart): adding the same claim twice is a no-op, while a later
          // attempt, or one counted from 1 again after `jobs retry`, is a new job.
          opts: {
            jobId: `${e.id}-${e.attempts}-${e.runAt.getTime()}`,
            attempts: 1,
            removeOnComplete: { count: 1000 },
            removeOnFail: { count: 5000 },
          },
        })),
      );
    } catch (e) {
      await this.handBack(entries, e);
    }
    return entries.length === limit;
  }

  /** Returns entries Redis refused to the outbox, to be relayed again after the backoff. */
  private async handBack(entries: OutboxEntry[], err: unknown): Promise<void> {
    this.logger.error({ err, entries: entries.length }, 'could not add jobs to Redis; they will be relayed again');
    const now = this.delivery.clock.now().getTime();
    for (const e of entries) {
      const reason = `could not add the job to Redis: ${err instanceof Error ? err.message : String(err)}`;
      // Fenced by the attempt, as every outcome is: if the entry's lease ran out meanwhile and another relay took it, this changes nothing.
      await this.outbox()
        .markRetry(e.id, reason, new Date(now + this.delivery.backoff(e.attempts)), e.attempts)
        .catch((markErr: unknown) =>
          this.logger.error(
            { err: markErr, entryId: e.id },
            'could not hand the entry back; it is relayed when its lease ends',
          ),
        );
    }
  }

  private async process(job: Job<RelayedJob>): Promise<void> {
    const { entryId, attempt } = job.data;
    // Taking the lease afresh is what makes this worker the entry's only runner: a job for an
    // attempt the outbox has moved past (relayed again after its lease ran out, or recorded) finds nothing.
    const entry = await this.outbox().renewLease(
      entryId,
      attempt,
      new Date(this.delivery.clock.now().getTime() + this.delivery.leaseMs),
    );
    if (!entry) {
      this.logger.debug({ entryId, attempt }, 'skipping a stale job');
      return;
    }
    let outcome;
    try {
      outcome = await runEntry(entry, {
        handlers: this.handlers,
        outbox: this.outbox(),
        delivery: this.delivery,
        logger: this.logger,
      });
    } finally {
      // Room for another job, perhaps the next entry of the same ordering key: relay without waiting for the poll.
      this.relay.kick();
    }
    // Shown as failed in BullMQ, and never retried there: the outbox already holds the verdict.
    if (outcome.kind === 'failed') throw new UnrecoverableError(outcome.error);
  }
}

/** What endNow needs of an ioredis connection (ours, or BullMQ's wrapper around the worker's). */
type Connection = { status: string; connect(): Promise<unknown>; disconnect(): void };

/** Ends a connection at once, whatever its state, so that the commands waiting on it fail. */
function endNow(connection: Connection): void {
  connection.disconnect();
  // Between two attempts to reconnect, disconnect() only cancels the next one and the connection waits for ever, its
  // commands with it (BullMQ's worker.close() does the same to its own connection). One more attempt ends it: a failed
  // one because the connection is being closed, a successful one by the disconnect() that follows.
  if (connection.status === 'reconnecting')
    connection.connect().then(
      () => connection.disconnect(),
      () => {},
    );
}

/** REDIS_URL's server without its password, for sentences and logs. */
function serverOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return 'REDIS_URL';
  }
}
