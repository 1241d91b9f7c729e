// Prometheus metrics for one Switchboard process, on its own prom-client
// registry (several apps share a process in tests). Counters and histograms
// are observed as work happens; queue depth, dead letters and inbound lag are
// read from the outbox table when Prometheus scrapes, so every process reports
// the same shared truth and nothing is kept in memory between scrapes.
import { and, count, inArray, like, min } from 'drizzle-orm';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { OutboxEntry, OutboxRepo, SettledAttempt } from '../../core/ports.ts';
import type { Db } from '../db/client.ts';
import { outbox } from '../db/schema.ts';

/** The instruments a process records into; `render` is what GET /metrics answers. */
export interface Metrics {
  registry: Registry;
  /** One finished HTTP request: `route` is the matched pattern (never the raw path, which may hold a link nonce). */
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  /** The same outbox, with deliveries, retries and dead letters counted as the queue records them. */
  meterOutbox(repo: OutboxRepo): OutboxRepo;
  /** The exposition text and its content type. */
  render(): Promise<{ contentType: string; body: string }>;
}

/** How long past its lease an entry another process may be running is remembered, and how often that is looked at. */
const FORGET_AFTER_MS = 60_000;

const DELIVERY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900];

/** `inbound.slack.event` → `slack`; the inbound topics are named `inbound.<surface>…`. */
const surfaceOfInboundTopic = (topic: string) => topic.split('.')[1] || 'unknown';

