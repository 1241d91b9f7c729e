// The shape of a running Switchboard, apart from createApp (app.ts) that
// builds it: surface modules import these types without importing the
// composition root that imports them, so no import cycle runs through it.
import type { Logger } from 'pino';
import type { JournalTiming } from './infra/db/inbound-journal.ts';
import type { Database } from './infra/db/client.ts';
import type { PgNotifier } from './infra/db/pg-notifier.ts';
import type { Metrics } from './infra/metrics/metrics.ts';
import type { EmailSettings } from './surfaces/email/settings.ts';
import type { SlackSettings } from './surfaces/slack/settings.ts';
import type { TeamsSettings } from './surfaces/teams/settings.ts';
import type { WebSettings } from './surfaces/web/settings.ts';
import type { Config } from './config.ts';
import type { AgentService } from './core/agents/agent-service.ts';
import type { ApprovalService } from './core/approvals/approval-service.ts';
import type { JobService } from './core/delivery/job-service.ts';
import type { DocumentService } from './core/documents/document-service.ts';
import type { AudienceService } from './core/linking/audience-service.ts';
import type { BridgeService } from './core/bridges/bridge-service.ts';
import type { ChannelService } from './core/channels/channel-service.ts';
import type { DocumentAdmin } from './core/documents/document-admin.ts';
import type { SessionRegistry } from './mcp/sessions.ts';
import type { LinkService } from './core/linking/link-service.ts';
import type { MessagingService } from './core/messaging/messaging-service.ts';
import type { RateLimit } from './core/messaging/rules.ts';
import type { OrgService } from './core/organizations/org-service.ts';
import type { Clock, JobQueue, Notifier, Store } from './core/ports.ts';
import type { InboundService } from './core/surfaces/inbound-service.ts';
import type { SurfaceOutbound } from './core/delivery/surface-outbound.ts';
import type { LiveOptions, LiveService } from './core/live/live-service.ts';
import type { ListeningService } from './core/listening/listening-service.ts';
import type { IntakeService } from './core/intake/intake-service.ts';
import type { LinkPreviewService } from './core/previews/preview-service.ts';
import type { ExternalSurface } from './core/surfaces/surface-ports.ts';
import type { ChatSurface } from './surfaces/contract.ts';
import type { SurfaceName } from './core/entities.ts';

/** Settings over the config's, per surface name (tests point surfaces at stand-ins); a surface named here is built even without credentials. */
export interface SurfaceOverrides {
  slack?: Partial<SlackSettings>;
  teams?: Partial<TeamsSettings>;
  email?: Partial<EmailSettings>;
  web?: Partial<WebSettings>;
  [surface: string]: unknown;
}

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
  /** Configured surfaces that post to a platform, which show approvals and cards through the outbox; filled by createApp only. */
  surfaces: Set<SurfaceName>;
  /** The chat surfaces built from the config (every process has the same ones). */
  surfaceModules: Map<ExternalSurface, ChatSurface>;
  /** The repositories of the tables only one surface keeps, by surface name (src/infra/db/surface-state.ts). */
  surfaceState: Record<string, unknown>;
  /** The outbound port of each chat surface built here (filled as surfaces register their delivery). */
  outbound: Map<ExternalSurface, SurfaceOutbound>;
  /** Agents' statuses and streamed messages, shown live on every surface. */
  live: LiveService;
  documents: DocumentService;
  /** Account links from chat apps (Slack, Teams) to people. */
  links: LinkService;
  /** Who reads each conversation, and what agents may bring into it. */
  audiences: AudienceService;
  /** What people write in chat apps, routed and delivered the same way for every surface. */
  inbound: InboundService;
  /** Web channels linked to Slack and Teams channels. */
  bridges: BridgeService;
  /** Which agents listen to which channels. */
  listening: ListeningService;
  /** Switchboard's own channels, DMs and threads, as signed-in people use them (the web chat's pages are built on it). */
  channels: ChannelService;
  /** What a Switchboard link pasted into a chat app shows, to whom. */
  previews: LinkPreviewService;
  /** Collections and moves for workspace owners (the web documents pages). */
  documentAdmin: DocumentAdmin;
  /** The MCP sessions of this process; null until the MCP endpoint is mounted (it sets them). */
  mcpSessions: SessionRegistry | null;
  /** What people asked for: intake items, their sources and done notices. */
  intake: IntakeService;
  /** The outbox's jobs as an operator sees them (list, retry). */
  jobs: JobService;
  /** Hooks other modules add to run on close (surfaces, MCP sessions). */
  onClose: Array<() => Promise<void> | void>;
  /** Hooks run as soon as the server starts stopping, before it waits for in-flight requests: end long-lived streams (SSE, waits) here. */
  onDrain: Array<() => void | Promise<void>>;
  close(): Promise<void>;
}

/**
 * What the entry points over the core (MCP tools and resources, the CLI's commands) may use of a running
 * Switchboard: its services, the clock, a logger and cross-process wake-ups. Never the store, the database, the
 * queue or the surfaces' modules. An App is one (src/surfaces/contract.ts's SurfaceCore is the surfaces' view).
 */
export interface Core
  extends Pick<
    App,
    | 'logger'
    | 'clock'
    | 'orgs'
    | 'agents'
    | 'messaging'
    | 'approvals'
    | 'documents'
    | 'links'
    | 'audiences'
    | 'inbound'
    | 'bridges'
    | 'listening'
    | 'intake'
    | 'live'
    | 'channels'
    | 'documentAdmin'
    | 'jobs'
  > {
  /** Cross-process wake-ups, through the core's port (whichever notifier the App was built with). */
  readonly notifier: Notifier;
  /** The settings an entry point may read: where people open Switchboard (PUBLIC_URL), for the links it prints. */
  readonly config: Pick<Config, 'publicUrl'>;
}

export interface AppOptions {
  logger?: Logger;
  clock?: Clock;
  rateLimit?: RateLimit;
  /** Use this already-open database instead of opening one from the config (tests). */
  database?: Database;
  /** Options for the queue (tests shorten the poll interval and backoff). */
  queue?: {
    pollMs?: number;
    backoff?: (attempt: number) => number;
    maxAttempts?: number;
    maxAgeMs?: number;
    leaseMs?: number;
    queueName?: string;
    prefix?: string;
  };
  /** Remind approvers after this long without a decision (approval.remind jobs; a surface may act on them). */
  approvalReminderMs?: number;
  /** Skip migrations (the CLI's `migrate` runs them itself). */
  migrate?: boolean;
  /** Surface settings over the config's (tests). */
  surfaces?: SurfaceOverrides;
  /** Live update pacing and timeouts over the defaults (tests shorten the timeouts). */
  live?: Partial<LiveOptions>;
  /** When the embedded database's inbound journal moves requests into it (tests shorten the waits). */
  journal?: JournalTiming;
}
