// The one contract every chat surface (Slack, Teams, the web chat, and any
// surface added later) is built on. A surface is one module whose factory
// receives a SurfaceCore (the core services it may use, never the App or the
// store) and returns one ChatSurface object naming all its parts; the
// composition root (src/app.ts) registers those parts with the core the same
// way for every surface. src/surfaces/registry.ts lists the surfaces: adding
// one is one module and one line there.
import type { Express, Request, RequestHandler, Response, Router } from 'express';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { AgentService } from '../core/agents/agent-service.ts';
import type { ApprovalService } from '../core/approvals/approval-service.ts';
import type { BridgeService } from '../core/bridges/bridge-service.ts';
import type { BridgePort } from '../core/bridges/bridge-port.ts';
import type { ChannelService } from '../core/channels/channel-service.ts';
import type { SurfaceOutbound } from '../core/delivery/surface-outbound.ts';
import type { IntakeService } from '../core/intake/intake-service.ts';
import type { AudienceService } from '../core/linking/audience-service.ts';
import type { LinkWording } from '../core/linking/link-rules.ts';
import type { LinkService } from '../core/linking/link-service.ts';
import type { SurfaceAudience } from '../core/linking/audience-ports.ts';
import type { ListenChannels } from '../core/listening/listen-ports.ts';
import type { ListeningService } from '../core/listening/listening-service.ts';
import type { LiveService } from '../core/live/live-service.ts';
import type { MessagingService } from '../core/messaging/messaging-service.ts';
import type { LinkPreviewService } from '../core/previews/preview-service.ts';
import type { OrgService } from '../core/organizations/org-service.ts';
import type { SignedIn, WebSession } from '../core/organizations/sessions.ts';
import type { Clock, InboundEventRepo, JobHandler, Notifier, SurfacePostRepo } from '../core/ports.ts';
import type { InboundService } from '../core/surfaces/inbound-service.ts';
import type {
  DefaultAgentRepo,
  ExternalIdentityRepo,
  ExternalSurface,
  SurfaceTenantRepo,
} from '../core/surfaces/surface-ports.ts';
import type { SafeHtml } from '../http/html.ts';
import type { SecretBox } from '../infra/secrets/secret-box.ts';

/**
 * What a chat surface may use of the running core: its services, the ports
 * for state every surface keeps (identities, tenants, default agents, stored
 * requests, posts made once), and the process's hooks. Never the App, the
 * store or the database.
 */
export interface SurfaceCore {
  readonly config: Config;
  readonly logger: Logger;
  readonly clock: Clock;
  /** Seals and opens platform tokens kept in the database (SWITCHBOARD_SECRET). */
  readonly secrets: SecretBox;
  readonly orgs: OrgService;
  readonly agents: AgentService;
  readonly messaging: MessagingService;
  readonly approvals: ApprovalService;
  readonly inbound: InboundService;
  readonly links: LinkService;
  readonly audiences: AudienceService;
  readonly bridges: BridgeService;
  readonly listening: ListeningService;
  readonly intake: IntakeService;
  readonly live: LiveService;
  /** Switchboard's own channels, DMs and threads, as signed-in people use them (the web chat). */
  readonly channels: ChannelService;
  /** What a Switchboard link pasted into a chat app shows, and to whom (link previews). */
  readonly previews: LinkPreviewService;
  /** Wake-ups across processes: what changed, on topics the core publishes (the web chat's event stream listens). */
  readonly notifier: Notifier;
  /** Chat users as Switchboard knows them, linked or not. */
  readonly identities: ExternalIdentityRepo;
  /** Which workspace each team or tenant is connected to. */
  readonly tenants: SurfaceTenantRepo;
  /** The agent a person's DMs or a channel's unaddressed mentions go to. */
  readonly defaultAgents: DefaultAgentRepo;
  /** Platform requests stored before they are acknowledged, handled later by a job. */
  readonly inboundEvents: InboundEventRepo;
  /** Posts made once (cards, confirmations), recorded so a retried job finds them. */
  readonly posts: SurfacePostRepo;
  /** Tells the job queue there is new work (after storing a request). */
  kick(): void;
  /**
   * A platform request waits for its acknowledgement: this process claims no new jobs until the returned release is
   * called (for a bounded time), so the acknowledgement gets the CPU first. Call the release in a `finally`.
   */
  holdForIngest(): () => void;
  /** Runs `fn` as soon as the server starts stopping (a route then refuses new requests). */
  onDrain(fn: () => void | Promise<void>): void;
  /** Runs `fn` when the app closes. */
  onClose(fn: () => void | Promise<void>): void;
}

