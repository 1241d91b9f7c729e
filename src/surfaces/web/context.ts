// What the web chat's routes are built from: the core it was given, its page
// services, its settings, and the app's sign-in (given when it is mounted).
import type { HttpKit, SurfaceCore } from '../contract.ts';
import type { ApprovalCards } from './pages/approval-cards.ts';
import type { AgentsPage } from './pages/agents-page.ts';
import type { ChatService } from './pages/chat-service.ts';
import type { IntakePage } from './pages/intake-page.ts';
import type { WebSettings } from './settings.ts';

/** The web chat's page services, built once per process from the core (src/surfaces/web/index.ts). */
export interface WebPages {
  /** Channels, DMs, threads, search, what each person sees. */
  readonly chat: ChatService;
  /** The agents page (cards, tokens, MCP config). */
  readonly agentsPage: AgentsPage;
  /** The intake page. */
  readonly intakePage: IntakePage;
  /** Approval cards as one person sees them. */
  readonly cards: ApprovalCards;
}

/** Everything the web chat's routes use. */
export interface WebChat extends WebPages {
  readonly core: SurfaceCore;
  readonly http: HttpKit;
  readonly settings: WebSettings;
}
