import { SwitchboardError } from '../errors.ts';
import type { Agent } from '../entities.ts';
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

/** The rule that refused a recipient, so an agent (or a test) can tell them apart without parsing sentences. */
export type RefusalRule =
  | 'self'
  | 'can_message'
  | 'receive'
  | 'takes_messages_from'
  | 'hop_limit'
  | 'unknown_recipient'
  | 'ambiguous_recipient'
  | 'not_in_conversation';

export interface Refusal {
  rule: RefusalRule;
  /** A sentence naming the rule and what to do instead. */
  reason: string;
}

/**
 * Why `sender` may not send this message to `recipient`, or null when it may.
 * `hop` is the position the message would have in its chain.
 */
export function refusalFor(sender: WorkspaceAgent, recipient: WorkspaceAgent, hop: number): Refusal | null {
  const to = label(recipient.agent);
  if (recipient.agent.id === sender.agent.id) return { rule: 'self', reason: 'You cannot send a message to yourself.' };
  const allowed = sender.permissions.canMessage;
  if (allowed.length && !allowed.includes(recipient.agent.id)) {
    return {
      rule: 'can_message',
      reason: `Your can_message list in this workspace does not include ${to}; ask your owner to add it, or message someone on the list.`,
    };
  }
  if (!recipient.permissions.receive) {
    return {
      rule: 'receive',
      reason: `${to} does not have the receive permission in this workspace, so it cannot read messages; ask its owner to grant it.`,
    };
  }
  const takes = recipient.permissions.takesMessagesFrom;
  if (takes.length && !takes.includes(sender.agent.id)) {
    return {
      rule: 'takes_messages_from',
      reason: `${to} takes messages only from its allow-list (takes_messages_from), and you are not on it; ask its owner to add you.`,
    };
  }
  if (sender.agent.kind === 'agent' && recipient.agent.kind === 'agent' && hop > HOP_LIMIT) {
    return {
      rule: 'hop_limit',
      reason: `This chain of agent-to-agent messages has reached the limit of ${HOP_LIMIT} hops, so it stops here; the person who started it has been told. Wait for them to reply before messaging other agents about it.`,
    };
  }
  return null;
}

/** Whether an agent may message a directory entry at all (for list_agents), ignoring the hop of any chain. */
export const mayMessage = (sender: WorkspaceAgent, recipient: WorkspaceAgent) =>
  sender.permissions.send && refusalFor(sender, recipient, 0) === null;

/** The per-agent, per-conversation rate limit refusal, with when to try again. */
export function rateLimited(limit: RateLimit, sent: number, retryAfterMs: number): SwitchboardError {
  const windowS = Math.round(limit.windowMs / 1000);
  const retryS = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new SwitchboardError(
    'RATE_LIMITED',
    `You have sent ${sent} messages to this conversation in the last ${windowS} seconds, the most the rate limit allows; wait ${retryS} seconds before sending more there.`,
    { limit: limit.max, window_seconds: windowS, retry_after_seconds: retryS },
  );
}

/** How a directory entry is written in replies: `@handle` for people, `owner/name` for agents. */
export const label = (a: Agent) => (a.kind === 'person' ? `@${a.name}` : `${a.ownerHandle}/${a.name}`);
