import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pino, { type Logger } from 'pino';
import { openDatabase } from './infra/db/client.ts';
import { PgNotifier } from './infra/db/pg-notifier.ts';
import { createStore } from './infra/db/store.ts';
import { InboundJournal, journalDirOf } from './infra/db/inbound-journal.ts';
import { DrizzleInboundEventRepo } from './infra/db/inbound-repo.ts';
import { ReadCache } from './infra/db/read-cache.ts';
import { createMetrics } from './infra/metrics/metrics.ts';
import { createJobQueue } from './infra/queue/create-queue.ts';
import type { Config } from './config.ts';
import { LOG_SAFETY } from './infra/logger.ts';
import { demoTokenRule } from './demo/names.ts';
import { AgentService } from './core/agents/agent-service.ts';
import { ApprovalService } from './core/approvals/approval-service.ts';
import { MessagingService } from './core/messaging/messaging-service.ts';
import { DocumentService } from './core/documents/document-service.ts';
import { AudienceService } from './core/linking/audience-service.ts';
import { LinkService } from './core/linking/link-service.ts';
import { DEFAULT_RATE_LIMIT } from './core/messaging/rules.ts';
import { OrgService } from './core/organizations/org-service.ts';
import { InboundService } from './core/surfaces/inbound-service.ts';
import { ChannelService } from './core/channels/channel-service.ts';
import { LinkPreviewService } from './core/previews/preview-service.ts';
import { DocumentAdmin } from './core/documents/document-admin.ts';
import { BridgeService } from './core/bridges/bridge-service.ts';
import { DEFAULT_LIVE_OPTIONS, LiveService } from './core/live/live-service.ts';
import { LIVE_RESCUE, outboxDrafts } from './core/live/live-drafts.ts';
import type { SurfaceOutbound } from './core/delivery/surface-outbound.ts';
import type { ExternalSurface } from './core/surfaces/surface-ports.ts';
import { ListeningService } from './core/listening/listening-service.ts';
import { BRIDGE_CHANGE, BRIDGE_POST, bridgeChangeHandler, bridgePostHandler } from './core/bridges/mirror-out.ts';
import { BRIDGE_REACT, bridgeReactHandler } from './core/bridges/mirror-reactions.ts';
import { BridgeInbound } from './core/bridges/mirror-in.ts';
import { IntakeService } from './core/intake/intake-service.ts';
import { JobService } from './core/delivery/job-service.ts';
import { systemClock } from './core/ports.ts';
import type { SurfaceName } from './core/entities.ts';
import type { App, AppOptions, SurfaceOverrides } from './app-types.ts';
import { surfaceState } from './infra/db/surface-state.ts';
import { createSecretBox } from './infra/secrets/secret-box.ts';
import type { ChatSurface, SurfaceCore } from './surfaces/contract.ts';
import { SURFACES } from './surfaces/registry.ts';
import { registerSurfaceDelivery } from './app-delivery.ts';
import { registerPeriodicWork } from './app-periodic.ts';

export type { App, AppOptions, SurfaceOverrides } from './app-types.ts';

