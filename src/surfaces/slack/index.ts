// The Slack surface: Bolt mounted on the one express app at POST /slack/events
// (events, interactivity and slash commands, signature checked by Bolt) or, in
// Socket Mode (SLACK_APP_TOKEN), the same requests received over an outgoing
// WebSocket (socket-mode.ts); the OAuth install routes; and the jobs
// (topics.ts) that handle stored requests and post agents' answers, link
// confirmations and approval cards. It is given the core's services and its
// own installations table, never the App.
import { App as BoltApp, ExpressReceiver, type Receiver } from '@slack/bolt';
import express, { type Express, type RequestHandler } from 'express';
import type { ChatSurface, SurfaceFactory } from '../contract.ts';
import { drainFlag } from '../shared/module.ts';
import { approvalShowHandler, approvalUpdateHandler } from './approval-jobs.ts';
import { registerApprovalActions } from './approvals.ts';
import { slackAudience } from './audience.ts';
import { slackBridgePort } from './bridge.ts';
import { boltLogger, clientOptions } from './clients.ts';
import { eventListeners } from './event-listeners.ts';
import { registerListeners } from './handlers.ts';
import type { SlackState } from './installation-repo.ts';
import { warnOnUnreadableTokens } from './installations.ts';
import { linkDoneHandler, registerLinking, slackLinkWording } from './linking.ts';
import { slackListenChannels } from './listen-channels.ts';
import { slackLive } from './live.ts';
import { oauthOptions } from './oauth.ts';
import { slackOutbound } from './outbound.ts';
import { DurableReceiver, rethrowListenerErrors, slackGate, slackInboundHandler } from './receiver.ts';
import { createSlackRuntime, SLACK, type SlackRuntime } from './runtime.ts';
import type { SlackSettings } from './settings.ts';
import { SlackSocketMode } from './socket-mode.ts';
import { registerUnfurls } from './unfurls.ts';
import { SLACK_APPROVAL_SHOW, SLACK_APPROVAL_UPDATE, SLACK_INBOUND, SLACK_LINK_DONE } from './topics.ts';

export { connectSlackTeam } from './connect.ts';
export type { SlackRuntime } from './runtime.ts';
export { MESSAGE_EVENT_TYPE } from './outbound.ts';

/** The Slack surface as its factory builds it: the contract's parts, and its runtime. */
export interface SlackSurface extends ChatSurface {
  readonly name: 'slack';
  readonly runtime: SlackRuntime;
}

/**
 * Builds the Slack surface (createApp calls it when Slack is configured): the
 * runtime, and the job handlers every process needs, so a worker or an
 * mcp-stdio process handles stored Slack requests and delivers Slack posts,
 * link confirmations and approval cards too.
 */
