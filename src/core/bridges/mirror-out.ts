// Web → outside: every message stored in a bridged web channel (or a thread
// under it) is posted to each bridged channel it did not come from, through the
// outbox and the surface's outbound port, exactly once per bridge (the message
// map notes the attempt first and records the platform's id after).
import { z } from 'zod';
import { writtenByGuest } from '../channels/origin.ts';
import { threadRoot } from '../channels/threads.ts';
import { isDeliveryError, jobErrorFor, type DeliveryFailure } from '../delivery/failure.ts';
import type { OutboundMessage } from '../delivery/surface-outbound.ts';
import { postOnce } from '../delivery/post-delivery.ts';
import { PermanentFailure } from '../errors.ts';
import type { Conversation, Message } from '../messaging/message.ts';
import type { Clock, JobHandler, Store } from '../ports.ts';
import type { ExternalSurface } from '../surfaces/surface-ports.ts';
import { isChatApp, WEB_CHAT, type Agent } from '../entities.ts';
import type { BridgePort } from './bridge-port.ts';
import type { Bridge } from './bridge.ts';

/** The job that posts one web message into one bridged channel. */
export const BRIDGE_POST = 'bridge.post';

const BridgeJob = z.object({
  workspaceId: z.string().uuid(),
  bridgeId: z.string().uuid(),
  messageId: z.string().uuid(),
});

/** The web channel a conversation belongs to: itself, or the channel a thread hangs off; null for anything else. */
export const bridgeableChannel = (c: Conversation): string | null =>
  c.surface !== WEB_CHAT ? null : c.kind === 'channel' ? c.id : c.kind === 'thread' && c.parentId ? c.parentId : null;

/** Whether a message in the conversation has bridges to be mirrored to or recorded against (read outside a transaction, from the read cache). */
export async function hasBridges(store: Store, conv: Conversation): Promise<boolean> {
  const channelId = bridgeableChannel(conv);
  return channelId !== null && (await store.bridges.forChannel(conv.workspaceId, channelId)).length > 0;
}

/**
 * Step of MessagingService.send, inside its transaction: a message in a
 * bridged web channel is recorded against the bridge it came from and queued
 * for every other bridge. Bridges of a thread's DM are never looked up.
 */
export async function queueMirrors(tx: Store, m: Message, conv: Conversation): Promise<number> {
  const channelId = bridgeableChannel(conv);
  if (!channelId) return 0;
  let queued = 0;
  for (const b of await tx.bridges.forChannel(m.workspaceId, channelId)) {
    if (b.surface === m.surface) {
      if (m.externalId) await tx.bridges.recordInbound(b.id, m.id, m.externalId);
      continue;
    }
    await tx.outbox.add({
      topic: BRIDGE_POST,
      payload: { workspaceId: m.workspaceId, bridgeId: b.id, messageId: m.id },
      orderingKey: `bridge:${b.id}`,
    });
    queued += 1;
  }
  return queued;
}

/**
 * Who wrote a message as other sides show it: the chat user behind a guest's
 * message, else the sender. What a person wrote carries `via`, the label of the
 * bridged surface it was written on (`labelOf`), else the web chat's; an agent's
 * message, or Switchboard's own (a person agent's, written by no person: its
 * surface is neither a chat app nor the web chat), carries none: it is posted
 * as the agent, as anywhere else.
 */
async function authorOf(
  store: Store,
  m: Message,
  sender: Agent,
  labelOf: (surface: string) => string | undefined,
): Promise<{ displayName: string; avatarUrl: string | null; via?: string }> {
  const identity = writtenByGuest(m) ? await store.identities.get(m.askerIdentityId) : null;
  const via = labelOf(m.surface) ?? WEB_CHAT;
  if (identity) return { displayName: identity.displayName || 'Someone', avatarUrl: identity.avatarUrl, via };
  const byPerson = sender.kind === 'person' && (m.surface === WEB_CHAT || isChatApp(m.surface));
  return { displayName: sender.displayName, avatarUrl: sender.avatarUrl, ...(byPerson ? { via } : {}) };
}

export interface MirrorDeps {
  store: Store;
  clock: Clock;
  /** The bridge port of a surface (BridgeService.port); undefined when this process does not have it. */
  port(surface: ExternalSurface): BridgePort | undefined;
  /** Removes the bridges of outside channels the platform says are gone (BridgeService.outsideChannelsGone). */
  outsideChannelsGone(
    surface: ExternalSurface,
    tenantId: string,
    externalChannelIds: string[],
    reason: string,
  ): Promise<unknown>;
}

