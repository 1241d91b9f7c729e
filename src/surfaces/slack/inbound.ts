// Slack's side of the one inbound pipeline: a Slack message normalised into
// the core's InboundMessage, and the SurfacePort the core calls back for what
// only Slack knows (profiles, permalinks, the link DM, default agents).
import type { webApi } from '@slack/bolt';
import type { WorkspaceAgent } from '../../core/agents/agent-service.ts';
import { resolveNames as resolveChatNames } from '../../core/agents/naming.ts';
import type { ChatPlaceKind, InboundMessage, SurfacePort } from '../../core/surfaces/inbound.ts';
import type { SlackInstallation } from './installation-repo.ts';
import type { Workspace } from '../../core/entities.ts';
import { loggable } from './errors.ts';
import { readProfile } from './identities.ts';
import { sendLinkPrompt, slackLinkHowTo } from './linking.ts';
import { SLACK, workspaceOf, type SlackRuntime } from './runtime.ts';
import { encodeThreadKey, threadRef, type SlackThread } from './thread-id.ts';

/** Where a Slack request is handled: the install, its workspace and who is in it, and a client for the team. */
export interface SlackTarget {
  installation: SlackInstallation;
  workspace: Workspace;
  directory: WorkspaceAgent[];
  client: webApi.WebClient;
}

/** A message from a person in Slack, as the listeners read it. */
export interface SlackInbound {
  teamId: string;
  channel: string;
  userId: string;
  /** What the agents receive: Markdown, the app's own mention removed. */
  body: string;
  /** The agents the message names with `@name`. */
  names: string[];
  /** The Slack message's ts (its id there). */
  ts: string;
  /** The thread it belongs to; undefined for a DM talked in without threads. */
  threadTs?: string;
  place: ChatPlaceKind;
  /** False for a thread reply that does not mention the app. */
  addressed: boolean;
}

/** Resolves `@name`/`@owner/name` in the directory; unknown or ambiguous names become sentences for the person. */
export const resolveNames = (directory: WorkspaceAgent[], names: string[]) =>
  resolveChatNames(directory, names, showName);

const showName = (n: string) => `\`@${n}\``;

/** The core's view of a Slack message. */
export function normalise(m: SlackInbound): InboundMessage {
  const thread: SlackThread = { team: m.teamId, channel: m.channel, ...(m.threadTs ? { thread_ts: m.threadTs } : {}) };
  return {
    surface: 'slack',
    tenantId: m.teamId,
    channelId: m.channel,
    place: m.place,
    conversationKey: encodeThreadKey(thread),
    externalRef: threadRef(thread),
    messageId: m.ts,
    threadRootId: m.threadTs ?? null,
    authorId: m.userId,
    text: m.body,
    names: m.names,
    addressed: m.addressed,
  };
}

/** What the core asks Slack while handling one message, written in `channel` of a team (in the thread of `threadTs`, if any). */
export function slackPort(
  rt: SlackRuntime,
  client: webApi.WebClient,
  teamId: string,
  channel: string,
  threadTs?: string,
): SurfacePort {
  const command = rt.settings.command;
  return {
    ...SLACK,
    profileTtlMs: rt.settings.profileTtlMs,
    workspaceOf: async (tenantId) => (await workspaceOf(rt, tenantId))?.workspace ?? null,
    // A profile Slack will not give right now must not stop the message: the identity is still recorded.
    profile: (userId) =>
      readProfile(client, userId, rt.core.clock.now()).catch((err: unknown) => {
        rt.logger.warn(
          { err: loggable(err), teamId, userId },
          'could not read the Slack profile; keeping what is stored',
        );
        return null;
      }),
    sendLinkPrompt: (identity, reason) => sendLinkPrompt(rt, client, identity, reason),
    permalink: (ts) => rt.permalinks.of(client, teamId, channel, ts, threadTs),
    showName,
    linkHowTo: (justSent, sendFailed) => slackLinkHowTo(command, justSent, sendFailed),
  };
}
