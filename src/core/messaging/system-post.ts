// A message from Switchboard itself (the system agent) written straight into a
// conversation: a note in a channel, a done notice in the thread where someone
// asked. It counts against no plan; a chat surface's conversation gets it
// through the post job that surface registered, and a bridged web channel's
// other sides through their mirrors, both in the caller's transaction.
import { randomUUID } from 'node:crypto';
import { queueMirrors } from '../bridges/mirror-out.ts';
import { postOrderingKey } from '../delivery/post-change.ts';
import type { Store } from '../ports.ts';
import type { Agent, SurfaceName, Workspace } from '../entities.ts';
import type { Conversation, Message } from './message.ts';

/** The post job a chat surface registered (its outbound port's), by surface; null when that surface is not set up here. */
export type PostTopicOf = (surface: SurfaceName) => string | null;

/**
 * Stores the message, delivers it to `deliverTo`'s inboxes, and queues the
 * post of an external conversation's surface (none when that surface is not
 * set up in this process: the message stays stored, unposted) or, in a bridged
 * web channel or a thread under one, its mirror to each bridged channel.
 * `replyTo` names the message of the conversation it answers (a done notice,
 * the request): a surface may answer that message itself (email answers the
 * person's mail, and them alone).
 */
export async function postAsSystem(
  tx: Store,
  ws: Workspace,
  from: Agent,
  conv: Conversation,
  body: string,
  at: Date,
  postTopicOf: PostTopicOf,
  { deliverTo = [], replyTo = null }: { deliverTo?: string[]; replyTo?: string | null } = {},
): Promise<Message> {
  const { message: m } = await tx.messages.post(
    {
      workspaceId: ws.id,
      conversationId: conv.id,
      senderId: from.id,
      body,
      replyTo,
      chainId: randomUUID(),
      hop: 0,
      askerPersonId: null,
      askerIdentityId: null,
      surface: 'mcp',
      createdAt: at,
    },
    { participants: [from.id], deliverTo },
  );
  const topic = conv.kind === 'external' ? postTopicOf(conv.surface) : null;
  if (topic)
    await tx.outbox.add({
      topic,
      payload: { messageId: m.id, workspaceId: ws.id, conversationId: conv.id },
      orderingKey: postOrderingKey(conv),
    });
  await queueMirrors(tx, m, conv);
  return m;
}
