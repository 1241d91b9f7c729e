// Reactions on a message in a bridged web channel, followed on the other
// sides: the app reacts on the platform's message while anyone elsewhere holds
// that emoji. Queued in the transaction that changed the reactions, one job per
// bridge, after the message's post there (same ordering key); the job reads the
// reactions when it runs, so a retry or a late run does the right thing once.
import { z } from 'zod';
import { PermanentFailure } from '../errors.ts';
import type { Message } from '../messaging/message.ts';
import type { JobHandler, Store } from '../ports.ts';
import { onBridge, type MirrorDeps } from './mirror-out.ts';

/** The job that brings the app's reaction on one bridged channel's message in line with the web copy. */
export const BRIDGE_REACT = 'bridge.react';

const ReactJob = z.object({
  workspaceId: z.string().uuid(),
  bridgeId: z.string().uuid(),
  messageId: z.string().uuid(),
  emoji: z.string().min(1).max(64),
});

/** Inside the transaction that changed `m`'s reactions: queues `emoji` for every bridge that knows the message but `fromBridge` (where the change came from). */
export async function queueReactionMirrors(
  tx: Store,
  m: Message,
  emoji: string,
  fromBridge: string | null = null,
): Promise<void> {
  for (const c of await tx.bridges.counterparts(m.id)) {
    if (!c.externalId || c.bridgeId === fromBridge) continue;
    await tx.outbox.add({
      topic: BRIDGE_REACT,
      payload: { workspaceId: m.workspaceId, bridgeId: c.bridgeId, messageId: m.id, emoji },
      orderingKey: `bridge:${c.bridgeId}`,
    });
  }
}

/**
 * The `bridge.react` handler (BridgePort.react; nothing where the platform lets no bot react). A reaction the platform
 * refuses because the channel is gone removes the bridge, as a refused post does (bridgeRefused).
 */
export function bridgeReactHandler(deps: MirrorDeps): JobHandler {
  return async (raw) => {
    const parsed = ReactJob.safeParse(raw);
    if (!parsed.success)
      throw new PermanentFailure(
        `The ${BRIDGE_REACT} job is malformed (${parsed.error.issues[0]?.message}); no reaction can be mirrored.`,
      );
    const job = parsed.data;
    const { store } = deps;
    const bridge = await store.bridges.get(job.workspaceId, job.bridgeId);
    const port = bridge ? deps.port(bridge.surface) : undefined;
    if (!bridge || !port?.react) return;
    const counterpart = (await store.bridges.counterparts(job.messageId)).find((c) => c.bridgeId === bridge.id);
    // The message was deleted since (its map rows went with it).
    if (!counterpart?.externalId) return;
    // The app holds the emoji there while someone on another side does (that side's own people react themselves).
    const held = (await store.reactions.of(job.workspaceId, [job.messageId])).some(
      (r) => r.emoji === job.emoji && r.surface !== bridge.surface,
    );
    const react = port.react.bind(port);
    const externalId = counterpart.externalId;
    await onBridge(deps, bridge, 'reactionRefused', () => react(bridge.externalRef, externalId, job.emoji, held));
  };
}
