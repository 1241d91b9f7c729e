// The OAuth install (`GET /slack/install`, `GET /slack/oauth_redirect`),
// run by @slack/oauth's InstallProvider inside Bolt's ExpressReceiver: the
// state parameter is signed and checked against a cookie, and the bot token
// lands in the database sealed with SWITCHBOARD_SECRET. A team installed this
// way is connected to a workspace with `switchboard slack connect`.
import type { ExpressReceiverOptions, Installation } from '@slack/bolt';
import type { ServerResponse } from 'node:http';
import { html, type SafeHtml } from '../../http/html.ts';
import { cardPage } from '../../http/layout.ts';
import { clientOptions } from './clients.ts';
import { workspaceOf, type SlackRuntime } from './runtime.ts';
import { BOT_SCOPES } from './settings.ts';

/** The install's result in the web app's card layout. */
function page(res: ServerResponse, status: number, title: string, body: SafeHtml) {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(cardPage(title, body));
}

/** The ExpressReceiver options that turn the OAuth install on; empty when SLACK_CLIENT_ID/SECRET are not set. */
export function oauthOptions(rt: SlackRuntime): Partial<ExpressReceiverOptions> {
  const s = rt.settings;
  if (!s.clientId || !s.clientSecret) return {};
  return {
    clientId: s.clientId,
    clientSecret: s.clientSecret,
    // A key of its own, derived from SWITCHBOARD_SECRET: forged or replayed-elsewhere state fails the check.
    stateSecret: rt.box.sign('slack-oauth-state'),
    scopes: BOT_SCOPES,
    redirectUri: `${s.publicUrl}/slack/oauth_redirect`,
    installationStore: rt.installations.installationStore(async () => undefined),
    installerOptions: {
      installPath: '/slack/install',
      redirectUriPath: '/slack/oauth_redirect',
      directInstall: true,
      clientOptions: clientOptions(s, rt.logger),
      callbackOptions: {
        successAsync: async (installation, _options, _req, res) => installed(rt, installation as Installation, res),
        failure: (error, _options, _req, res) => {
          rt.logger.warn({ code: error.code, reason: error.message }, 'a Slack install did not complete');
          page(
            res,
            400,
            'The Slack install did not complete',
            html`<p>${error.message}</p><p>Start again from <a href="/slack/install">/slack/install</a> in the same browser, within ten minutes.</p>`,
          );
        },
      },
    },
  };
}

async function installed(rt: SlackRuntime, installation: Installation, res: ServerResponse) {
  const teamId = installation.team?.id ?? '';
  const teamName = installation.team?.name ?? teamId;
  const found = await workspaceOf(rt, teamId);
  rt.logger.info({ teamId, connected: Boolean(found?.workspace) }, 'Slack app installed');
  const next = found?.workspace
    ? html`<p>It answers for the Switchboard workspace <strong>${found.workspace.name}</strong>. Mention it in a channel and name an agent.</p>`
    : html`<p>One step left: connect the Slack team to a Switchboard workspace by running</p><pre>switchboard slack connect WORKSPACE --team-id ${teamId}</pre>`;
  page(
    res,
    200,
    'Switchboard is installed',
    html`<p>The app is installed in the Slack team <strong>${teamName}</strong> (${teamId}).</p>${next}`,
  );
}
