// The Slack surface: Bolt mounted on the one express app at POST /slack/events
// (events, interactivity and slash commands, signature checked by Bolt), the
// OAuth install routes, and the jobs (topics.ts) that handle stored requests
// and post agents' answers, link confirmations and approval cards. It is given
// the core's services and its own installations table, never the App.
import { App as BoltApp } from '@slack/bolt';
import express, { type Express } from 'express';
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
    configured: Boolean(rt.settings.signingSecret),
    howToTurnOn:
      'Slack is off: set SLACK_SIGNING_SECRET, and SLACK_BOT_TOKEN or SLACK_CLIENT_ID and SLACK_CLIENT_SECRET, to turn it on',
    outbound,
    bridge: slackBridgePort(rt, outbound),
    listenChannels: slackListenChannels(rt),
    linkWording: slackLinkWording(rt.settings.command),
    audience: slackAudience(rt),
    jobs: {
      // The mount's Bolt when there is one; a process without the route builds its own, with no route, to run the listeners.
      [SLACK_INBOUND]: slackInboundHandler(rt, () =>
        rt.settings.signingSecret ? (bolt ??= createBolt(express(), rt)) : null,
      ),
      [SLACK_LINK_DONE]: linkDoneHandler(rt),
      [SLACK_APPROVAL_SHOW]: approvalShowHandler(rt),
      [SLACK_APPROVAL_UPDATE]: approvalUpdateHandler(rt),
    },
    mount(web) {
      web.post('/slack/events', slackGate(rt, drainFlag(core)));
      bolt = createBolt(web, rt);
    },
    checkOnStart: () => warnOnUnreadableTokens(rt.installations.repo, core.secrets, core.config, rt.logger),
  };
};

/** Bolt on our express app: its ExpressReceiver adds the routes; `authorize` (or the OAuth installer) reads installs from the database. */
export function createBolt(web: Express, rt: SlackRuntime): BoltApp {
  const logger = boltLogger(rt.logger);
  const oauth = oauthOptions(rt);
  // Answers only after the request is stored (receiver.ts); the listeners run later, in the inbound.slack job.
  const receiver = new DurableReceiver(
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
  events.install();
  rethrowListenerErrors(bolt, rt);
  return bolt;
}
