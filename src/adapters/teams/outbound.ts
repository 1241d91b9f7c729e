// The `teams.post` job: an agent's message into a Teams chat or reply chain,
// under the agent's own name and avatar (in a card header, since Teams always
// shows the bot). MessagingService writes the job to the outbox in the same
// transaction as the message; the queue runs it here, paced per conversation,
// with retries that survive restarts.
import { z } from 'zod';
import { PermanentFailure } from '../../domain/errors.ts';
import type { Conversation, Message } from '../../domain/messaging/types.ts';
import type { JobHandler } from '../../domain/ports.ts';
import type { Agent, Workspace } from '../../domain/types.ts';
import { addressFromRef, messageLink } from './address.ts';
import { agentMessage } from './cards.ts';
import { jobError, postActivity, TeamsCallFailed } from './connector.ts';
import { loggable } from './errors.ts';
import type { TeamsRuntime } from './runtime.ts';

export const TEAMS_POST = 'teams.post';

const PostJob = z.object({ messageId: z.string().uuid(), workspaceId: z.string().uuid(), conversationId: z.string().uuid() });

export function teamsPostHandler(rt: TeamsRuntime): JobHandler {
  const { store } = rt.app;
  return async (raw) => {
    const parsed = PostJob.safeParse(raw);
    if (!parsed.success) throw new PermanentFailure(`The teams.post job is malformed (${parsed.error.issues[0]?.message}); it cannot be delivered.`);
    const job = parsed.data;
    const [ws, message, conversation] = await Promise.all([
      store.workspaces.get(job.workspaceId), store.messages.get(job.workspaceId, job.messageId), store.messages.getConversation(job.workspaceId, job.conversationId),
    ]);
    // Deleted since (history purge, workspace removed): there is nothing left to post.
    if (!ws || !message || !conversation) return;
    // Posted already: this is a retry of an attempt whose outcome was not recorded.
    if (message.externalId) return;
    const address = addressFromRef(conversation.externalRef);
    const sender = await store.agents.get(message.senderId);
    if (!address || !sender) throw new PermanentFailure('The conversation has no Teams address or the sender is gone; nothing to post.');

    let activityId: string;
    try {
      activityId = await postActivity(rt, address, agentMessage(sender, message.body));
    } catch (e) {
      if (!(e instanceof TeamsCallFailed)) throw e;
      if (e.failure.kind === 'blocked' || e.failure.kind === 'permanent') await tellAgent(rt, ws, sender, message, conversation, e.failure.reason);
      throw jobError(e.failure);
    }
    // The activity id marks the message as posted, so a later retry of this job does not post it twice.
    await store.messages.setPermalink(message.id, messageLink(address, activityId) ?? conversation.permalink ?? `teams:${address.conversation}`, activityId);
  };
}

/** Tells the sending agent in its inbox that its message will not appear in Teams, and why. */
async function tellAgent(rt: TeamsRuntime, ws: Workspace, sender: Agent, message: Message, conversation: Conversation, reason: string) {
  const where = conversation.permalink ? `the Teams conversation ${conversation.permalink}` : 'Teams';
  const body = `Your message ${message.id} could not be posted to ${where}: ${reason}. It was not delivered there and will not be retried. ` +
    `(Conversation ${conversation.id}.)`;
  try {
    await rt.app.messaging.notice(ws, await rt.app.orgs.systemAgent(), sender, body, 'teams-delivery');
  } catch (err) {
    rt.logger.error({ err: loggable(err), messageId: message.id }, 'could not tell the agent that its Teams post failed');
  }
}