/**
 * What every bridge job does once the platform refused for good: when the refusal says the outside channel is gone
 * (deleted, archived, the app taken out), the bridge goes (audited with `refused` and the platform's answer, the web
 * channel's header updated) rather than failing every post; anything else leaves the bridge, and only the job fails.
 * The agents listening to that channel keep their setting: a refusal cannot tell a deleted channel from the app taken
 * out of it, and an uninstall keeps listeners for when the app comes back.
 */
async function bridgeRefused(
  deps: MirrorDeps,
  bridge: Bridge,
  failure: DeliveryFailure,
  refused: string,
): Promise<void> {
  if (failure.kind !== 'permanent' || !failure.placeGone) return;
  await deps.outsideChannelsGone(
    bridge.surface,
    bridge.tenantId,
    [bridge.externalChannelId],
    `${refused}: ${failure.reason} (${failure.code})`,
  );
}

/** Runs a bridge job's platform call; a failure ends as the queue reads it, after `bridgeRefused` saw a refusal. */
export async function onBridge(
  deps: MirrorDeps,
  bridge: Bridge,
  refused: string,
  call: () => Promise<unknown>,
): Promise<void> {
  try {
    await call();
  } catch (e) {
    if (!isDeliveryError(e)) throw e;
    await bridgeRefused(deps, bridge, e.failure, refused);
    throw jobErrorFor(e.failure);
  }
}

/**
 * The `bridge.post` handler: posts the message under its author's name with a mark of where it was written. A post
 * the platform refuses because the channel is gone removes the bridge (bridgeRefused).
 */
export function bridgePostHandler(deps: MirrorDeps): JobHandler {
  return async (raw, ctx) => {
    const parsed = BridgeJob.safeParse(raw);
    if (!parsed.success)
      throw new PermanentFailure(
        `The ${BRIDGE_POST} job is malformed (${parsed.error.issues[0]?.message}); nothing can be mirrored.`,
      );
    const { workspaceId, bridgeId, messageId } = parsed.data;
    const { store } = deps;
    const [bridge, message] = await Promise.all([
      store.bridges.get(workspaceId, bridgeId),
      store.messages.get(workspaceId, messageId),
    ]);
    // The bridge was removed, or the message deleted, since.
    if (!bridge || !message) return;
    const port = deps.port(bridge.surface);
    if (!port)
      throw new PermanentFailure(
        `${bridge.surface} is not configured in this process, so the bridged channel cannot be posted to.`,
      );
    const out = await mirrorOf(deps, port, bridge, message);
    if (!out) return;
    await postOnce(port, out, ctx, {
      note: () => store.bridges.notePost(bridge.id, message.id, deps.clock.now()),
      // Deleted while it was being posted: its delete found no mirror to remove, so this one is removed next.
      record: async (posted) => {
        if (!(await store.bridges.recordPosted(bridge.id, message.id, posted.externalId)))
          await queueChange(store, message, bridge.id, 'delete', posted.externalId);
      },
      // The channel is gone (deleted, archived, the app taken out): the bridge goes too, rather than failing every post.
      refused: (failure) => bridgeRefused(deps, bridge, failure, 'postRefused'),
    });
  };
}

/** A web message as its mirror on the bridge shows it: under its author's name, marked with where it was written; null when its conversation or sender is gone. */
async function mirrorOf(
  deps: MirrorDeps,
  port: BridgePort,
  bridge: Bridge,
  message: Message,
): Promise<OutboundMessage | null> {
  const { store } = deps;
  const [conv, sender] = await Promise.all([
    store.messages.getConversation(message.workspaceId, message.conversationId),
    store.agents.get(message.senderId),
  ]);
  if (!conv || !sender) return null;
  const author = await authorOf(store, message, sender, (s) => deps.port(s)?.label);
  const conversation = { ...conv, surface: bridge.surface, externalRef: await addressFor(store, port, bridge, conv) };
  return {
    message,
    sender: { ...sender, displayName: author.displayName, avatarUrl: author.avatarUrl },
    conversation,
    via: author.via,
  };
}

/** The job that makes one mirror follow a web edit or delete of its message. */
export const BRIDGE_CHANGE = 'bridge.change';

