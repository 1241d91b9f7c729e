// The 👍/👎 buttons under an agent's message (ai-content.ts): Teams sends what
// the person chose, and what they wrote in its form, as a `message/submitAction`
// invoke naming the message (`replyToId`). It goes to the agent's inbox
// (InboundService.feedback); Teams wants an empty 200 back, whatever becomes
// of it.
import type { InvokeResponse, TurnContext } from 'botbuilder';
import { z } from 'zod';
import { encodeConversationKey } from './thread-id.ts';
import { addressOf, authorOf, teamsPort } from './inbound.ts';
import { loggable } from './errors.ts';
import type { TeamsRuntime } from './runtime.ts';

/** The invoke's value, as Teams documents it; `feedback` is JSON text holding `feedbackText`. */
const FeedbackValue = z.object({
  actionName: z.literal('feedback'),
  actionValue: z.object({ reaction: z.enum(['like', 'dislike']), feedback: z.string().optional() }),
});

/** What the person wrote in the feedback form; empty when nothing (or not the documented JSON). */
function writtenIn(feedback: string | undefined): string {
  if (!feedback) return '';
  try {
    const parsed: unknown = JSON.parse(feedback);
    const text = (parsed as { feedbackText?: unknown } | null)?.feedbackText;
    return typeof text === 'string' ? text : '';
  } catch {
    return '';
  }
}

/** The answer to any `message/submitAction` invoke: Teams refuses anything but an empty one. */
const DONE: InvokeResponse = { status: 200, body: {} };

/** Hands a person's feedback on a message to the agent that wrote it. */
export async function feedbackInvoke(rt: TeamsRuntime, context: TurnContext): Promise<InvokeResponse> {
  const { activity } = context;
  const parsed = FeedbackValue.safeParse(activity.value);
  const address = addressOf(activity);
  const messageId = activity.replyToId;
  if (!parsed.success || !address || !messageId) return DONE;
  // An answer in a channel is stored under its reply chain, `…;messageid=<root>`.
  const keys = [encodeConversationKey(address)];
  if (address.channel)
    keys.push(
      encodeConversationKey({ ...address, conversation: `${address.channel};messageid=${address.root ?? messageId}` }),
    );
  try {
    const taken = await rt.core.inbound.feedback(teamsPort(rt, context, address), {
      tenantId: address.tenant,
      messageId,
      conversationKeys: keys,
      userId: authorOf(activity),
      userName: activity.from?.name ?? '',
      helpful: parsed.data.actionValue.reaction === 'like',
      text: writtenIn(parsed.data.actionValue.feedback),
    });
    if (!taken) rt.logger.debug({ messageId }, "feedback on a message that is no agent's answer; ignored");
  } catch (err) {
    // Teams does not send it again; what is lost is logged.
    rt.logger.error({ err: loggable(err), messageId }, 'could not hand Teams feedback to the agent');
  }
  return DONE;
}
