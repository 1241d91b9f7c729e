import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pino, { type Logger } from 'pino';
import { openDatabase, type Database } from './adapters/db/client.ts';
import { PgNotifier } from './adapters/db/pg-notifier.ts';
import { createStore } from './adapters/db/store.ts';
import { createMetrics, type Metrics } from './adapters/metrics/metrics.ts';
import { createJobQueue } from './adapters/queue/index.ts';
import type { Config } from './config.ts';
import { LOG_REDACT } from './logger.ts';
import { AgentService } from './domain/agents/agent-service.ts';
import { ApprovalService } from './domain/approvals/approval-service.ts';
import { MessagingService } from './domain/messaging/messaging-service.ts';
import { DocumentService } from './domain/documents/document-service.ts';
import { AudienceService } from './domain/linking/audience-service.ts';
import { LinkService } from './domain/linking/link-service.ts';
import { DEFAULT_RATE_LIMIT, type RateLimit } from './domain/messaging/rules.ts';
import { OrgService } from './domain/organizations/org-service.ts';
import { InboundService } from './domain/surfaces/inbound-service.ts';
import { systemClock, type Clock, type JobQueue, type Store } from './domain/ports.ts';
import type { SurfaceName } from './domain/types.ts';

/** Everything a running Switchboard holds; built once by `createApp`. */
export interface App {
  config: Config;
  logger: Logger;
  secret: string;
  database: Database;
  store: Store;
  notifier: PgNotifier;
  queue: JobQueue;
  clock: Clock;
  /** Prometheus instruments, served at GET /metrics when METRICS_TOKEN is set. */
  metrics: Metrics;
  orgs: OrgService;
  agents: AgentService;
  messaging: MessagingService;
  approvals: ApprovalService;
  /** Surfaces that show approvals and cards through the outbox; each surface's mount adds its name. */
  surfaces: Set<SurfaceName>;
  documents: DocumentService;
  /** Account links from chat apps (Slack, Teams) to people. */
  links: LinkService;
  /** Who reads each conversation, and what agents may bring into it. */
  audiences: AudienceService;
  /** What people write in chat apps, routed and delivered the same way for every surface. */
  inbound: InboundService;
  /** Hooks other modules add to run on close (surfaces, MCP sessions). */
  onClose: Array<() => Promise<void> | void>;
  /** Hooks run as soon as the server starts stopping, before it waits for in-flight requests: end long-lived streams (SSE, waits) here. */
  onDrain: Array<() => void | Promise<void>>;
  close(): Promise<void>;
}

export interface AppOptions {
  logger?: Logger;
  clock?: Clock;
  rateLimit?: RateLimit;
  /** Use this already-open database instead of opening one from the config (tests). */
  database?: Database;
  /** Options for the queue (tests shorten the poll interval and backoff). */
  queue?: { pollMs?: number; backoff?: (attempt: number) => number; maxAttempts?: number; leaseMs?: number; queueName?: string; prefix?: string };
  /** Remind approvers after this long without a decision (approval.remind jobs; a surface may act on them). */
  approvalReminderMs?: number;
  /** Skip migrations (the CLI's `migrate` runs them itself). */
  migrate?: boolean;
}

/** The secret from the environment, or one generated once and kept in DATA_DIR (mode 600). */
export function resolveSecret(config: Config, logger: Logger): string {
  if (config.secret) return config.secret;
  const file = path.join(config.dataDir, 'secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(config.dataDir, { recursive: true });
  const secret = randomBytes(32).toString('hex');
  writeFileSync(file, secret, { mode: 0o600 });
  logger.warn({ file }, 'SWITCHBOARD_SECRET is not set; generated one in the data directory (set it explicitly when several processes share a database)');
  return secret;
}

export async function createApp(config: Config, opts: AppOptions = {}): Promise<App> {
  const logger = opts.logger ?? pino({ level: config.logLevel, redact: LOG_REDACT });
  const clock = opts.clock ?? systemClock;
  const database = opts.database ?? await openDatabase({ databaseUrl: config.databaseUrl, dataDir: path.join(config.dataDir, 'pglite'), logger });
  if (opts.migrate !== false) await database.migrate();
  const store = createStore(database.db, clock);
  const notifier = new PgNotifier(database, logger);
  const metrics = createMetrics({ db: () => database.db, now: () => clock.now() });
  const queue = createJobQueue({ redisUrl: config.redisUrl, outbox: metrics.meterOutbox(store.outbox), logger, clock, ...opts.queue });
  const orgs = new OrgService(store, clock);
  const agents = new AgentService(store, orgs, notifier);
  const audiences = new AudienceService(store, clock);
  const links = new LinkService(store, clock, config.publicUrl, () => queue.kick());
  const messaging = new MessagingService(store, agents, notifier, clock, opts.rateLimit ?? DEFAULT_RATE_LIMIT, () => queue.kick(), audiences);
  const documents = new DocumentService(store, orgs, clock);
  const inbound = new InboundService(store, clock, orgs, agents, messaging, links);
  const surfaces = new Set<SurfaceName>();
  // A process without the Slack mount (mcp-stdio, the CLI) still writes Slack's approval jobs when Slack is configured; `serve` or `worker` delivers them.
  if (config.slack.signingSecret) surfaces.add('slack');
  const approvals = new ApprovalService(store, orgs, agents, notifier, clock, { surfaces: () => [...surfaces], reminderMs: opts.approvalReminderMs ?? config.approvalReminderMs }, () => queue.kick());
  queue.register('approval.expire', async (p) => { await approvals.expire(String(p.workspaceId), String(p.approvalId)); });
  queue.register('approval.remind', async (p) => { await approvals.remind(String(p.workspaceId), String(p.approvalId)); });
  const app: App = {
    config, logger, secret: resolveSecret(config, logger), database, store, notifier, queue, clock, metrics, orgs, agents, messaging,
    documents, approvals, surfaces, links, audiences, inbound,
    onClose: [],
    onDrain: [],
    async close() {
      for (const fn of app.onClose.reverse()) await fn();
      await queue.stop();
      await notifier.close();
      if (!opts.database) await database.close();
    },
  };
  return app;
}
