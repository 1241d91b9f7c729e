// The Microsoft Teams surface: botbuilder's CloudAdapter at POST /api/messages
// (Bot Framework authentication checked by the SDK), and the jobs that post
// agents' answers and approval cards through the outbox.
import type { ChatSurface, SurfaceFactory } from '../contract.ts';
import { drainFlag, runtimeOf } from '../shared/module.ts';
import { approvalShowHandler, approvalUpdateHandler } from './approvals.ts';
import { teamsAudience } from './audience.ts';
import { teamsBridgePort } from './bridge.ts';
import type { TeamsState } from './state.ts';
import { SwitchboardTeamsBot } from './handlers.ts';
import { linkDoneHandler, TEAMS_LINK_WORDING } from './linking.ts';
import { teamsListenChannels } from './listen-channels.ts';
import { teamsLive } from './live.ts';
import { TEAMS, TEAMS_APPROVAL_SHOW, TEAMS_APPROVAL_UPDATE, TEAMS_INBOUND, TEAMS_LINK_DONE } from './topics.ts';
import { teamsOutbound } from './outbound.ts';
import { teamsInboundHandler, teamsReceiver } from './receiver.ts';
import { createTeamsRuntime, type TeamsRuntime } from './runtime.ts';
import type { TeamsSettings } from './settings.ts';

export { connectTeamsTenant } from './connect.ts';
export type { TeamsRuntime } from './runtime.ts';
export {
  TEAMS,
  TEAMS_APPROVAL_SHOW,
  TEAMS_APPROVAL_UPDATE,
  TEAMS_INBOUND,
  TEAMS_LINK_DONE,
  TEAMS_POST,
  TEAMS_POST_CHANGE,
} from './topics.ts';
export type { TeamsSettings } from './settings.ts';

/** The Teams surface of a running App: the contract's parts, and its runtime. */
export interface TeamsSurface extends ChatSurface {
  readonly name: 'teams';
  readonly runtime: TeamsRuntime;
}

/**
 * The Teams runtime among the surfaces a process built (`app.surfaceModules`); UNAVAILABLE, saying how to turn Teams
 * on, when this process has none.
 */
export const teamsRuntime = (surfaces: ReadonlyMap<string, ChatSurface>): TeamsRuntime =>
  runtimeOf(
    surfaces,
    TEAMS.surface,
    'Teams is not configured in this process: set MICROSOFT_APP_ID and MICROSOFT_APP_PASSWORD, then start it again.',
  );

/**
 * Builds the Teams surface (createApp calls it when Teams is configured): the
 * runtime, the job handlers and the audience every process needs, so a worker
 * or an mcp-stdio process replays stored activities and posts Teams answers
 * and approval cards too.
 */
export const createTeamsSurface: SurfaceFactory<Partial<TeamsSettings>, TeamsState> = (core, { override, state }) => {
  const rt = createTeamsRuntime(core, state, override);
  // One bot per surface: the route and the inbound job share its turn logic.
  const bot = new SwitchboardTeamsBot(rt);
  const logic = (context: Parameters<SwitchboardTeamsBot['run']>[0]) => bot.run(context);
  const outbound = { ...teamsOutbound(rt), ...teamsLive(rt) };
  const adapter = rt.adapter;
  const surface: TeamsSurface = {
    name: TEAMS.surface,
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
  return surface;
};
