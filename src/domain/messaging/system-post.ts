// A message from Switchboard itself (the system agent) written straight into a
// conversation: a note in a channel, a done notice in the thread where someone
// asked. It counts against no plan; a Slack or Teams conversation gets it
// through its surface's post job, in the caller's transaction.
import { randomUUID } from 'node:crypto';
import type { Store } from '../ports.ts';
import type { Agent, Workspace } from '../types.ts';
import type { Conversation, Message } from './types.ts';

export async function postAsSystem(tx: Store, ws: Workspace, from: Agent, conv: Conversation, body: string, at: Date, deliverTo: string[] = []): Promise<Message> {
  const m = await tx.messages.insert({
    workspaceId: ws.id, conversationId: conv.id, senderId: from.id, body, replyTo: null, chainId: randomUUID(), hop: 0,
    askerPersonId: null, askerIdentityId: null, surface: 'mcp', createdAt: at,
  });
  await tx.messages.addParticipants(conv.id, [from.id]);
  await tx.messages.deliver(m.id, ws.id, deliverTo);
  if (conv.surface === 'slack' || conv.surface === 'teams') {
    await tx.outbox.add({ topic: `${conv.surface}.post`, payload: { messageId: m.id, workspaceId: ws.id, conversationId: conv.id }, orderingKey: `${conv.surface}:${conv.id}` });
  }
  return m;
}
