// The one delivery path for agents' messages into Slack, Teams or any other
// surface: the post job each surface registers. MessagingService writes the job to the
// outbox with the message; the queue runs it here, through the surface's
// SurfaceOutbound port, with one pacer and one retry mapping.
//
// Exactly once: the attempt is recorded on the message before the platform is
// called, and the platform's id after. A retry that finds an attempt with no
// recorded result (the process died, or the answer was lost on the way back)
// asks the platform for a post carrying this message id before posting again.
import { z } from 'zod';
import { isOutage, PermanentFailure } from '../errors.ts';
import type { Clock, JobContext, JobHandler, Store } from '../ports.ts';
import type { LivePost } from '../messaging/message.ts';
import type { Agent, Workspace } from '../entities.ts';
import { isDeliveryError, jobErrorFor, type DeliveryFailure } from './failure.ts';
import { pacedCall } from './pacer.ts';
import type { OutboundMessage, PostedMessage, SurfaceOutbound } from './surface-outbound.ts';

export const PostJob = z.object({
  messageId: z.string().uuid(),
  workspaceId: z.string().uuid(),
  conversationId: z.string().uuid(),
  /** A streamed message's live post, already on the platform: finished in place instead of posted again. */
  live: z
    .object({ kind: z.enum(['stream', 'post']), externalId: z.string().min(1), permalink: z.string().nullable() })
    .optional(),
});
export type PostJob = z.infer<typeof PostJob>;

export interface DeliveryDeps {
  store: Store;
  clock: Clock;
  /** Puts a notice from Switchboard in an agent's inbox (MessagingService.notice with the system agent). */
  notify(ws: Workspace, to: Agent, body: string, topic: string): Promise<void>;
  /** Queues the removal of a post whose message was deleted while it was being made (post-change.ts). */
  removePost(out: OutboundMessage, externalId: string): Promise<void>;
}

/** The post job's handler for one surface. */
export function postHandler(port: SurfaceOutbound, deps: DeliveryDeps): JobHandler {
  return async (raw, ctx) => {
    const parsed = PostJob.safeParse(raw);
    if (!parsed.success)
      throw new PermanentFailure(
        `The ${port.postTopic} job is malformed (${parsed.error.issues[0]?.message}); it cannot be delivered.`,
      );
    const out = await loadOutbound(deps.store, parsed.data);
    // Deleted since (history purge, workspace removed), or posted by an attempt whose job outcome was lost.
    if (!out || out.message.externalId) return;
    const live = parsed.data.live;
    await postOnce(port, out, ctx, {
      // A live post is there already: it only gets its final text.
      note: () =>
        live ? Promise.resolve(null) : deps.store.messages.notePostAttempt(out.message.id, deps.clock.now()),
      ...(live ? { post: () => finishLive(port, out, live) } : {}),
      record: (posted) => record(deps, out, posted),
      refused: (failure) => tellSender(port, deps, out, failure.reason),
    });
  };
}

/** How one kind of post keeps its attempts: noted before the call, its platform id recorded after. */
export interface PostAttempts {
  /** Notes that an attempt starts now; returns when an earlier one started whose outcome is unknown, else null; `'posted'` when it is recorded as posted. */
  note(): Promise<Date | 'posted' | null>;
  record(posted: PostedMessage): Promise<void>;
  /** The platform call, when it is not the port's `post`. */
  post?(): Promise<PostedMessage>;
  /** Called once the platform refused for good, before the job fails. */
  refused?(failure: Extract<DeliveryFailure, { kind: 'permanent' }>): Promise<void>;
}

/**
 * Posts `out` exactly once through the surface's port: the attempt is noted
 * first; after an attempt with an unknown outcome, the platform is asked for
 * the post that carries the message id before posting again.
 */
