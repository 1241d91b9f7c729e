// A Switchboard server with the real Slack mount (Bolt, its signature check)
// on 127.0.0.1, talking to the Slack Web API stand-in, with a workspace, an
// agent and the stand-in's team connected. Used by the Slack end-to-end tests.
import { vi } from 'vitest';
import { slackRuntime } from '../../../src/app-surfaces.ts';
import type { AppOptions } from '../../../src/app.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import type { Agent, Workspace } from '../../../src/core/entities.ts';
import { mountSlack } from '../../../src/http/surface-mount.ts';
import type { Database } from '../../../src/infra/db/client.ts';
import { defaultMounts, type Server } from '../../../src/server.ts';
import { connectSlackTeam } from '../../../src/surfaces/slack/index.ts';
import type { SlackSettings } from '../../../src/surfaces/slack/settings.ts';
import { inbox, QUICK_QUEUE, received, seedReviewer, startServerForTest, TEST_SECRET } from '../server.ts';
import { SLACK_DEFAULTS } from './defaults.ts';
import {
  appMention,
  eventCallback,
  postSigned,
  slashCommand,
  type SignOptions,
  type SlackRequestBody,
} from './signed-request.ts';
import { pgliteDb, postgresDb } from '../db.ts';
import { messageIm, nextEventTs } from './payloads.ts';
import type { InboxItem } from '../../../src/core/messaging/message.ts';
import { startSlackStandin, type SlackStandin } from './web-api-standin.ts';
import { chatOf } from '../../../src/surfaces/web/index.ts';
import type { ChatService } from '../../../src/surfaces/web/pages/chat-service.ts';
import type { Viewer } from '../../../src/core/channels/access.ts';

export { inbox } from '../server.ts';
export const SECRET = TEST_SECRET;

export interface Harness {
  server: Server;
  workspace: Workspace;
  /** alice/reviewer, joined to the workspace. */
  reviewer: Agent;
  /** alice/reviewer's MCP token (only when this harness seeded the database). */
  reviewerToken: string | null;
  post(request: SlackRequestBody, options?: SignOptions): Promise<Response>;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  database: Database;
  standin: SlackStandin;
  /** Seed the organization, people and agent (only the first server on a database). */
  seed?: boolean;
  env?: Record<string, string>;
  paceMs?: number;
  /** Further Slack settings (e.g. shorter pacing). */
  slack?: Partial<SlackSettings>;
  /** Deliver through BullMQ on this Redis (unique queue name and prefix per harness) instead of the embedded loop. */
  redisUrl?: string;
  /** Reuse a queue name (a restarted server picks up the same BullMQ queue). */
  queueName?: string;
  /** Collect every log line (debug and up) here instead of discarding them. */
  logLines?: string[];
  /** Mount everything a real server mounts (MCP, Slack with its default settings, web chat), not just Slack. */
  allMounts?: boolean;
  /** Queue options over the harness's quick ones (e.g. fewer attempts before a job fails for good). */
  queue?: AppOptions['queue'];
  /** Receive over Socket Mode (SLACK_APP_TOKEN, no signing secret) instead of signed HTTP requests. */
  socketMode?: boolean;
}

/** Starts a server on `database`; with `seed`, creates org acme, workspace eng, alice/reviewer and connects the stand-in's team. */
export async function startHarness(o: HarnessOptions): Promise<Harness> {
  const server = await startServerForTest({
    name: 'slack',
    database: o.database,
    env: {
      ...(o.socketMode
        ? { SLACK_APP_TOKEN: o.standin.appToken }
        : { SLACK_SIGNING_SECRET: SLACK_DEFAULTS.signingSecret }),
      SLACK_API_URL: o.standin.url,
      ...o.env,
    },
    redisUrl: o.redisUrl,
    queueName: o.queueName,
    logLines: o.logLines,
    mounts: o.allMounts ? await defaultMounts() : [mountSlack],
    ...(o.allMounts ? {} : { surfaces: { slack: { paceMs: o.paceMs ?? 0, ...o.slack } } }),
    queue: { ...QUICK_QUEUE, ...o.queue },
  });
  const { app } = server;
  let reviewerToken: string | null = null;
  if (o.seed) {
    ({ reviewerToken } = await seedReviewer(app));
    await connectSlackTeam(slackRuntime(app), {
      workspace: 'eng',
      teamId: SLACK_DEFAULTS.teamId,
      botToken: o.standin.botToken,
    });
  }
  const workspace = (await app.store.workspaces.get('eng'))!;
  const reviewer = (await app.store.agents.byQualifiedName('alice', 'reviewer'))!;
  return {
    server,
    workspace,
    reviewer,
    reviewerToken,
    post: (request, options) => postSigned(`${server.url}/slack/events`, request, options),
    stop: () => server.stop(),
  };
}

