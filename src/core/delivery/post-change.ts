// Web → platform for a person's own message in an external thread (a Slack or
// Teams conversation they opened in the web chat): when they edit or delete it
// on the web, its post on the platform follows, through the outbox and the
// surface's outbound port, in order after the post job that made it.
import { z } from 'zod';
import { PermanentFailure } from '../errors.ts';
import type { Conversation, Message } from '../messaging/message.ts';
import type { JobHandler, Store } from '../ports.ts';
import type { ExternalSurface } from '../surfaces/surface-ports.ts';
import { isDeliveryError, jobErrorFor } from './failure.ts';
import { pacedCall } from './pacer.ts';
import type { SurfaceOutbound } from './surface-outbound.ts';
import { loadOutbound } from './post-delivery.ts';

/** The job that makes a surface's post of a message follow its web edit or delete. */
export const postChangeTopic = (surface: ExternalSurface) => `${surface}.post.change`;

/** The ordering key of an external conversation's posts: its post jobs (MessagingService.commit) and their changes. */
export const postOrderingKey = (c: Pick<Conversation, 'surface' | 'id'>) => `${c.surface}:${c.id}`;

const ChangeJob = z.object({
  workspaceId: z.string().uuid(),
  messageId: z.string().uuid(),
  conversationId: z.string().uuid(),
  /** A delete's: the post to remove. An edit reads it from the message when it runs. */
  externalId: z.string().min(1).optional(),
  kind: z.enum(['edit', 'delete']),
});

/**
 * Step of a web edit or delete, inside its transaction: a message posted to an
 * external thread is queued to change there, after its post job on the same key.
 * An edit is queued whether or not the post's id is recorded yet: a post job
 * running meanwhile may record it after the edit read the message, or post the
 * text it read before; the change job reads both when it runs, after the post
 * job, and finds nothing to change when the message was never posted. A delete
 * is given the id the deleting statement saw (`m` as deleted); a post not
 * recorded by then is never made, or is removed by its post job when it finds
 * the message gone (DeliveryDeps.removePost).
 */
export async function queuePostChange(
  tx: Store,
  m: Message,
  conv: Conversation,
  kind: 'edit' | 'delete',
): Promise<void> {
  if (conv.kind !== 'external' || m.surface === conv.surface) return;
  if (kind === 'delete' && !m.externalId) return;
  const payload = {
    workspaceId: m.workspaceId,
    messageId: m.id,
    conversationId: conv.id,
    kind,
    ...(kind === 'delete' ? { externalId: m.externalId } : {}),
  };
  await tx.outbox.add({ topic: postChangeTopic(conv.surface), payload, orderingKey: postOrderingKey(conv) });
}

/** The post-change handler for one surface: updates the post to the message's current text, or removes it (SurfaceOutbound.update / remove). */
export function postChangeHandler(port: SurfaceOutbound, deps: { store: Store }): JobHandler {
  const topic = postChangeTopic(port.surface);
  const paced = (conv: Conversation, call: () => Promise<void>) => {
    const key = port.paceKey(conv);
    if (!key)
      throw new PermanentFailure(`The conversation has no ${port.label} address; its post cannot be changed there.`);
    return pacedCall(port.pacer, key, call);
  };
  return async (raw) => {
    const parsed = ChangeJob.safeParse(raw);
    if (!parsed.success)
      throw new PermanentFailure(
        `The ${topic} job is malformed (${parsed.error.issues[0]?.message}); nothing can be changed.`,
      );
    const job = parsed.data;
    try {
      if (job.kind === 'delete') {
        const { externalId } = job;
        const conv = externalId ? await deps.store.messages.getConversation(job.workspaceId, job.conversationId) : null;
        if (conv && externalId) await paced(conv, () => port.remove(conv, externalId));
        return;
      }
      // Never posted (its post job failed for good), deleted since (the delete that follows removes the post), or its
      // conversation or sender gone: nothing to change.
      const out = await loadOutbound(deps.store, job);
      const posted = out?.message.externalId;
      if (out && posted) await paced(out.conversation, () => port.update(out, posted));
    } catch (e) {
      throw isDeliveryError(e) ? jobErrorFor(e.failure) : e;
    }
  };
}
