// The Slack surface: Bolt mounted on the one express app at POST /slack/events
// (events, interactivity and slash commands, signature checked by Bolt), the
// OAuth install routes, and the `slack.post` job that posts agents' answers.
import { App as BoltApp } from '@slack/bolt';
import express, { type Express } from 'express';
import type { App } from '../../app.ts';
import type { Mount } from '../../web/http.ts';
import { registerApprovalActions, registerApprovalJobs } from './approvals.ts';
import { boltLogger, clientOptions } from './clients.ts';
import { registerLinkJobs, registerLinking } from './linking.ts';
import { registerListeners } from './listeners.ts';
import { oauthOptions } from './oauth.ts';
import { DurableReceiver, rethrowListenerErrors, slackGate, slackInboundHandler, SLACK_INBOUND } from './receiver.ts';
import { registerSurfaceDelivery } from '../surface-delivery.ts';
import { slackOutbound } from './outbound.ts';
import { slackRuntime, type SlackRuntime } from './runtime.ts';
import type { SlackSettings } from './settings.ts';

export { connectSlackTeam } from './connect.ts';
export { slackRuntime, type SlackRuntime } from './runtime.ts';
export { SLACK_INBOUND } from './receiver.ts';
export { MESSAGE_EVENT_TYPE } from './outbound.ts';

/** The job that posts agents' messages into Slack threads. */
export const SLACK_POST = 'slack.post';

/** Adds Bolt listeners from another module (approval buttons, account linking): `(bolt, rt) => bolt.action(…)`. */
export type SlackExtension = (bolt: BoltApp, rt: SlackRuntime) => void;
const extensions: SlackExtension[] = [];

/** Registers an extension; call it before the server starts (mounts apply extensions when they run). */
export function extendSlack(extension: SlackExtension): void {
  extensions.push(extension);
}

/** Registers the `slack.post` job handler; mounts call it, and so does a worker-only process. */
export function registerSlackJobs(app: App, overrides: Partial<SlackSettings> = {}): void {
  const rt = slackRuntime(app, overrides);
  registerSurfaceDelivery(app, slackOutbound(rt));
  // The mount's Bolt when there is one; a worker-only process builds its own, with no route, to run the listeners.
  app.queue.register(SLACK_INBOUND, slackInboundHandler(rt, () => (rt.settings.signingSecret ? bolts.get(rt) ?? createBolt(express(), rt) : null)));
  registerLinkJobs(app, slackRuntime(app, overrides));
  registerApprovalJobs(app, slackRuntime(app, overrides));
}

const bolts = new WeakMap<SlackRuntime, BoltApp>();

/** Bolt on our express app: its ExpressReceiver adds the routes; `authorize` (or the OAuth installer) reads installs from the database. */
export function createBolt(web: Express, rt: SlackRuntime): BoltApp {
  const logger = boltLogger(rt.logger);
  const oauth = oauthOptions(rt);
  // Answers only after the request is stored (receiver.ts); the listeners run later, in the inbound.slack job.
  const receiver = new DurableReceiver({
    signingSecret: rt.settings.signingSecret!, endpoints: '/slack/events', app: web, logger, processBeforeResponse: true, ...oauth,
  }, rt);
  const bolt = new BoltApp({
    receiver, logger, clientOptions: clientOptions(rt.settings, rt.logger), ignoreSelf: true,
    // With OAuth on, Bolt authorizes through the installer, which reads the same installation store.
    ...(oauth.clientId ? {} : { authorize: rt.installations.authorize }),
  });
  registerListeners(bolt, rt);
  registerLinking(bolt, rt);
  registerApprovalActions(bolt, rt);
  for (const extend of extensions) extend(bolt, rt);
  rethrowListenerErrors(bolt, rt);
  bolts.set(rt, bolt);
  return bolt;
}

/** A Slack mount; tests pass settings (e.g. shorter pacing) that the default mount takes from the config. */
export function slackMount(overrides: Partial<SlackSettings> = {}): Mount {
  return (web, app) => {
    const rt = slackRuntime(app, overrides);
    registerSlackJobs(app, overrides);
    if (!rt.settings.signingSecret) {
      rt.logger.info('Slack is off: set SLACK_SIGNING_SECRET, and SLACK_BOT_TOKEN or SLACK_CLIENT_ID and SLACK_CLIENT_SECRET, to turn it on');
      return;
    }
    // Approvals asked from now on are also shown in Slack (the service writes slack.approval.* jobs).
    app.surfaces.add('slack');
    let draining = false;
    app.onDrain.push(() => { draining = true; });
    web.post('/slack/events', slackGate(rt, () => draining));
    createBolt(web, rt);
  };
}

/** `POST /slack/events`, `GET /slack/install`, `GET /slack/oauth_redirect`, and the `slack.post` job. */
export const mountSlack: Mount = slackMount();