let mentionCount = 0;

/**
 * A person mentions the app naming `@reviewer` in #C0GENERAL; resolves with the
 * inbox item the agent got (its conversation is the Slack thread).
 */
export async function mentionAndReceive(h: Harness, text = 'please review', user = 'U0CAROL01') {
  mentionCount += 1;
  const body = `@reviewer ${text} (${mentionCount})`;
  const mention = appMention({ user, channel: 'C0GENERAL', text: `<@${SLACK_DEFAULTS.botUserId}> ${body}` });
  const res = await h.post(eventCallback(mention));
  if (res.status !== 200) throw new Error(`the mention was answered ${res.status}`);
  const item = await received(h, body);
  return { item, mention };
}

/**
 * `user` writes to `@reviewer` in a new assistant thread of their DM with the app; resolves with what the agent got
 * and the thread's ts.
 */
export async function askInAssistantThread(
  h: Harness,
  user: string,
  text: string,
): Promise<{ item: InboxItem; threadTs: string }> {
  const threadTs = nextEventTs();
  const res = await h.post(
    eventCallback(messageIm({ user, text: `@reviewer ${text}`, ts: threadTs, thread_ts: threadTs })),
  );
  if (res.status !== 200) throw new Error(`the DM was answered ${res.status}`);
  const seen: InboxItem[] = [];
  const item = await vi.waitFor(async () => {
    seen.push(...(await inbox(h)));
    const found = seen.find((i) => i.message.body.includes(text));
    if (!found) throw new Error('not delivered yet');
    return found;
  });
  return { item, threadTs };
}

/**
 * Posts a slash command with a fresh response_url. Commands are answered once
 * stored, with an empty 200; what Switchboard says back arrives at the
 * response_url, which `json()` waits for.
 */
export async function postCommand(
  h: Harness,
  standin: SlackStandin,
  fields: Omit<Parameters<typeof slashCommand>[0], 'response_url'>,
) {
  const url = standin.responseUrl();
  const res = await h.post(slashCommand({ ...fields, response_url: url }));
  return {
    status: res.status,
    json: () =>
      vi.waitFor(
        () => {
          const answer = standin.responseUrlPosts.find((p) => p.url === url);
          if (!answer) throw new Error('no answer at the response_url yet');
          return answer.body as Record<string, unknown>;
        },
        { timeout: 20_000, interval: 50 },
      ),
  };
}

/** A harness whose workspace's web #general is bridged with Slack `channel` (Carol and the app its members). */
export interface BridgedHarness {
  db: Database;
  standin: SlackStandin;
  h: Harness;
  chat: ChatService;
  /** alice, viewing the workspace in the web chat. */
  alice: Viewer;
  /** The web #general's conversation id. */
  general: string;
  stop(): Promise<void>;
}

export async function startBridged(channel: string, carol: Record<string, string>): Promise<BridgedHarness> {
  const [db, standin] = await Promise.all([(postgresDb() ?? pgliteDb).open(), startSlackStandin()]);
  standin.setUser('U0CAROL01', carol as never);
  standin.setChannelMembers(channel, [SLACK_DEFAULTS.botUserId, 'U0CAROL01']);
  const h = await startHarness({ database: db, standin, seed: true });
  const { app } = h.server;
  const alice = await chatOf(app).chat.viewer((await app.store.people.get('alice'))!.id, 'eng');
  await app.bridges.add(SYSTEM, { workspace: 'eng', channel: 'general', to: [{ surface: 'slack', channel }] });
  const general = (await app.store.chat.channelByName(h.workspace.id, 'general'))!.conversationId;
  return {
    db,
    standin,
    h,
    chat: chatOf(app).chat,
    alice,
    general,
    stop: async () => {
      await h.stop();
      await standin.close();
      await db.close();
    },
  };
}
