// A Switchboard for the approval tests: the real Slack mount (Bolt, signature
// check) talking to the Web API stand-in, and the web chat, on 127.0.0.1.
// Org acme: alice (admin, so an owner of every workspace), bob (member, owner
// of the agent bob/deployer) and carol (member); all three linked to Slack
// users, while dan is a Slack user nobody linked. Default approvers of
// bob/deployer: bob and alice.
import { mountSlack, mountWebChat } from '../../../src/http/surface-mount.ts';
import { vi } from 'vitest';
import { APPROVE_ACTION, REJECT_ACTION } from '../../../src/surfaces/slack/approvals.ts';
import type { Database } from '../../../src/infra/db/client.ts';
import { slackRuntime } from '../../../src/app-surfaces.ts';
import { connectSlackTeam } from '../../../src/surfaces/slack/index.ts';
import type { App } from '../../../src/app.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import type { Agent, Person, Workspace } from '../../../src/core/entities.ts';
import type { Server } from '../../../src/server.ts';
import { startServerForTest } from '../server.ts';
import { hashPassword } from '../../../src/http/auth/index.ts';
import { connectInProcess } from '../world.ts';
import { SLACK_DEFAULTS } from './defaults.ts';
import { blockActions, postSigned, type SlackRequestBody } from './signed-request.ts';
import type { SlackStandin, StoredMessage } from './web-api-standin.ts';
import { HttpBrowser } from '../web/browser.ts';

export const USERS = { alice: 'U0ALICE01', bob: 'U0BOB0001', carol: 'U0CAROL01', dan: 'U0DAN0001' } as const;
export const PASSWORD = 'correct horse battery';

export interface ApprovalsWorld {
  server: Server;
  app: App;
  ws: Workspace;
  deployer: Agent;
  people: { alice: Person; bob: Person; carol: Person };
  post(request: SlackRequestBody): Promise<Response>;
  /** An MCP client in-process, as bob/deployer. */
  mcp(): ReturnType<typeof connectInProcess>;
  /** A browser-like HTTP client signed in to the web chat. */
  signIn(handle: 'alice' | 'bob' | 'carol'): Promise<HttpBrowser>;
  /** A signed click on a card's Approve or Reject button, as Slack sends it. */
  click(user: string, card: StoredMessage & { channel: string }, action: 'approve' | 'reject'): Promise<Response>;
  stop(): Promise<void>;
}

