// The Microsoft Teams surface: botbuilder's CloudAdapter at POST /api/messages
// (Bot Framework authentication checked by the SDK), and the jobs that post
// agents' answers and approval cards through the outbox.
import type { App } from '../../app-types.ts';
import type { Mount } from '../../http/http.ts';
import { type ChatSurface, legacyAppOf, type SurfaceFactory } from '../contract.ts';
import { drainFlag } from '../shared/module.ts';
import { approvalShowHandler, approvalUpdateHandler, TEAMS_APPROVAL_SHOW, TEAMS_APPROVAL_UPDATE } from './approvals.ts';
import { teamsAudience } from './audience.ts';
import { teamsBridgePort } from './bridge.ts';
import { SwitchboardTeamsBot } from './handlers.ts';
import { linkDoneHandler, TEAMS_LINK_DONE, TEAMS_LINK_WORDING } from './linking.ts';
import { teamsListenChannels } from './listen-channels.ts';
import { teamsLive } from './live.ts';
import { teamsOutbound } from './outbound.ts';
import { TEAMS_INBOUND, teamsInboundHandler, teamsReceiver } from './receiver.ts';
import { createTeamsRuntime, TEAMS, type TeamsRuntime } from './runtime.ts';
import type { TeamsSettings } from './settings.ts';

export { connectTeamsTenant } from './connect.ts';
export { teamsRuntime, type TeamsRuntime } from './runtime.ts';
export { TEAMS_INBOUND } from './receiver.ts';
export { TEAMS_APPROVAL_SHOW, TEAMS_APPROVAL_UPDATE } from './approvals.ts';
export { TEAMS_LINK_DONE } from './linking.ts';
export type { TeamsSettings } from './settings.ts';

export { TEAMS_POST } from './outbound.ts';

/** The Teams surface of a running App: the contract's parts, and its runtime. */
export interface TeamsSurface extends ChatSurface {
  readonly name: 'teams';
  readonly runtime: TeamsRuntime;
}

/**
 * Builds the Teams surface (createApp calls it when Teams is configured): the
 * runtime, the job handlers and the audience every process needs, so a worker
 * or an mcp-stdio process replays stored activities and posts Teams answers
 * and approval cards too.
 */
export const createTeamsSurface: SurfaceFactory<Partial<TeamsSettings>, unknown> = (core, { override }) => {
  const app = legacyAppOf<App>(core);
  const rt = createTeamsRuntime(app, override);
  // One bot per surface: the route and the inbound.teams job share its turn logic.
  const bot = new SwitchboardTeamsBot(rt);
  const logic = (context: Parameters<SwitchboardTeamsBot['run']>[0]) => bot.run(context);
  const outbound = { ...teamsOutbound(rt), ...teamsLive(rt) };
  const adapter = rt.adapter;
  return {
    name: 'teams',
    label: TEAMS.label,
    runtime: rt,
    configured: Boolean(adapter),
    howToTurnOn:
      'Teams is off: set MICROSOFT_APP_ID and MICROSOFT_APP_PASSWORD (and MICROSOFT_APP_TENANT_ID for a single-tenant bot) to turn it on',
    outbound,
    bridge: teamsBridgePort(rt, outbound),
    listenChannels: teamsListenChannels(rt),
    linkWording: TEAMS_LINK_WORDING,
    audience: teamsAudience(rt),
    jobs: {
      [TEAMS_INBOUND]: teamsInboundHandler(rt, () => logic),
      [TEAMS_APPROVAL_SHOW]: approvalShowHandler(rt),
      [TEAMS_APPROVAL_UPDATE]: approvalUpdateHandler(rt),
      [TEAMS_LINK_DONE]: linkDoneHandler(rt),
    },
    mount(web) {
      if (!adapter) return;
      web.post('/api/messages', ...teamsReceiver(rt, adapter, logic, drainFlag(core)));
    },
  };
};