const ChangeJob = BridgeJob.extend({
  conversationId: z.string().uuid(),
  /** The mirror to change; an edit queued before the mirror's id was recorded reads it when it runs. */
  externalId: z.string().min(1).optional(),
  kind: z.enum(['edit', 'delete']),
});

/** Queues one mirror's change, after the post on the same key, so a change never overtakes it. */
function queueChange(
  store: Store,
  m: Pick<Message, 'workspaceId' | 'id' | 'conversationId'>,
  bridgeId: string,
  kind: 'edit' | 'delete',
  externalId: string | null,
) {
  const payload = {
    workspaceId: m.workspaceId,
    bridgeId,
    messageId: m.id,
    conversationId: m.conversationId,
    kind,
    ...(externalId ? { externalId } : {}),
  };
  return store.outbox.add({ topic: BRIDGE_CHANGE, payload, orderingKey: `bridge:${bridgeId}` });
}

/**
 * Step of a web edit or delete, inside its transaction and before a delete
 * removes the message (its map rows go with it): each of our mirrors of the
 * message is queued to follow. Messages written on the other side are left
 * alone there (a bot cannot change a person's post). A mirror being posted
 * meanwhile follows too: an edit reads its id when it runs, after the post;
 * a delete holds the map rows it read, so the post either recorded its id
 * first (read here) or finds its row gone and removes the mirror itself.
 */
export async function queueMirrorChanges(tx: Store, m: Message, kind: 'edit' | 'delete'): Promise<void> {
  for (const c of await tx.bridges.counterparts(m.id, kind === 'delete')) {
    if (c.inbound || (kind === 'delete' && !c.externalId)) continue;
    await queueChange(tx, m, c.bridgeId, kind, c.externalId);
  }
}

/**
 * The `bridge.change` handler: updates the mirror to the message's current text, or removes it (BridgePort.update /
 * remove). A change the platform refuses because the channel is gone removes the bridge, as a refused post does.
 */
export function bridgeChangeHandler(deps: MirrorDeps): JobHandler {
  return async (raw) => {
    const parsed = ChangeJob.safeParse(raw);
    if (!parsed.success)
      throw new PermanentFailure(
        `The ${BRIDGE_CHANGE} job is malformed (${parsed.error.issues[0]?.message}); nothing can be changed.`,
      );
    const job = parsed.data;
    const bridge = await deps.store.bridges.get(job.workspaceId, job.bridgeId);
    if (!bridge) return;
    const port = deps.port(bridge.surface);
    if (!port)
      throw new PermanentFailure(
        `${bridge.surface} is not configured in this process, so the bridged channel's copy cannot be changed.`,
      );
    if (job.kind === 'delete') {
      const conv = await deps.store.messages.getConversation(job.workspaceId, job.conversationId);
      if (!conv) return;
      const where = { ...conv, surface: bridge.surface, externalRef: await addressFor(deps.store, port, bridge, conv) };
      const { externalId } = job;
      if (!externalId) return;
      return onBridge(deps, bridge, 'deleteRefused', () => port.remove(where, externalId));
    }
    const [message, counterparts] = await Promise.all([
      deps.store.messages.get(job.workspaceId, job.messageId),
      job.externalId ? [] : deps.store.bridges.counterparts(job.messageId),
    ]);
    const externalId = job.externalId ?? counterparts.find((c) => c.bridgeId === bridge.id)?.externalId;
    // Deleted since (the delete that follows removes the mirror), or never posted (its post failed for good).
    const out = message && externalId ? await mirrorOf(deps, port, bridge, message) : null;
    if (out && externalId) await onBridge(deps, bridge, 'editRefused', () => port.update(out, externalId));
  };
}

/** The bridged channel's address, or its thread's when the message is a reply to a message the bridge mirrored. */
export async function addressFor(
  store: Store,
  port: BridgePort,
  bridge: Bridge,
  conv: Conversation,
): Promise<Record<string, string>> {
  const root = threadRoot(conv);
  if (!root) return bridge.externalRef;
  const counterpart = (await store.bridges.counterparts(root)).find((c) => c.bridgeId === bridge.id);
  // A thread under a message from before the bridge: its replies go to the channel itself.
  return counterpart?.externalId ? port.threadAddress(bridge.externalRef, counterpart.externalId) : bridge.externalRef;
}