export async function startApprovalsWorld(o: {
  database: Database;
  standin: SlackStandin;
  redisUrl?: string;
  port?: number;
  /** Environment over the world's (e.g. PUBLIC_URL). */
  env?: Record<string, string>;
}): Promise<ApprovalsWorld> {
  const server = await startServerForTest({
    name: 'approvals',
    database: o.database,
    port: o.port,
    env: { SLACK_SIGNING_SECRET: SLACK_DEFAULTS.signingSecret, SLACK_API_URL: o.standin.url, ...o.env },
    redisUrl: o.redisUrl,
    mounts: [mountSlack, mountWebChat],
    surfaces: { slack: { paceMs: 0 } },
  });
  const { app } = server;
  const { org, admin: alice } = await app.orgs.init({ org: 'Acme', admin: 'alice', displayName: 'Alice' });
  const bob = await app.orgs.addPerson(SYSTEM, { handle: 'bob', org: org.slug, displayName: 'Bob' });
  const carol = await app.orgs.addPerson(SYSTEM, { handle: 'carol', org: org.slug, displayName: 'Carol' });
  const ws = await app.orgs.addWorkspace(SYSTEM, { name: 'Eng', org: org.slug, slug: 'eng' });
  const hash = await hashPassword(PASSWORD);
  for (const p of [alice, bob, carol]) await app.store.people.setPasswordHash(p.id, hash);
  const { agent: deployer } = await app.agents.add(SYSTEM, { name: 'deployer', owner: 'bob', displayName: 'Deployer' });
  await app.agents.join(SYSTEM, { agent: 'bob/deployer', workspace: 'eng' });
  await connectSlackTeam(slackRuntime(app), {
    workspace: 'eng',
    teamId: SLACK_DEFAULTS.teamId,
    botToken: o.standin.botToken,
  });

  const rt = slackRuntime(app);
  for (const [p, user] of [
    [alice, USERS.alice],
    [bob, USERS.bob],
    [carol, USERS.carol],
  ] as const) {
    o.standin.setUser(user, { real_name: p.displayName, display_name: p.handle });
    const identity = await rt.identities.upsert({
      surface: 'slack',
      tenantId: SLACK_DEFAULTS.teamId,
      externalUserId: user,
    });
    await rt.identities.link(identity.id, p.id, new Date());
  }
  o.standin.setUser(USERS.dan, { real_name: 'Dan Doe', display_name: 'dan' });

  return {
    server,
    app,
    ws,
    deployer,
    people: { alice, bob, carol },
    post: (request) => postSigned(`${server.url}/slack/events`, request),
    mcp: () => connectInProcess(app, deployer, 'eng'),
    async signIn(handle) {
      const b = new HttpBrowser(server.url);
      await b.signIn(handle, PASSWORD);
      return b;
    },
    click(user, card, action) {
      const approvalId = (card.metadata as { event_payload: { approval_id: string } }).event_payload.approval_id;
      return postSigned(
        `${server.url}/slack/events`,
        blockActions({
          user,
          channel: card.channel,
          message: {
            ts: card.ts,
            text: card.text,
            ...(card.thread_ts ? { thread_ts: card.thread_ts } : {}),
            blocks: card.blocks as unknown[],
          },
          actions: [
            {
              action_id: action === 'approve' ? APPROVE_ACTION : REJECT_ACTION,
              value: approvalId,
              block_id: `approval:${approvalId}`,
              text: action === 'approve' ? 'Approve' : 'Reject',
            },
          ],
          response_url: `${o.standin.origin}/hooks/actions/unused`,
        }),
      );
    },
    stop: () => server.stop(),
  };
}

/** The approval cards the app posted in a channel (or DM), as they stand now. */
export function cardsIn(
  standin: SlackStandin,
  channel: string,
  approvalId?: string,
): Array<StoredMessage & { channel: string }> {
  return standin
    .messages(channel)
    .filter((m) => (m.metadata as { event_type?: string } | undefined)?.event_type === 'switchboard_approval')
    .filter(
      (m) =>
        !approvalId ||
        (m.metadata as { event_payload: { approval_id: string } }).event_payload.approval_id === approvalId,
    )
    .map((m) => ({ ...m, channel }));
}

/** Waits until the card of this approval is in the channel. */
export function cardPosted(standin: SlackStandin, channel: string, approvalId: string, timeout = 10_000) {
  return vi.waitFor(
    () => {
      const [card] = cardsIn(standin, channel, approvalId);
      if (!card) throw new Error(`no card for ${approvalId} in ${channel}`);
      return card;
    },
    { timeout },
  );
}

/** Every text of a card's blocks, joined: what a person reads. */
export function blockText(card: StoredMessage): string {
  return JSON.stringify(card.blocks ?? []);
}

/** Whether the card still has the Approve and Reject buttons. */
export const hasButtons = (card: StoredMessage) =>
  ((card.blocks ?? []) as Array<{ type: string }>).some((b) => b.type === 'actions');

/** Waits for an ephemeral message to `user` containing `text`. */
export function ephemeralTo(standin: SlackStandin, user: string, text: string) {
  return vi.waitFor(
    () => {
      const found = standin
        .callsTo('chat.postEphemeral')
        .find((c) => c.args.user === user && String(c.args.text).includes(text));
      if (!found)
        throw new Error(
          `no ephemeral to ${user} containing "${text}"; got ${standin
            .callsTo('chat.postEphemeral')
            .map((c) => c.args.text)
            .join(' | ')}`,
        );
      return found;
    },
    { timeout: 10_000 },
  );
}
