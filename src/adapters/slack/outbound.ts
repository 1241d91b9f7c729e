// The `slack.post` job: an agent's message into a Slack thread, posted under
// the agent's own name and avatar. MessagingService writes the job to the
// outbox in the same transaction as the message; the queue runs it here, with
// retries that survive restarts.
import { z } from 'zod';
import { PermanentFailure, RetryLater } from '../../domain/errors.ts';
import type { JobHandler } from '../../domain/ports.ts';
import { qualifiedName, type Agent, type Workspace } from '../../domain/types.ts';
import type { Conversation, Message } from '../../domain/messaging/types.ts';
import { classifySlackError, loggable } from './errors.ts';
import type { SlackRuntime } from './runtime.ts';
import { threadFromRef, type SlackThread } from './thread-key.ts';

export const SLACK_POST = 'slack.post';
/** The metadata event type that marks Switchboard's own posts (so the app never answers itself). */
export const MESSAGE_EVENT_TYPE = 'switchboard_message';

const PostJob = z.object({ messageId: z.string().uuid(), workspaceId: z.string().uuid(), conversationId: z.string().uuid() });

export function slackPostHandler(rt: SlackRuntime): JobHandler {
  const { store } = rt.app;
  return async (raw) => {
    const parsed = PostJob.safeParse(raw);
    if (!parsed.success) throw new PermanentFailure(`The slack.post job is malformed (${parsed.error.issues[0]?.message}); it cannot be delivered.`);
    const job = parsed.data;
    const [ws, message, conversation] = await Promise.all([
      store.workspaces.get(job.workspaceId), store.messages.get(job.workspaceId, job.messageId), store.messages.getConversation(job.workspaceId, job.conversationId),
    ]);
    // Deleted since (history purge, workspace removed): there is nothing left to post.
    if (!ws || !message || !conversation) return;
    // Posted already: this is a retry of an attempt whose outcome was not recorded.
    if (message.externalId) return;
    const thread = threadFromRef(conversation.externalRef);
    const sender = await store.agents.get(message.senderId);
    if (!thread || !sender) throw new PermanentFailure('The conversation has no Slack address or the sender is gone; nothing to post.');

    const creds = await rt.installations.credentials(thread.team);
    if (!creds) {
      const reason = `Switchboard is no longer installed in the Slack team ${thread.team}`;
      await tellAgent(rt, ws, sender, message, conversation, reason);
      throw new PermanentFailure(reason);
    }
    const client = rt.clients.for(creds.token);
    const paceKey = `${thread.team}:${thread.channel}`;
    await rt.pacer.wait(paceKey);
    let ts: string;
    try {
      const posted = await client.chat.postMessage({
        channel: thread.channel, text: message.body, ...(thread.thread_ts ? { thread_ts: thread.thread_ts } : {}),
        username: sender.displayName.slice(0, 80), ...(sender.avatarUrl ? { icon_url: sender.avatarUrl } : {}),
        metadata: { event_type: MESSAGE_EVENT_TYPE, event_payload: { agent: qualifiedName(sender), message_id: message.id } },
        unfurl_links: false,
      });
      ts = posted.ts!;
    } catch (e) {
      const failure = classifySlackError(e);
      if (failure.kind === 'rate_limited') {
        rt.pacer.pause(paceKey, failure.afterMs);
        throw new RetryLater(failure.reason, failure.afterMs);
      }
      if (failure.kind === 'permanent') {
        await tellAgent(rt, ws, sender, message, conversation, failure.reason);
        throw new PermanentFailure(`Slack refused the post: ${failure.code}`);
      }
      throw new Error(failure.reason);
    }
    // The Slack ts marks the message as posted, so a later retry of this job does not post it twice.
    const permalink = await client.chat.getPermalink({ channel: thread.channel, message_ts: ts })
      .then((r) => r.permalink ?? null, (err: unknown) => { rt.logger.warn({ err: loggable(err), channel: thread.channel }, 'could not get the permalink of a post'); return null; });
    await store.messages.setPermalink(message.id, permalink ?? conversation.permalink ?? describe(thread), ts);
  };
}

const describe = (t: SlackThread) => `slack://channel?team=${t.team}&id=${t.channel}`;

/** Tells the sending agent in its inbox that its message will not appear in Slack, and why. */
async function tellAgent(rt: SlackRuntime, ws: Workspace, sender: Agent, message: Message, conversation: Conversation, reason: string) {
  const where = conversation.permalink ? `the Slack thread ${conversation.permalink}` : 'Slack';
  const body = `Your message ${message.id} could not be posted to ${where}: ${reason}. It was not delivered there and will not be retried. ` +
    `(Conversation ${conversation.id}.)`;
  try {
    await rt.app.messaging.notice(ws, await rt.app.orgs.systemAgent(), sender, body, 'slack-delivery');
  } catch (err) {
    rt.logger.error({ err: loggable(err), messageId: message.id }, 'could not tell the agent that its Slack post failed');
  }
}
