// A Switchboard server with the real Teams mount (botbuilder's CloudAdapter
// and its Bot Framework authentication) on 127.0.0.1, pointed at the Teams
// stand-in (OpenID metadata, token endpoint, Bot Connector), with a workspace,
// an agent and the stand-in's tenant connected. Used by the Teams tests.
import { DrizzleExternalIdentityRepo } from '../../../src/infra/db/identity-repo.ts';
import type { Database } from '../../../src/infra/db/client.ts';
import type { SlackSettings } from '../../../src/surfaces/slack/settings.ts';
import { connectTeamsTenant, type TeamsSettings } from '../../../src/surfaces/teams/index.ts';
import type { Agent, Workspace } from '../../../src/core/entities.ts';
import type { Mount } from '../../../src/http/http.ts';
import { mountSlack, mountTeams } from '../../../src/http/surface-mount.ts';
import { slackRuntime } from '../../../src/app-surfaces.ts';
import { connectSlackTeam } from '../../../src/surfaces/slack/index.ts';
import { SLACK_DEFAULTS } from '../slack/defaults.ts';
import type { SlackStandin } from '../slack/web-api-standin.ts';
import type { Server } from '../../../src/server.ts';
import { received, seedReviewer, startServerForTest, TEST_SECRET } from '../server.ts';
import { adaptiveCardAction, channelMention, personalMessage, type TeamsActivity } from './activities.ts';
import type { InboxItem } from '../../../src/core/messaging/message.ts';
import type { TeamsUserSeed } from './defaults.ts';
import type { BotResponse, PostActivityOptions, TeamsStandin } from './standin.ts';

export { inbox } from '../server.ts';
export const SECRET = TEST_SECRET;

export interface Harness {
  server: Server;
  workspace: Workspace;
  /** alice/reviewer, joined to the workspace. */
  reviewer: Agent;
  /** POSTs an activity to /api/messages as Teams does (signed by the stand-in unless told otherwise). */
  post(activity: TeamsActivity, options?: PostActivityOptions): Promise<BotResponse>;
  /** Links a Teams user to a Switchboard person (as the linking flow does). */
  link(user: TeamsUserSeed, handle: string): Promise<void>;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  database: Database;
  standin: TeamsStandin;
  /** Teams settings over the stand-in's (e.g. pacing limits). */
  teams?: Partial<TeamsSettings>;
  /** Slack settings over the config's, when a test mounts Slack too. */
  slack?: Partial<SlackSettings>;
  /** Mount Slack too, against this stand-in (not paced unless `slack` says so), with its team connected to the workspace. */
  slackStandin?: SlackStandin;
  /** Mounts besides Teams (e.g. Slack), mounted first. */
  mounts?: Mount[];
  env?: Record<string, string>;
  redisUrl?: string;
  logLines?: string[];
  /** Create the organization, workspace and agent and connect the tenant (default); false for a restarted server on the same database. */
  seed?: boolean;
  /** Stop the queue at once: activities are stored and acknowledged but not handled (a process that dies after the 200). */
  queueStopped?: boolean;
}

/** Starts a server on a fresh `database`: org acme (admin alice), workspace eng, alice/reviewer, the stand-in's tenant (and the Slack stand-in's team) connected. */
export async function startHarness(o: HarnessOptions): Promise<Harness> {
  const slack = o.slackStandin;
  const server = await startServerForTest({
    name: 'teams',
    database: o.database,
    env: {
      PUBLIC_URL: 'https://switchboard.test',
      MICROSOFT_APP_ID: o.standin.appId,
      MICROSOFT_APP_PASSWORD: o.standin.appPassword,
      // The stand-in as the cloud, through the same settings an operator uses for a sovereign cloud.
      MICROSOFT_OPENID_METADATA_URL: o.standin.openIdMetadataUrl,
      MICROSOFT_ENTRA_OPENID_METADATA_URL: o.standin.entraMetadataUrl,
      MICROSOFT_LOGIN_URL: o.standin.origin,
      ...(o.standin.tenantId ? { MICROSOFT_APP_TENANT_ID: o.standin.tenantId } : {}),
      ...(slack ? { SLACK_SIGNING_SECRET: SLACK_DEFAULTS.signingSecret, SLACK_API_URL: slack.url } : {}),
      ...o.env,
    },
    redisUrl: o.redisUrl,
    logLines: o.logLines,
    mounts: [...(slack ? [mountSlack] : []), ...(o.mounts ?? []), mountTeams],
    surfaces: {
      teams: { ...o.teams },
      ...(o.slack || slack ? { slack: { ...(slack ? { paceMs: 0 } : {}), ...o.slack } } : {}),
    },
  });
  const { app } = server;
  if (o.queueStopped) await app.queue.stop();
  if (o.seed !== false) {
    await seedReviewer(app);
    await connectTeamsTenant(
      { orgs: app.orgs, tenants: app.store.tenants },
      { workspace: 'eng', tenantId: o.standin.userTenantId },
    );
    if (slack)
      await connectSlackTeam(slackRuntime(app), {
        workspace: 'eng',
        teamId: SLACK_DEFAULTS.teamId,
        botToken: slack.botToken,
      });
  }
  const workspace = (await app.store.workspaces.get('eng'))!;
  const reviewer = (await app.store.agents.byQualifiedName('alice', 'reviewer'))!;
  const identities = new DrizzleExternalIdentityRepo(o.database.db);
  return {
    server,
    workspace,
    reviewer,
    post: (activity, options) => o.standin.postActivity(`${server.url}/api/messages`, activity, options),
    async link(user, handle) {
      const person = (await app.store.people.get(handle))!;
      const identity = await identities.upsert({
        surface: 'teams',
        tenantId: o.standin.userTenantId,
        externalUserId: user.aadObjectId,
      });
      await identities.link(identity.id, person.id, new Date());
    },
    stop: () => server.stop(),
  };
}

/** Chooses alice/reviewer in the personal chat (its card's Action.Execute), so that what is written there reaches it. */
export async function chooseReviewer(h: Harness, standin: TeamsStandin): Promise<void> {
  const click = adaptiveCardAction(standin, {
    verb: 'chooseAgent',
    data: { sb: 'pickAgent', agentId: h.reviewer.id },
    cardActivityId: '1760000000200',
  });
  const res = await h.post(click);
  if (res.status !== 200) throw new Error(`choosing the agent was answered ${res.status}`);
}

/** Alice writes `text` in her personal chat (its agent chosen already); resolves with what the agent got and the chat's id. */
export async function askPersonally(
  h: Harness,
  standin: TeamsStandin,
  text: string,
): Promise<{ item: InboxItem; conversationId: string }> {
  const hello = personalMessage(standin, { text });
  const res = await h.post(hello);
  if (res.status !== 200) throw new Error(`the message was answered ${res.status}`);
  return { item: await received(h, text), conversationId: hello.conversation.id };
}

let mentions = 0;

/** Someone mentions the bot in the reviews channel, naming reviewer; resolves with what the agent got. */
export async function mentionAndReceive(h: Harness, standin: TeamsStandin, text = 'please check PR 12') {
  mentions += 1;
  const body = `ask reviewer to ${text} (${mentions})`;
  const activity = channelMention(standin, { text: body });
  const res = await h.post(activity);
  if (res.status !== 200) throw new Error(`the mention was answered ${res.status}: ${JSON.stringify(res.body)}`);
  const item = await received(h, body);
  return { item, activity };
}
