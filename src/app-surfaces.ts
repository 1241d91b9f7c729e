// Where callers holding the App (the CLI, tests) find a chat surface createApp
// built. Surfaces themselves never see the App: each is given its core
// (src/surfaces/contract.ts) and keeps what it built in its runtime.
import type { App } from './app-types.ts';
import type { SlackRuntime } from './surfaces/slack/runtime.ts';
import { runtimeOf } from './surfaces/shared/module.ts';

/** The Slack runtime createApp built for `app`; UNAVAILABLE, saying how to turn Slack on, when this process has none. */
export const slackRuntime = (app: App): SlackRuntime =>
  runtimeOf(
    app.surfaceModules,
    'slack',
    'Slack is not configured in this process: set SLACK_SIGNING_SECRET (or SLACK_APP_TOKEN for Socket Mode) and SLACK_BOT_TOKEN (or SLACK_CLIENT_ID and SLACK_CLIENT_SECRET), then start it again.',
  );
