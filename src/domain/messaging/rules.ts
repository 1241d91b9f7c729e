import type { Agent } from '../types.ts';
import type { WorkspaceAgent } from '../agents/agent-service.ts';

/** Agent-to-agent hops allowed in one chain started by a human request. */
export const HOP_LIMIT = 6;
export const MAX_BODY_CHARS = 16_000;

export interface RateLimit {
  /** Messages one agent may send into one conversation per window. */
  max: number;
  windowMs: number;
}
export const DEFAULT_RATE_LIMIT: RateLimit = { max: 30, windowMs: 60_000 };

/**
 * Why `sender` may not send this message to `recipient`, or null when it may.
 * Each reason names the rule so the agent knows what to change or whom to ask.
 */
export function refusalFor(sender: WorkspaceAgent, recipient: WorkspaceAgent, hop: number): string | null {
  const to = label(recipient.agent);
  if (recipient.agent.id === sender.agent.id) return 'You cannot send a message to yourself.';
  const allowed = sender.permissions.canMessage;
  if (allowed.length && !allowed.includes(recipient.agent.id)) {
    return `Your can_message list in this workspace does not include ${to}; ask your owner to add it.`;
  }
  if (!recipient.permissions.receive) return `${to} does not have the receive permission in this workspace, so it cannot read messages.`;
  const takes = recipient.permissions.takesMessagesFrom;
  if (takes.length && !takes.includes(sender.agent.id)) {
    return `${to} takes messages only from its allow-list (takes_messages_from), and you are not on it.`;
  }
  if (sender.agent.kind === 'agent' && recipient.agent.kind === 'agent' && hop > HOP_LIMIT) {
    return `This chain of agent-to-agent messages has reached the limit of ${HOP_LIMIT} hops; the person who started it has been told. Ask them to continue.`;
  }
  return null;
}

export const label = (a: Agent) => (a.kind === 'person' ? `@${a.name}` : `${a.ownerHandle}/${a.name}`);
