// Reactions in the web chat: a person picks from a small palette, or joins an
// emoji someone already gave (from any side of a bridged channel); each person
// holds each emoji at most once. Who may react is who may post there.
import { invalidInput, notFound } from '../errors.ts';
import type { Notifier, Store } from '../ports.ts';
import type { ChatAccess, Viewer } from './access.ts';
import { announceChange } from './changes.ts';
import { PALETTE } from './emoji.ts';
import { queueReactionMirrors } from '../bridges/mirror-reactions.ts';
import { WEB_CHAT } from '../entities.ts';
import type { Reaction } from './channel-ports.ts';

/** How a person in the web chat is named as a reactor (`Reaction.reactor`). */
export const webReactor = (agentId: string) => `agent:${agentId}`;

export class ChatReactions {
  constructor(
    private readonly store: Store,
    private readonly access: ChatAccess,
    private readonly notifier: Notifier,
  ) {}

  /**
   * Gives (`on`) or takes back the viewer's `emoji` on a message they may post
   * next to; returns the message's reactions, oldest first. Doing what is
   * already done changes nothing.
   */
  async set(v: Viewer, messageId: string, emoji: string, on: boolean): Promise<Reaction[]> {
    const m = await this.store.messages.get(v.workspace.id, messageId);
    if (!m) throw notFound(`The message ${messageId}`, 'It may have been deleted; reload the conversation.');
    await this.access.writable(v, m.conversationId);
    const reactor = webReactor(v.agent.id);
    const changed = await this.store.transaction(async (tx) => {
      if (on) {
        const offered =
          (PALETTE as readonly string[]).includes(emoji) ||
          (await tx.reactions.of(v.workspace.id, [m.id])).some((r) => r.emoji === emoji);
        if (!offered)
          throw invalidInput(
            `"${emoji}" is not one of the reactions offered here; pick one of ${PALETTE.join(', ')}, or one already on the message.`,
          );
      }
      const done = on
        ? await tx.reactions.add(v.workspace.id, {
            messageId: m.id,
            emoji,
            reactor,
            reactorName: v.person.displayName || v.person.handle,
            surface: WEB_CHAT,
          })
        : await tx.reactions.remove(v.workspace.id, m.id, emoji, reactor);
      if (done) await queueReactionMirrors(tx, m, emoji);
      return done;
    });
    if (changed) await announceChange(this.notifier, m.conversationId, m.id, 'changed');
    return this.store.reactions.of(v.workspace.id, [m.id]);
  }
}
