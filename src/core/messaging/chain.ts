import type { Agent } from '../entities.ts';
import type { Message } from './message.ts';

/**
 * How long after receiving a message an agent's next send is taken as part of
 * the same chain when it names no parent (e.g. it writes to `to` instead of
 * replying). Without this, two agents could bounce messages through `to`
 * forever and never meet the hop limit.
 */
export const CHAIN_WINDOW_MS = 10 * 60_000;

export interface ChainPosition {
  /** The human request this message descends from. */
  chainId: string;
  /** Agent hops since that request; a person's message is hop 0. */
  hop: number;
  /** The person on whose behalf the chain runs; null for a guest (unlinked chat user). */
  askerPersonId: string | null;
  /** The external identity behind a chat message, when there is one. */
  askerIdentityId: string | null;
}

/**
 * Where a new message sits in its chain. A person always starts a new chain;
 * an agent continues the chain of the message it answers, or starts one on its
 * owner's behalf when it answers nothing.
 */
export function chainPosition(input: {
  sender: Agent;
  parent: Message | null;
  newChainId: string;
  asGuest?: boolean;
  askerIdentityId?: string | null;
}): ChainPosition {
  const { sender, parent } = input;
  const human = sender.kind === 'person';
  if (human || !parent) {
    return {
      chainId: input.newChainId,
      hop: 0,
      askerPersonId: input.asGuest ? null : sender.ownerId,
      askerIdentityId: input.askerIdentityId ?? null,
    };
  }
  return {
    chainId: parent.chainId,
    hop: parent.hop + 1,
    askerPersonId: input.asGuest ? null : parent.askerPersonId,
    askerIdentityId: input.askerIdentityId ?? parent.askerIdentityId,
  };
}
