// The Microsoft Teams surface: botbuilder's CloudAdapter at POST /api/messages
// (Bot Framework authentication checked by the SDK), and the jobs that post
// agents' answers and approval cards through the outbox.
import type { App } from '../../app.ts';
import type { Mount } from '../../web/http.ts';
import { approvalShowHandler, approvalUpdateHandler, TEAMS_APPROVAL_SHOW, TEAMS_APPROVAL_UPDATE } from './approvals.ts';
import { teamsAudience } from './audience.ts';
import { SwitchboardTeamsBot } from './bot.ts';
import { linkDoneHandler, TEAMS_LINK_DONE } from './linking.ts';
import { registerSurfaceDelivery } from '../surface-delivery.ts';
import { teamsOutbound } from './outbound.ts';
import { teamsInboundHandler, teamsReceiver, TEAMS_INBOUND } from './receiver.ts';
import { teamsConfigured, teamsRuntime, type TeamsRuntime } from './runtime.ts';
import type { TeamsSettings } from './settings.ts';

export { connectTeamsTenant } from './connect.ts';
export { teamsRuntime, type TeamsRuntime } from './runtime.ts';
export { TEAMS_INBOUND } from './receiver.ts';
export { TEAMS_APPROVAL_SHOW, TEAMS_APPROVAL_UPDATE } from './approvals.ts';
export { TEAMS_LINK_DONE } from './linking.ts';
export type { TeamsSettings } from './settings.ts';

/** The job that posts agents' messages into Teams conversations. */
export const TEAMS_POST = 'teams.post';

/** Registers the Teams job handlers and audiences; mounts call it, and so does a worker-only process. */
export function registerTeamsJobs(app: App, overrides: Partial<TeamsSettings> = {}): void {
  const rt = teamsRuntime(app, overrides);
  registerSurfaceDelivery(app, teamsOutbound(rt));
  app.queue.register(TEAMS_APPROVAL_SHOW, approvalShowHandler(rt));
  app.queue.register(TEAMS_APPROVAL_UPDATE, approvalUpdateHandler(rt));
  app.queue.register(TEAMS_LINK_DONE, linkDoneHandler(rt));
  app.queue.register(TEAMS_INBOUND, teamsInboundHandler(rt, () => botLogic(rt)));
  app.audiences.register('teams', teamsAudience(rt));
  if (teamsConfigured(rt.settings)) app.surfaces.add('teams');
}

const bots = new WeakMap<TeamsRuntime, SwitchboardTeamsBot>();

/** The bot's turn logic, one bot per runtime (the route and the inbound.teams job share it). */
function botLogic(rt: TeamsRuntime) {
  let bot = bots.get(rt);
  if (!bot) bots.set(rt, bot = new SwitchboardTeamsBot(rt));
  return (context: Parameters<SwitchboardTeamsBot['run']>[0]) => bot.run(context);
}

/** A Teams mount; tests pass settings (the stand-in's endpoints and credentials) that the default mount takes from the config. */
export function teamsMount(overrides: Partial<TeamsSettings> = {}): Mount {
  return (web, app) => {
    registerTeamsJobs(app, overrides);
    const rt = teamsRuntime(app);
    if (!rt.adapter) {
      rt.logger.info('Teams is off: set MICROSOFT_APP_ID and MICROSOFT_APP_PASSWORD (and MICROSOFT_APP_TENANT_ID for a single-tenant bot) to turn it on');
      return;
    }
    let draining = false;
    app.onDrain.push(() => { draining = true; });
    web.post('/api/messages', ...teamsReceiver(rt, rt.adapter, botLogic(rt), () => draining));
  };
}

/** `POST /api/messages` and the `teams.*` jobs. */
export const mountTeams: Mount = teamsMount();
