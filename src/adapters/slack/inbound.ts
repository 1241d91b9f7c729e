import type { webApi } from '@slack/bolt';
import type { WorkspaceAgent } from '../../domain/agents/agent-service.ts';
import { resolveNames as resolveChatNames } from '../../domain/agents/naming.ts';
import { notPermitted } from '../../domain/errors.ts';
import type { SendResult } from '../../domain/messaging/messaging-service.ts';
import type { SlackInstallation } from '../../domain/surfaces/ports.ts';
import type { Workspace } from '../../domain/types.ts';
import { loggable } from './errors.ts';
import { resolveAsker } from './identities.ts';
import { linkingRequiredText, promptToLinkOnce } from './linking.ts';
import type { SlackRuntime } from './runtime.ts';
import { encodeThreadKey, threadRef, type SlackThread } from './thread-key.ts';

/** Where a Slack request is handled: the install, its workspace and who is in it, and a client for the team. */
export interface SlackTarget {
  installation: SlackInstallation;
  workspace: Workspace;
  directory: WorkspaceAgent[];
  client: webApi.WebClient;
}

/** A message from a person in Slack, normalized. */
export interface SlackInbound {
  teamId: string;
  channel: string;
  userId: string;
  /** What the agents receive (the app's own mention removed). */
  body: string;
  /** The Slack message's ts (its id there). */
  ts: string;
  /** The thread it belongs to; undefined for a DM talked in without threads. */
  threadTs?: string;
  kind: 'channel' | 'dm';
}

/** Resolves `@name`/`@owner/name` in the directory; unknown or ambiguous names become sentences for the person. */
export const resolveNames = (directory: WorkspaceAgent[], names: string[]) => resolveChatNames(directory, names, (n) => `\`@${n}\``);

async function permalinkOf(rt: SlackRuntime, client: webApi.WebClient, channel: string, ts: string): Promise<string | null> {
  try {
    return (await client.chat.getPermalink({ channel, message_ts: ts })).permalink ?? null;
  } catch (err) {
    rt.logger.warn({ err: loggable(err), channel, ts }, 'could not get a Slack permalink');
    return null;
  }
}

/**
 * Delivers a Slack message to agents: records who wrote it, finds or creates
 * the conversation for its thread (with the thread's permalink), and sends it
 * through the messaging service as from Slack, so it is never posted back.
 * Refusals (permissions, plan limits) come back as sentences for the person.
 */
export async function deliverFromSlack(rt: SlackRuntime, target: SlackTarget, msg: SlackInbound, recipients: WorkspaceAgent[]): Promise<{ result: SendResult; refusals: string[] }> {
  const { app } = rt;
  const { workspace: ws, client, directory } = target;
  const asker = await resolveAsker(rt, client, msg.teamId, msg.userId, directory);
  // The first time an unlinked person talks to an agent, the app DMs them a link (once ever).
  const prompted = asker.asGuest && await promptToLinkOnce(rt, client, asker.identity, ws.requireLinking ? 'required' : 'first');
  if (asker.asGuest && ws.requireLinking) throw notPermitted(linkingRequiredText(rt.settings.command, prompted, Boolean(asker.identity.personId)));
  const thread: SlackThread = { team: msg.teamId, channel: msg.channel, ...(msg.threadTs ? { thread_ts: msg.threadTs } : {}) };
  const [permalink, rootPermalink] = await Promise.all([
    permalinkOf(rt, client, msg.channel, msg.ts),
    msg.threadTs && msg.threadTs !== msg.ts ? permalinkOf(rt, client, msg.channel, msg.threadTs) : null,
  ]);
  const title = msg.kind === 'dm' ? `Slack DM with ${asker.identity.displayName}` : `Slack: ${msg.body.slice(0, 60)}`;
  const conversation = await app.store.messages.conversation({
    workspaceId: ws.id, kind: 'external', surface: 'slack', key: encodeThreadKey(thread), title,
    externalRef: threadRef(thread), permalink: msg.threadTs ? rootPermalink ?? permalink : null,
  });
  const result = await app.messaging.send({
    workspace: ws, sender: asker.sender, asGuest: asker.asGuest, askerIdentityId: asker.identity.id,
    conversation, recipients, body: msg.body, surface: 'slack', permalink, externalId: msg.ts,
  });
  const refusals = result.recipients.filter((r) => r.status === 'refused').map((r) => `\`${r.to}\` did not get it: ${r.reason}`);
  return { result, refusals };
}