/** The secret from the environment, or one generated once and kept in DATA_DIR (mode 600). */
export function resolveSecret(config: Config, logger: Logger): string {
  if (config.secret) return config.secret;
  const file = path.join(config.dataDir, 'secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(config.dataDir, { recursive: true });
  const secret = randomBytes(32).toString('hex');
  writeFileSync(file, secret, { mode: 0o600 });
  logger.warn(
    { file },
    'SWITCHBOARD_SECRET is not set; generated one in the data directory (set it explicitly when several processes share a database)',
  );
  return secret;
}

/** Jobs one process runs at once (see createApp). */
const POSTGRES_JOBS = 16;
const PGLITE_JOBS = 2;

export async function createApp(config: Config, opts: AppOptions = {}): Promise<App> {
  const logger = opts.logger ?? pino({ level: config.logLevel, ...LOG_SAFETY });
  const clock = opts.clock ?? systemClock;
  const database =
    opts.database ??
    (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: path.join(config.dataDir, 'pglite'), logger }));
  if (opts.migrate !== false) await database.migrate();
  // The embedded database on disk acknowledges Slack and Teams after a journal beside it (see inbound-journal.ts).
  const journal =
    database.kind === 'pglite' && database.dataDir
      ? await InboundJournal.open(
          journalDirOf(database.dataDir),
          new DrizzleInboundEventRepo(database.db, clock),
          logger.child({ module: 'inbound-journal' }),
          opts.journal,
          clock,
        )
      : null;
  const store = createStore(database.db, clock, false, new ReadCache(database.changes), journal ?? undefined);
  const notifier = new PgNotifier(database, logger);
  const metrics = createMetrics({
    db: () => database.db,
    now: () => clock.now(),
    ...(journal ? { journalWaiting: () => journal.waiting } : {}),
  });
  // Jobs wait mostly on PostgreSQL and Slack, so many run at once; PGlite runs one query at a time (on its own
  // thread), where more jobs at once would only queue their queries ahead of the acknowledgements Slack waits for.
  const concurrency = database.kind === 'pglite' ? PGLITE_JOBS : POSTGRES_JOBS;
  const queue = createJobQueue({
    redisUrl: config.redisUrl,
    outbox: metrics.meterOutbox(store.outbox),
    logger,
    clock,
    concurrency,
    maxAgeMs: config.jobMaxAgeMs,
    ...opts.queue,
  });
  journal?.onStored(() => queue.kick());
  const orgs = new OrgService(store, clock);
  const agents = new AgentService(store, orgs, notifier, demoTokenRule);
  const audiences = new AudienceService(store, clock);
  const links = new LinkService(store, clock, config.publicUrl, () => queue.kick());
  const outbound = new Map<ExternalSurface, SurfaceOutbound>();
  const postTopicOf = (s: SurfaceName) => outbound.get(s)?.postTopic ?? null;
  const listening = new ListeningService(store, orgs, agents, clock, postTopicOf, () => queue.kick());
  const messaging = new MessagingService(
    store,
    agents,
    notifier,
    clock,
    opts.rateLimit ?? DEFAULT_RATE_LIMIT,
    () => queue.kick(),
    audiences,
    postTopicOf,
    listening,
  );
  const documents = new DocumentService(store, orgs, clock);
  const intake = new IntakeService(store, orgs, agents, notifier, clock, config.publicUrl, postTopicOf, () =>
    queue.kick(),
  );
  const inbound = new InboundService(
    store,
    clock,
    orgs,
    agents,
    messaging,
    links,
    new BridgeInbound(store, messaging, notifier, () => clock.now()),
    intake,
  );
  const surfaces = new Set<SurfaceName>();
  const live = new LiveService(
    messaging,
    notifier,
    clock,
    (s) => outbound.get(s as ExternalSurface) ?? null,
    logger.child({ module: 'live' }),
    { ...DEFAULT_LIVE_OPTIONS, ...opts.live },
    { drafts: outboxDrafts(store.outbox), store },
  );
  // A streamed message its process left open is finished by whichever process claims it.
  queue.register(LIVE_RESCUE, (p) => live.rescue(p));
  const approvals = new ApprovalService(
    store,
    orgs,
    agents,
    notifier,
    clock,
    {
      surfaces: () => [...surfaces],
      reminderMs: opts.approvalReminderMs ?? config.approvalReminderMs,
      labelOf: (s) => outbound.get(s)?.label,
      audiences,
    },
    () => queue.kick(),
  );
  const bridges = new BridgeService(store, orgs, clock);
  const channels = new ChannelService(store, orgs, agents, notifier, clock, inbound, (s) => outbound.get(s)?.label);
  const mirrors = {
    store,
    clock,
    port: (s: ExternalSurface) => bridges.port(s),
    outsideChannelsGone: bridges.outsideChannelsGone.bind(bridges),
  };
  queue.register(BRIDGE_POST, bridgePostHandler(mirrors));
  queue.register(BRIDGE_CHANGE, bridgeChangeHandler(mirrors));
  queue.register(BRIDGE_REACT, bridgeReactHandler(mirrors));
  queue.register('approval.expire', async (p) => {
    await approvals.expire(String(p.workspaceId), String(p.approvalId));
  });
  queue.register('approval.remind', async (p) => {
    await approvals.remind(String(p.workspaceId), String(p.approvalId));
  });
  const app: App = {
    config,
    logger,
    secret: resolveSecret(config, logger),
    database,
    store,
    notifier,
    queue,
    clock,
    metrics,
    orgs,
    agents,
    messaging,
    documents,
    approvals,
    surfaces,
    surfaceModules: new Map(),
    surfaceState: surfaceState(database.db),
    outbound,
    live,
    links,
    audiences,
    inbound,
    bridges,
    listening,
    channels,
    previews: new LinkPreviewService(
      store,
      { orgs, approvals, audiences, documents, intake, channels },
      config.publicUrl,
    ),
    documentAdmin: new DocumentAdmin(store, documents, clock),
    mcpSessions: null,
    intake,
    jobs: new JobService(store.outbox, () => queue.kick()),
    onClose: [],
    onDrain: [],
    async close() {
      for (const fn of app.onClose.reverse()) await fn();
      await live.close();
      await journal?.close();
      await queue.stop();
      await notifier.close();
      if (!opts.database) await database.close();
    },
  };
  await buildSurfaces(app, opts.surfaces ?? {});
  registerPeriodicWork(app);
  return app;
}

