// A Switchboard server with the real Teams mount (botbuilder's CloudAdapter
// and its Bot Framework authentication) on 127.0.0.1, pointed at the Teams
// stand-in (OpenID metadata, token endpoint, Bot Connector), with a workspace,
// an agent and the stand-in's tenant connected. Used by the Teams tests.
import { mkdtempSync, rmSync } from 'node:fs';
import { mountTeams } from '../../../src/http/surface-mount.ts';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { vi } from 'vitest';
import { DrizzleExternalIdentityRepo } from '../../../src/infra/db/identity-repo.ts';
import type { Database } from '../../../src/infra/db/client.ts';
import type { SlackSettings } from '../../../src/surfaces/slack/settings.ts';
import { connectTeamsTenant, type TeamsSettings } from '../../../src/surfaces/teams/index.ts';
import { loadConfig } from '../../../src/config.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import type { InboxItem } from '../../../src/core/messaging/types.ts';
import type { Agent, Workspace } from '../../../src/core/types.ts';
import type { Mount } from '../../../src/http/http.ts';
import { startServer, type Server } from '../../../src/server.ts';
import { channelMention, type TeamsActivity } from '../../support/teams/activities.ts';
import type { TeamsUserSeed } from '../../support/teams/defaults.ts';
import type { BotResponse, PostActivityOptions, TeamsStandin } from '../../support/teams/standin.ts';

export const SECRET = 'test-switchboard-secret-0123456789abcdef';

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

function logger(lines?: string[]) {
  if (!lines) return pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  return pino(
    { level: 'debug' },
    {
      write: (line: string) => {
        lines.push(line);
      },
    },
  );
}

/** Starts a server on a fresh `database`: org acme (admin alice), workspace eng, alice/reviewer, the stand-in's tenant connected. */
export async function startHarness(o: HarnessOptions): Promise<Harness> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sb-teams-'));
  const config = loadConfig({
    PORT: '0',
    DATA_DIR: dataDir,
    SWITCHBOARD_SECRET: SECRET,
    LOG_LEVEL: 'silent',
    PUBLIC_URL: 'https://switchboard.test',
    MICROSOFT_APP_ID: o.standin.appId,
    MICROSOFT_APP_PASSWORD: o.standin.appPassword,
    // The stand-in as the cloud, through the same settings an operator uses for a sovereign cloud.
    MICROSOFT_OPENID_METADATA_URL: o.standin.openIdMetadataUrl,
    MICROSOFT_ENTRA_OPENID_METADATA_URL: o.standin.entraMetadataUrl,
    MICROSOFT_LOGIN_URL: o.standin.origin,
    ...(o.standin.tenantId ? { MICROSOFT_APP_TENANT_ID: o.standin.tenantId } : {}),
    ...(o.redisUrl ? { REDIS_URL: o.redisUrl } : {}),
    ...o.env,
  });
  const unique = `teams-test-${Math.random().toString(16).slice(2, 10)}`;
  const server = await startServer(config, {
    database: o.database,
    logger: logger(o.logLines),
    host: '127.0.0.1',
    control: false,
    mounts: [...(o.mounts ?? []), mountTeams],
    surfaces: { teams: { ...o.teams }, ...(o.slack ? { slack: o.slack } : {}) },
    queue: { pollMs: 25, backoff: () => 50, ...(o.redisUrl ? { queueName: unique, prefix: unique } : {}) },
  });
  const { app } = server;
  if (o.queueStopped) await app.queue.stop();
  if (o.seed !== false) {
    await app.orgs.init({ org: 'Acme', admin: 'alice' });
    await app.orgs.addWorkspace(SYSTEM, { name: 'Eng', org: 'acme' });
    await app.agents.add(SYSTEM, {
      name: 'reviewer',
      owner: 'alice',
      displayName: 'Reviewer',
      avatarUrl: 'https://example.test/reviewer.png',
      roleLine: 'reviews pull requests',
    });
    await app.agents.join(SYSTEM, { agent: 'alice/reviewer', workspace: 'eng' });
    await connectTeamsTenant(
      { orgs: app.orgs, tenants: app.store.tenants },
      { workspace: 'eng', tenantId: o.standin.userTenantId },
    );
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
    stop: async () => {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Reads the agent's inbox the way check_inbox does. */
export async function inbox(h: Harness, agent: Agent = h.reviewer): Promise<InboxItem[]> {
  return (await h.server.app.messaging.checkInbox(agent, h.workspace, 50)).items;
}

let mentions = 0;

/** Someone mentions the bot in the reviews channel, naming reviewer; resolves with what the agent got. */
export async function mentionAndReceive(h: Harness, standin: TeamsStandin, text = 'please check PR 12') {
  mentions += 1;
  const body = `ask reviewer to ${text} (${mentions})`;
  const activity = channelMention(standin, { text: body });
  const res = await h.post(activity);
  if (res.status !== 200) throw new Error(`the mention was answered ${res.status}: ${JSON.stringify(res.body)}`);
  const seen: InboxItem[] = [];
  const item = await vi.waitFor(
    async () => {
      seen.push(...(await inbox(h)));
      const found = seen.find((i) => i.message.body === body);
      if (!found) throw new Error('not delivered yet');
      return found;
    },
    { timeout: 20_000, interval: 50 },
  );
  return { item, activity };
}
