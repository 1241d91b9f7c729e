// The ports of work done outside a request, later and once: the outbox the queues run from, the platform requests
// stored before they were acknowledged, posts to a platform made once per key, and the job queue itself.
import type { ExternalSurface } from './surfaces/surface-ports.ts';

export interface OutboxEntry {
  id: string;
  topic: string;
  payload: Record<string, unknown>;
  orderingKey: string | null;
  status: 'pending' | 'queued' | 'done' | 'failed';
  attempts: number;
  runAt: Date;
  lastError: string | null;
  /** When it was written: a job meeting transient failures is retried until it is too old. */
  createdAt: Date;
  /** For an entry handling a stored Slack or Teams request (payload `inboundId`): that request, read with the claim. */
  inbound?: InboundEvent | null;
}

/** What became of attempt `attempt` of a claimed entry, recorded by a later claim (`OutboxRepo.claimDue`). */
export type SettledAttempt = { id: string; attempt: number } & (
  | { status: 'done' }
  | { status: 'pending'; error: string; runAt: Date }
  | { status: 'failed'; error: string }
);

/** Work to be done outside the transaction (posting to Slack, Teams…), written with the change that caused it. */
export interface OutboxRepo {
  add(e: {
    topic: string;
    payload: Record<string, unknown>;
    orderingKey?: string | null;
    runAt?: Date;
  }): Promise<OutboxEntry>;
  /**
   * Adds an entry with this id, due at `runAt`, unless one has it already (whatever its status); true when this call
   * added it. Its age, which bounds its retries through an outage, counts from `runAt`.
   */
  addOnce(e: { id: string; topic: string; payload: Record<string, unknown>; runAt: Date }): Promise<boolean>;
  /**
   * Replaces the payload and due time of an entry still waiting its turn (state kept for later, such as a streamed
   * message's draft); false when it is claimed, finished or gone.
   */
  reschedule(id: string, payload: Record<string, unknown>, runAt: Date): Promise<boolean>;
  /** Null when absent. */
  get(id: string): Promise<OutboxEntry | null>;
  /**
   * Claims up to `limit` due pending entries for this worker (skipping those others hold) and marks them queued.
   * `settled` outcomes of earlier attempts are recorded by the same statement first (each only while its claim
   * stands, as with markDone), so an entry finished there frees the next of its ordering key for this claim.
   */
  claimDue(limit: number, now: Date, leaseMs: number, settled?: readonly SettledAttempt[]): Promise<OutboxEntry[]>;
  /**
   * Extends the lease of the entry claimed as attempt `attempt` to `until`; null when
   * that claim no longer stands (finished, or claimed again after the lease ran out).
   */
  renewLease(id: string, attempt: number, until: Date): Promise<OutboxEntry | null>;
  /** With `attempt`, only while that claim stands (a worker that lost its lease records nothing). */
  markDone(id: string, attempt?: number): Promise<void>;
  /** Schedules another attempt at `runAt`, recording why this one failed; `attempt` as for markDone. */
  markRetry(id: string, error: string, runAt: Date, attempt?: number): Promise<void>;
  /** Stops retrying for good; `attempt` as for markDone. */
  markFailed(id: string, error: string, attempt?: number): Promise<void>;
  /** Makes a failed entry pending again, due now, with its attempts reset; null when absent or not failed. */
  requeue(id: string): Promise<OutboxEntry | null>;
  list(filter: { topic?: string; status?: OutboxEntry['status'] }): Promise<OutboxEntry[]>;
  /** Deletes entries done before `cutoff` (failed ones stay, for an operator to read or requeue); how many it deleted. */
  purgeDoneBefore(cutoff: Date): Promise<number>;
}

/** A Slack or Teams request Switchboard acknowledged, kept so that it is handled even after a crash. */
export interface InboundEvent {
  id: string;
  surface: ExternalSurface;
  /** Unique per surface: Slack's event_id, a hash of a signed request, or a Teams conversation and activity id. */
  key: string;
  /** What the platform sent: `event`, `command`, `interaction`, `activity`… */
  kind: string;
  /** What handling it needs (the parsed body or activity), never an auth token. */
  payload: Record<string, unknown>;
  /** The outbox entry that processes it (its status, attempts and last error); null when it was handled inline. */
  outboxId: string | null;
  receivedAt: Date;
}

