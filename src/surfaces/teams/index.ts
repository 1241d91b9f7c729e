// The Microsoft Teams surface: botbuilder's CloudAdapter at POST /api/messages
// (Bot Framework authentication checked by the SDK), and the jobs that post
// agents' answers and approval cards through the outbox.
import type { App, SurfaceModule } from '../../app-types.ts';
import type { Mount } from '../../http/http.ts';
import { approvalShowHandler, approvalUpdateHandler, TEAMS_APPROVAL_SHOW, TEAMS_APPROVAL_UPDATE } from './approvals.ts';
import { teamsAudience } from './audience.ts';
import { SwitchboardTeamsBot } from './handlers.ts';
import { teamsBridgePort } from './bridge.ts';
import { linkDoneHandler, TEAMS_LINK_DONE, TEAMS_LINK_WORDING } from './linking.ts';
import { registerSurfaceDelivery } from '../shared/delivery.ts';
import { drainFlag, surfaceMount } from '../shared/module.ts';
import { teamsListenChannels } from './listen-channels.ts';
import { teamsLive } from './live.ts';
import { teamsOutbound } from './outbound.ts';
import { teamsInboundHandler, teamsReceiver, TEAMS_INBOUND } from './receiver.ts';
import { createTeamsRuntime, type TeamsRuntime } from './runtime.ts';
import type { TeamsSettings } from './settings.ts';

export { connectTeamsTenant } from './connect.ts';
export { teamsRuntime, type TeamsRuntime } from './runtime.ts';
export { TEAMS_INBOUND } from './receiver.ts';
export { TEAMS_APPROVAL_SHOW, TEAMS_APPROVAL_UPDATE } from './approvals.ts';
export { TEAMS_LINK_DONE } from './linking.ts';
export type { TeamsSettings } from './settings.ts';

export { TEAMS_POST } from './outbound.ts';

/** The Teams surface of a running App: its runtime, and its route when Teams is configured. */
export interface TeamsSurface extends SurfaceModule {
  readonly name: 'teams';
  readonly runtime: TeamsRuntime;
}

/**
 * Builds the Teams surface (createApp calls it when Teams is configured): the
 * runtime, the job handlers and the audience every process needs, so a worker
 * or an mcp-stdio process replays stored activities and posts Teams answers
 * and approval cards too.
 */
export function createTeamsSurface(app: App, overrides: Partial<TeamsSettings> = {}): TeamsSurface {
  const rt = createTeamsRuntime(app, overrides);
  // One bot per surface: the route and the inbound.teams job share its turn logic.
  const bot = new SwitchboardTeamsBot(rt);
  const logic = (context: Parameters<SwitchboardTeamsBot['run']>[0]) => bot.run(context);
  const outbound = { ...teamsOutbound(rt), ...teamsLive(rt) };
  registerSurfaceDelivery(app, outbound);
  app.bridges.register(teamsBridgePort(rt, outbound));
  app.queue.register(TEAMS_APPROVAL_SHOW, approvalShowHandler(rt));
  app.queue.register(TEAMS_APPROVAL_UPDATE, approvalUpdateHandler(rt));
  app.queue.register(TEAMS_LINK_DONE, linkDoneHandler(rt));
  app.links.registerWording('teams', TEAMS_LINK_WORDING);
  app.queue.register(
    TEAMS_INBOUND,
    teamsInboundHandler(rt, () => logic),
  );
  app.audiences.register('teams', teamsAudience(rt));
  app.listening.registerChannels(teamsListenChannels(rt));
  const adapter = rt.adapter;
  return {
    name: 'teams',
    runtime: rt,
    configured: Boolean(adapter),
    mount(web) {
      if (!adapter) return;
      web.post('/api/messages', ...teamsReceiver(rt, adapter, logic, drainFlag(app)));
    },
  };
}

/** `POST /api/messages`, when Teams is configured. */
export const mountTeams: Mount = surfaceMount(
  'teams',
  'Teams is off: set MICROSOFT_APP_ID and MICROSOFT_APP_PASSWORD (and MICROSOFT_APP_TENANT_ID for a single-tenant bot) to turn it on',
);
