// Shared by the listeners: finding the workspace behind a request, answering
// the person, and keeping one failure from reaching Slack as a raw error.
import type { webApi } from '@slack/bolt';
import { isRefusal } from '../../core/errors.ts';
import { loggable } from './errors.ts';
import type { SlackTarget } from './inbound.ts';
import { notConnected } from './replies.ts';
import { workspaceOf, type SlackRuntime } from './runtime.ts';

/** The workspace a team is connected to, with its directory; a sentence for the person when it is not connected. */
export async function targetFor(
  rt: SlackRuntime,
  teamId: string,
  client: webApi.WebClient,
): Promise<SlackTarget | { refusal: string }> {
  const found = await workspaceOf(rt, teamId);
  if (!found?.workspace) return { refusal: notConnected(teamId) };
  const directory = await rt.core.agents.directory(found.workspace);
  return { installation: found.installation, workspace: found.workspace, directory, client };
}

export interface Where {
  channel: string;
  user: string;
  thread_ts?: string;
}

/** Tells one person something: ephemeral in a channel, a plain message in their DM with the app. */
export async function tell(client: webApi.WebClient, where: Where, text: string): Promise<void> {
  if (where.channel.startsWith('D')) {
    await client.chat.postMessage({
      channel: where.channel,
      text,
      ...(where.thread_ts ? { thread_ts: where.thread_ts } : {}),
    });
  } else {
    await client.chat.postEphemeral({
      channel: where.channel,
      user: where.user,
      text,
      ...(where.thread_ts ? { thread_ts: where.thread_ts } : {}),
    });
  }
}

/** Messages the app must not react to: anything a bot wrote, above all Switchboard's own posts. */
export function fromABot(
  event: { bot_id?: string; subtype?: string; user?: string; metadata?: { event_type?: string } },
  botUserId: string | undefined,
): boolean {
  return (
    Boolean(event.bot_id) ||
    event.subtype === 'bot_message' ||
    event.metadata?.event_type === 'switchboard_message' ||
    event.metadata?.event_type === 'switchboard_request' ||
    !event.user ||
    event.user === botUserId
  );
}

/** Message subtypes that are still a person writing: a file attached (file_share), a thread reply also sent to the channel (thread_broadcast). */
const PERSON_SUBTYPES = ['file_share', 'thread_broadcast'] as const;

/** Whether a message event is something a person wrote (no subtype, or one of PERSON_SUBTYPES), not an edit, a delete or a channel notice. */
export function isPersonsMessage<E extends { subtype?: string }>(
  event: E,
): event is E & { subtype?: (typeof PERSON_SUBTYPES)[number] } {
  return event.subtype === undefined || (PERSON_SUBTYPES as readonly string[]).includes(event.subtype);
}

/**
 * Runs a listener's work; a refusal from the core is told to the person as its
 * sentence; anything else is thrown, so the job retries and, in the end, shows as failed.
 */
export async function guard(
  rt: SlackRuntime,
  client: webApi.WebClient,
  where: Where | null,
  work: () => Promise<void>,
): Promise<void> {
  try {
    await work();
  } catch (e) {
    // Anything but a refusal fails the inbound.slack job, which retries the request (receiver.ts).
    if (!isRefusal(e)) throw e;
    if (!where) return;
    await tell(client, where, e.message).catch((err: unknown) =>
      rt.logger.warn({ err: loggable(err) }, 'could not tell the person about the refusal'),
    );
  }
}