export type NewInboundEvent = Pick<InboundEvent, 'surface' | 'key' | 'kind' | 'payload'>;

/** What an earlier attempt at one post left behind (see `SurfacePostRepo.attempt`). */
export interface PostAttempt {
  /** The platform's id of the post, once recorded: it exists, do not post again. */
  externalId: string | null;
  /** True when an earlier attempt started and recorded nothing: the post may exist, look for it before posting. */
  unknown: boolean;
}

/** Posts to a chat platform outside the message outbox (cards, confirmations), made once per key across crashes. */
export interface SurfacePostRepo {
  /** Counts an attempt at posting `key` (before the platform is called) and says what earlier attempts left. */
  attempt(surface: ExternalSurface, key: string): Promise<PostAttempt>;
  /** Records the platform's id of the post made for `key`. */
  record(surface: ExternalSurface, key: string, externalId: string): Promise<void>;
  /** Deletes the records of posts first attempted before `cutoff` (long past any retry); returns how many. */
  purgeBefore(cutoff: Date): Promise<number>;
}

/** The job that handles a received event: its topic, and the key of the events it is handled in order with. */
export interface InboundJob {
  topic: string;
  orderingKey: string | null;
}

/** Received platform events; not scoped to a tenant, as they are stored before the tenant is resolved. */
export interface InboundEventRepo {
  /**
   * Stores the event and an outbox entry of `job.topic` for it in one transaction (events sharing an
   * `orderingKey` are handled in the order received); null when the key was stored before. Throws INVALID_INPUT when malformed.
   * Where events are first written to a journal (embedded database on disk), resolves once the event is safe there, with
   * the row it will have; a redelivery is then recognised when the journal is moved into the database, and handled once.
   */
  accept(e: NewInboundEvent, job: InboundJob): Promise<InboundEvent | null>;
  /** Stores the key of an event handled inline (no outbox entry); false when the key was stored before. */
  remember(e: Omit<NewInboundEvent, 'payload'>): Promise<boolean>;
  /** Null when absent. */
  get(id: string): Promise<InboundEvent | null>;
  /** Deletes events received before `cutoff` whose processing is over (done, or handled inline); returns how many. */
  purgeBefore(cutoff: Date): Promise<number>;
}

/** What a handler knows about the attempt it runs. */
export interface JobContext {
  /** 1 for the first attempt. */
  attempt: number;
  entryId: string;
  /** Aborted when this worker lost its lease (another may be running the entry): make no further platform call. */
  signal?: AbortSignal;
  /** Whether throwing `err` from this attempt ends the entry for good (a handler that tells someone of a final failure does it then). */
  failsForGood?(err: unknown): boolean;
  /** The stored request the entry handles, when it was read with the claim (see OutboxEntry.inbound). */
  inbound?: InboundEvent;
}

/** A job handler: plain data in; throw PermanentFailure to stop retrying, TransientFailure (or RetryLater, to wait) for an outage. */
export type JobHandler = (payload: Record<string, unknown>, ctx: JobContext) => Promise<void>;

/** Delivers outbox entries to registered handlers with retries; BullMQ or the embedded loop. */
export interface JobQueue {
  register(topic: string, handler: JobHandler): void;
  /** Starts delivering; entries left by a previous process are picked up too. */
  start(): Promise<void>;
  /** Asks the queue to look for due entries now (after a commit). */
  kick(): void;
  /**
   * A request is waiting for its acknowledgement (Slack, Teams): this process claims no new jobs until the returned
   * release is called, for a bounded time (DeliveryOptions.ingestFirstMs), so handling earlier requests does not
   * take the CPU their acknowledgement needs. Jobs already running carry on.
   */
  holdForIngest(): () => void;
  /** Stops taking new work and waits for in-flight jobs. */
  stop(): Promise<void>;
  ping(): Promise<void>;
}