/** What a chat surface may use of the running app (src/surfaces/contract.ts): its services and ports, never the store. */
export function surfaceCoreOf(app: App): SurfaceCore {
  const { store } = app;
  return {
    config: app.config,
    logger: app.logger,
    clock: app.clock,
    secrets: createSecretBox(app.secret),
    orgs: app.orgs,
    agents: app.agents,
    messaging: app.messaging,
    approvals: app.approvals,
    inbound: app.inbound,
    links: app.links,
    audiences: app.audiences,
    bridges: app.bridges,
    listening: app.listening,
    intake: app.intake,
    live: app.live,
    channels: app.channels,
    previews: app.previews,
    notifier: app.notifier,
    identities: store.identities,
    tenants: store.tenants,
    defaultAgents: store.defaultAgents,
    inboundEvents: store.inbound,
    posts: store.posts,
    kick: () => app.queue.kick(),
    holdForIngest: () => app.queue.holdForIngest(),
    onDrain: (fn) => {
      app.onDrain.push(fn);
    },
    onClose: (fn) => {
      app.onClose.push(fn);
    },
  };
}

/** Registers every part a surface names with the core, the same way for every surface. */
export function registerSurface(app: App, surface: ChatSurface): void {
  app.surfaceModules.set(surface.name, surface);
  // The web chat keeps its posts (and approval cards) in Switchboard: only a surface that posts out shows them by jobs.
  if (surface.configured && surface.outbound) app.surfaces.add(surface.name);
  if (surface.outbound) registerSurfaceDelivery(app, surface.outbound);
  if (surface.bridge) app.bridges.register(surface.bridge);
  if (surface.listenChannels) app.listening.registerChannels(surface.listenChannels);
  if (surface.linkWording) app.links.registerWording(surface.name, surface.linkWording);
  if (surface.audience) app.audiences.register(surface.name, surface.audience);
  for (const [topic, handler] of Object.entries(surface.jobs)) app.queue.register(topic, handler);
}

/**
 * Builds the chat surfaces the config asks for (src/surfaces/registry.ts), in every process (serve, worker,
 * mcp-stdio, the CLI), so each knows them all: their jobs, audiences and approval cards. An SDK is loaded only when
 * its surface is wanted.
 */
async function buildSurfaces(app: App, overrides: SurfaceOverrides): Promise<void> {
  const core = surfaceCoreOf(app);
  for (const definition of SURFACES) {
    const override = overrides[definition.name];
    if (!definition.wanted(app.config, override)) continue;
    const create = await definition.load();
    registerSurface(app, create(core, { override, state: app.surfaceState[definition.name] }));
  }
}