export function createMetrics(options: {
  db: () => Db;
  now?: () => Date;
  defaultMetrics?: boolean;
  /** Requests acknowledged and still in the embedded database's inbound journal (absent on PostgreSQL). */
  journalWaiting?: () => number;
}): Metrics {
  const registry = new Registry();
  const now = options.now ?? (() => new Date());
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'switchboard_' });

  const requests = new Counter({
    name: 'switchboard_http_requests_total',
    help: 'HTTP requests answered, by method, matched route and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const requestSeconds = new Histogram({
    name: 'switchboard_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method and matched route.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const deliverySeconds = new Histogram({
    name: 'switchboard_delivery_latency_seconds',
    help: 'From the moment an outbox entry was due to the moment it was delivered, by topic.',
    labelNames: ['topic'] as const,
    buckets: DELIVERY_BUCKETS,
    registers: [registry],
  });
  const retries = new Counter({
    name: 'switchboard_delivery_retries_total',
    help: 'Outbox attempts that failed and were scheduled again, by topic.',
    labelNames: ['topic'] as const,
    registers: [registry],
  });
  const deadLetters = new Counter({
    name: 'switchboard_dead_letters_total',
    help: 'Outbox entries this process gave up on for good, by topic.',
    labelNames: ['topic'] as const,
    registers: [registry],
  });

  // Sampled on scrape, from the table every process shares.
  new Gauge({
    name: 'switchboard_queue_depth',
    help: 'Outbox entries not done yet, by topic and status (pending, queued, failed = dead letters kept).',
    labelNames: ['topic', 'status'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const rows = await options
        .db()
        .select({ topic: outbox.topic, status: outbox.status, n: count() })
        .from(outbox)
        .where(inArray(outbox.status, ['pending', 'queued', 'failed']))
        .groupBy(outbox.topic, outbox.status);
      for (const r of rows) this.set({ topic: r.topic, status: r.status }, Number(r.n));
    },
  });
  new Gauge({
    name: 'switchboard_inbound_lag_seconds',
    help: 'Age of the oldest inbound event (Slack, Teams…) not yet handled, by surface; 0 when none wait.',
    labelNames: ['surface'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const rows = await options
        .db()
        .select({ topic: outbox.topic, oldest: min(outbox.createdAt) })
        .from(outbox)
        .where(and(like(outbox.topic, 'inbound.%'), inArray(outbox.status, ['pending', 'queued'])))
        .groupBy(outbox.topic);
      const lag = new Map<string, number>();
      for (const r of rows) {
        const surface = surfaceOfInboundTopic(r.topic);
        const age = r.oldest ? Math.max(0, (now().getTime() - new Date(r.oldest).getTime()) / 1000) : 0;
        lag.set(surface, Math.max(lag.get(surface) ?? 0, age));
      }
      for (const [surface, seconds] of lag) this.set({ surface }, seconds);
    },
  });

  const journalWaiting = options.journalWaiting;
  if (journalWaiting) {
    new Gauge({
      name: 'switchboard_inbound_journal_waiting',
      help: 'Slack and Teams requests acknowledged and not yet moved from the inbound journal into the embedded database.',
      registers: [registry],
      collect() {
        this.set(journalWaiting());
      },
    });
  }

  return {
    registry,
    observeRequest(method, route, status, seconds) {
      requests.inc({ method, route, status: String(status) });
      requestSeconds.observe({ method, route }, seconds);
    },
    meterOutbox(repo) {
      // What the queue claimed or runs, so an outcome can be told its topic and when it was due; `heldUntil` is the end
      // of the lease this process last saw taken or renewed.
      const claimed = new Map<string, Pick<OutboxEntry, 'topic' | 'runAt'> & { heldUntil: number }>();
      let forgotAt = 0;
      // With BullMQ the worker running an entry may be another process's: the entries this process claimed (relayed to
      // Redis) and neither ran nor renewed are forgotten once their lease is long over, so the map stays small.
      const forgetOthers = () => {
        const t = now().getTime();
        if (t - forgotAt < FORGET_AFTER_MS) return;
        forgotAt = t;
        for (const [id, e] of claimed) if (e.heldUntil < t - FORGET_AFTER_MS) claimed.delete(id);
      };
      const settle = (id: string) => {
        const e = claimed.get(id);
        claimed.delete(id);
        return e;
      };
      const outcome = (id: string, status: SettledAttempt['status']) => {
        const e = settle(id);
        if (status === 'done' && e)
          deliverySeconds.observe({ topic: e.topic }, Math.max(0, (now().getTime() - e.runAt.getTime()) / 1000));
        if (status === 'pending' && e) retries.inc({ topic: e.topic });
        if (status === 'failed') deadLetters.inc({ topic: e?.topic ?? 'unknown' });
      };
      return new Proxy(repo, {
        get(target, prop, receiver) {
          const value = Reflect.get(target, prop, receiver) as unknown;
          if (typeof value !== 'function') return value;
          const method = value as (...a: unknown[]) => Promise<unknown>;
          switch (prop) {
            case 'claimDue':
              return async (...a: unknown[]) => {
                const entries = (await method.apply(target, a)) as OutboxEntry[];
                // Outcomes recorded by the same statement (the embedded queue's batches).
                for (const s of (a[3] ?? []) as SettledAttempt[]) outcome(s.id, s.status);
                for (const e of entries)
                  claimed.set(e.id, { topic: e.topic, runAt: e.runAt, heldUntil: e.runAt.getTime() });
                forgetOthers();
                return entries;
              };
            case 'renewLease':
              return async (...a: unknown[]) => {
                const entry = (await method.apply(target, a)) as OutboxEntry | null;
                // Taken by a BullMQ worker here (whichever process claimed it), or renewed while it runs here.
                if (entry)
                  claimed.set(entry.id, {
                    topic: entry.topic,
                    runAt: claimed.get(entry.id)?.runAt ?? entry.runAt,
                    heldUntil: entry.runAt.getTime(),
                  });
                return entry;
              };
            case 'markDone':
              return async (id: string, ...a: unknown[]) => {
                await method.call(target, id, ...a);
                outcome(id, 'done');
              };
            case 'markRetry':
              return async (id: string, ...a: unknown[]) => {
                await method.call(target, id, ...a);
                outcome(id, 'pending');
              };
            case 'markFailed':
              return async (id: string, ...a: unknown[]) => {
                await method.call(target, id, ...a);
                outcome(id, 'failed');
              };
            default:
              return method.bind(target);
          }
        },
      });
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