/** One chat surface, as its module builds it: every part the core registers, named in one object. */
export interface ChatSurface {
  /** The surface's name, as conversations, identities and approval views record it ("slack"). */
  readonly name: ExternalSurface;
  /** Its name in sentences ("Slack"). */
  readonly label: string;
  /** True when it is set up (a chat app's credentials are set): its routes are mounted, and approvals are shown there through its outbound. */
  readonly configured: boolean;
  /** Logged once, when the surface is not configured, to say how to turn it on. */
  readonly howToTurnOn: string;
  /** Posting agents' messages, live status and streams to the platform; absent for a surface that keeps its posts in Switchboard (the web chat). */
  readonly outbound?: SurfaceOutbound;
  /** Who reads its conversations. */
  readonly audience?: SurfaceAudience;
  /** Its side of bridged channels. */
  readonly bridge?: BridgePort;
  /** How its channels are named for listening agents. */
  readonly listenChannels?: ListenChannels;
  /** How it speaks of account links. */
  readonly linkWording?: LinkWording;
  /** Its job handlers by topic; each topic is a constant exported once by the surface. */
  readonly jobs: Readonly<Record<string, JobHandler>>;
  /**
   * Adds its routes (receiver, install pages, pages for people) to the one express app; called only when configured,
   * by the serving process. `http` is the app's sign-in, for routes that need a person signed in.
   */
  mount?(web: Express, http: HttpKit): void;
  /**
   * Opens the connections the surface keeps to its platform itself (Slack's Socket Mode), once the server has started
   * and only in the serving process; returns at once (connecting is retried in the background), and the connections
   * close when the server starts stopping. Called only when configured.
   */
  connect?(): void;
  /**
   * Checks, once the server has started, what would otherwise fail only at the first request (stored credentials the
   * current secret cannot open, say) and logs what to do; never throws. Called by the serving process only.
   */
  checkOnStart?(): Promise<void>;
}

/** How many failed sign-ins are allowed before the sign-in page refuses more for a while. */
export interface SigninLimits {
  /** Failed attempts allowed per client address in the window. */
  perAddress: number;
  /** Failed attempts allowed per account (from any address) in the window. */
  perAccount: number;
  windowMs: number;
}

/**
 * What a surface's routes may use of the one express app's sign-in (src/http/auth): sessions, CSRF tokens and the
 * headers pages send. Built from the running app by the mount (src/http/surface-mount.ts); a surface whose routes
 * need nobody signed in (Slack, Teams) ignores it.
 */
export interface HttpKit {
  /** Lets only signed-in people through: a page (`page: true`) sends others to `/signin` and back, an API call answers 401. */
  requirePerson(opts?: { page?: boolean }): RequestHandler;
  /** Refuses a change (anything but GET, HEAD, OPTIONS) without this browser's CSRF token; put it after requirePerson. */
  requireCsrf(): RequestHandler;
  /** The signed-in person of this request once requirePerson ran; null otherwise. */
  authOf(res: Response): SignedIn | null;
  /** This browser's CSRF token, for scripts to send with every change. */
  csrfToken(req: Request, res: Response): string;
  /** A hidden form field carrying this browser's CSRF token. */
  csrfField(req: Request, res: Response): SafeHtml;
  /** Sets the headers every HTML page sends (content security policy, no framing, no caching). */
  securityHeaders(res: Response): void;
  /** The request's session looked up again without counting as use (a long-lived stream's own checks); null when it ended. */
  recheckSession(req: Request): Promise<SignedIn | null>;
  /** When a session ends unless used again (ms since the epoch). */
  sessionEndsAt(session: WebSession): number;
  /** `/signin`, `/signout` and `/account`, with these limits on failed sign-ins (the defaults when absent). */
  signinRoutes(limits?: SigninLimits): Router;
}

/**
 * What a surface's factory is given besides the core: its settings over the config's (`override`, tests point
 * surfaces at stand-ins) and the repositories of the tables only it keeps (`state`, from src/infra/db/surface-state.ts).
 */
export interface SurfaceInputs<Override, State> {
  override: Override | undefined;
  state: State;
}

/** Builds one surface; called once per process, in every process (serve, worker, mcp-stdio, the CLI). */
export type SurfaceFactory<Override = unknown, State = unknown> = (
  core: SurfaceCore,
  inputs: SurfaceInputs<Override, State>,
) => ChatSurface;

/** A surface in the registry: when it is wanted, and how to load it (its SDK is loaded only then). */
export interface SurfaceDefinition<Override = unknown, State = unknown> {
  readonly name: ExternalSurface;
  /** True when the config (or a test's override) asks for the surface; it is then built in every process. */
  wanted(config: Config, override: Override | undefined): boolean;
  /** Loads the surface's module (and its SDK) and returns its factory. */
  load(): Promise<SurfaceFactory<Override, State>>;
}

/** Keeps a definition's types where it is written; the registry holds them as plain SurfaceDefinitions. */
export const defineSurface = <O, S>(d: SurfaceDefinition<O, S>): SurfaceDefinition => d as unknown as SurfaceDefinition;