export async function postOnce(
  port: SurfaceOutbound,
  out: OutboundMessage,
  ctx: JobContext,
  attempts: PostAttempts,
): Promise<void> {
  const key = port.paceKey(out.conversation);
  if (!key) throw new PermanentFailure(`The conversation has no ${port.label} address; nothing can be posted there.`);
  try {
    const earlier = await attempts.note();
    if (earlier === 'posted') return;
    const found = earlier ? await port.findPost(out) : null;
    if (found) return await attempts.record(found);
    // Another worker holds the entry now (this one stalled past its lease): it posts, not this one.
    if (ctx.signal?.aborted)
      throw new Error('this worker lost the lease before posting; the entry runs again elsewhere');
    const posted = await pacedCall(port.pacer, key, () => (attempts.post ? attempts.post() : port.post(out)));
    // The post exists now and only this process knows its id. A retry of the job would have to find it on the
    // platform (Teams cannot), so a database that is briefly away is waited for here, within the lease.
    await recordPatiently(() => attempts.record(posted), ctx.signal);
  } catch (e) {
    if (!isDeliveryError(e)) throw e;
    if (e.failure.kind === 'permanent') await attempts.refused?.(e.failure);
    throw jobErrorFor(e.failure);
  }
}

/** Waits between tries to record a post: about 15 s in all, well inside the job's 30-second lease. */
const RECORD_WAITS_MS = [250, 500, 1_000, 2_000, 4_000, 4_000, 4_000];

/**
 * Records a post, trying again while the database is away, until the waits run out or the lease is lost: for a
 * platform that cannot be searched for an earlier post (Teams), only this process knows the post exists.
 */
export async function recordPatiently(record: () => Promise<void>, signal?: AbortSignal): Promise<void> {
  for (const wait of RECORD_WAITS_MS) {
    try {
      return await record();
    } catch (e) {
      if (!isOutage(e) || signal?.aborted) throw e;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
  await record();
}

/** Puts the stored text into the live post a stream made: the platform's stream is stopped, a plain post updated. */
async function finishLive(port: SurfaceOutbound, out: OutboundMessage, live: LivePost): Promise<PostedMessage> {
  if (live.kind === 'stream' && port.finishStream) return (await port.finishStream(out, live.externalId)) ?? live;
  await port.update(out, live.externalId);
  return live;
}

/** The message as its post shows it now, with its sender, conversation and workspace; null when any of them is gone. */
export async function loadOutbound(
  store: Store,
  job: Pick<PostJob, 'workspaceId' | 'messageId' | 'conversationId'>,
): Promise<(OutboundMessage & { ws: Workspace }) | null> {
  const [ws, message, conversation] = await Promise.all([
    store.workspaces.get(job.workspaceId),
    store.messages.get(job.workspaceId, job.messageId),
    store.messages.getConversation(job.workspaceId, job.conversationId),
  ]);
  const sender = message ? await store.agents.get(message.senderId) : null;
  return ws && message && conversation && sender ? { ws, message, conversation, sender } : null;
}

/**
 * The platform's id marks the message as posted, so no later attempt posts it again. A message deleted while it
 * was being posted has no row to record it on, and its delete found no post to remove: this post goes too.
 */
async function record(deps: DeliveryDeps, out: OutboundMessage, posted: PostedMessage): Promise<void> {
  const kept = await deps.store.messages.setPermalink(
    out.message.id,
    posted.permalink ?? out.conversation.permalink ?? `${out.conversation.surface}:${out.conversation.key}`,
    posted.externalId,
  );
  if (!kept) await deps.removePost(out, posted.externalId);
}

/** Tells the sending agent in its inbox, once per message, that it will not appear on the platform, and why. */
async function tellSender(
  port: SurfaceOutbound,
  deps: DeliveryDeps,
  out: OutboundMessage & { ws: Workspace },
  reason: string,
) {
  if (!(await deps.store.firstSeen(`${port.surface}-delivery-notice`, out.message.id))) return;
  const where = out.conversation.permalink
    ? `the ${port.label} conversation ${out.conversation.permalink}`
    : port.label;
  const body =
    `Your message ${out.message.id} could not be posted to ${where}: ${reason}. It was not delivered there and will not be retried. ` +
    `(Conversation ${out.conversation.id}.)`;
  await deps.notify(out.ws, out.sender, body, `${port.surface}-delivery`);
}