export const createSlackSurface: SurfaceFactory<Partial<SlackSettings>, SlackState> = (core, { override, state }) => {
  const rt = createSlackRuntime(core, state, override);
  let bolt: BoltApp | null = null;
  const outbound = { ...slackOutbound(rt), ...slackLive(rt) };
  return {
    name: 'slack',
    label: SLACK.label,
    runtime: rt,
    configured: Boolean(rt.settings.signingSecret || rt.settings.appToken),
    howToTurnOn:
      'Slack is off: set SLACK_SIGNING_SECRET (or SLACK_APP_TOKEN for Socket Mode), and SLACK_BOT_TOKEN or SLACK_CLIENT_ID and SLACK_CLIENT_SECRET, to turn it on',
    outbound,
    bridge: slackBridgePort(rt, outbound),
    listenChannels: slackListenChannels(rt),
    linkWording: slackLinkWording(rt.settings.command),
    audience: slackAudience(rt),
    jobs: {
      // The mount's Bolt when there is one; a process without the route builds its own, with no route, to run the listeners.
      [SLACK_INBOUND]: slackInboundHandler(rt, () =>
        rt.settings.signingSecret || rt.settings.appToken ? (bolt ??= createBolt(express(), rt)) : null,
      ),
      [SLACK_LINK_DONE]: linkDoneHandler(rt),
      [SLACK_APPROVAL_SHOW]: approvalShowHandler(rt),
      [SLACK_APPROVAL_UPDATE]: approvalUpdateHandler(rt),
    },
    mount(web) {
      web.post('/slack/events', rt.settings.appToken ? overSocketMode : slackGate(rt, drainFlag(core)));
      bolt = createBolt(web, rt);
    },
    connect() {
      if (!rt.settings.appToken) return;
      const socket = new SlackSocketMode(rt);
      core.onDrain(() => socket.stop());
      core.onClose(() => socket.stop());
      socket.start();
    },
    checkOnStart: async () => {
      if (rt.settings.appToken)
        rt.logger.info(
          { mode: 'socket' },
          'Slack requests arrive over Socket Mode (SLACK_APP_TOKEN is set): this server connects out to Slack, and POST /slack/events is not served',
        );
      else if (rt.settings.signingSecret)
        rt.logger.info(
          { mode: 'http', url: `${rt.settings.publicUrl}/slack/events` },
          'Slack requests arrive over HTTP at PUBLIC_URL/slack/events (set SLACK_APP_TOKEN for Socket Mode instead)',
        );
      await warnOnUnreadableTokens(rt.installations.repo, core.secrets, core.config, rt.logger);
    },
  };
};

/** POST /slack/events in Socket Mode: Slack sends nothing here, so whatever arrives is told where requests go instead. */
const overSocketMode: RequestHandler = (_req, res) => {
  res
    .status(404)
    .type('text')
    .send(
      "This Switchboard receives Slack's requests over Socket Mode (SLACK_APP_TOKEN is set), not at this URL: turn Socket Mode on in the Slack app's settings, or unset SLACK_APP_TOKEN to receive them here.",
    );
};

/**
 * Socket Mode's receiver: no request route at all (requests arrive over the socket), so there is no signature to
 * check; only the OAuth install pages, when SLACK_CLIENT_ID and SLACK_CLIENT_SECRET are set.
 */
function installPagesOnly(web: Express, rt: SlackRuntime, logger: ReturnType<typeof boltLogger>): Receiver {
  return new ExpressReceiver({
    signingSecret: '',
    signatureVerification: false,
    endpoints: {},
    app: web,
    logger,
    ...oauthOptions(rt),
  });
}

/** Bolt on our express app: its ExpressReceiver adds the routes; `authorize` (or the OAuth installer) reads installs from the database. */
export function createBolt(web: Express, rt: SlackRuntime): BoltApp {
  const logger = boltLogger(rt.logger);
  const oauth = oauthOptions(rt);
  // Answers only after the request is stored (receiver.ts); the listeners run later, in the inbound.slack job.
  const receiver = rt.settings.appToken
    ? installPagesOnly(web, rt, logger)
    : new DurableReceiver(
        {
          signingSecret: rt.settings.signingSecret!,
          endpoints: '/slack/events',
          app: web,
          logger,
          processBeforeResponse: true,
          ...oauth,
        },
        rt,
      );
  const bolt = new BoltApp({
    receiver,
    logger,
    clientOptions: clientOptions(rt.settings, rt.logger),
    ignoreSelf: true,
    // No listener keeps conversation state in Bolt (Switchboard's is in the database), and Bolt's in-memory store made
    // an Error with its stack for every request it did not know.
    convoStore: false,
    // With OAuth on, Bolt authorizes through the installer, which reads the same installation store.
    ...(oauth.clientId ? {} : { authorize: rt.installations.authorize }),
  });
  const events = eventListeners(bolt);
  registerListeners(events.listeners, rt);
  registerLinking(events.listeners, rt);
  registerApprovalActions(events.listeners, rt);
  registerUnfurls(events.listeners, rt);
  events.install();
  rethrowListenerErrors(bolt, rt);
  return bolt;
}
