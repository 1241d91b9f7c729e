// Outside → web: a message written in a Slack or Teams channel bridged to a
// web channel is stored in that web channel (or the web thread of its root) as
// its author, the agents it names get it once, there, and every other bridged
// side is queued by MessagingService (mirror-out.ts). A step of the one inbound
// pipeline (InboundService.mirrorBridged), before ordinary routing.
import { resolveNames } from '../agents/naming.ts';
import { answerPlace, threadOf } from '../channels/thread-of.ts';
import { announceChange } from '../channels/changes.ts';
import { queueReactionMirrors } from './mirror-reactions.ts';
import { queueMirrorChanges } from './mirror-out.ts';
import type { ExternalIdentity } from '../surfaces/surface-ports.ts';
import type { WorkspaceAgent } from '../agents/agent-service.ts';
import type { MessagingService, SendResult } from '../messaging/messaging-service.ts';
import type { Conversation, Message } from '../messaging/message.ts';
import type { Notifier, Store } from '../ports.ts';
import type { ChatAsker, InboundMessage, InboundOutcome, InboundTarget, SurfacePort } from '../surfaces/inbound.ts';
import type { Workspace } from '../entities.ts';
import type { Bridge } from './bridge.ts';
import { DELETED_EXCERPT, titleExcerpt } from '../surfaces/title.ts';
import { followChatEdit } from '../intake/intake-service.ts';

/** What the inbound pipeline lends this step: its target, asker, linking, default-agent and intake rules. */
export interface PipelineSteps {
  target(): Promise<InboundTarget | null>;
  asker(target: InboundTarget): Promise<ChatAsker>;
  /** A request to agents from a guest: sends the link prompt the first time; the sentence to tell them when the workspace requires linking, else null. */
  guestGate(target: InboundTarget): Promise<string | null>;
  /** Who gets a mention of the app that names nobody: the agents of `thread` (null outside one), else the channel's default; null when neither applies. */
  fallback(target: InboundTarget, thread: Conversation | null): Promise<WorkspaceAgent[] | null>;
  /** The agents (not people) that took part in a conversation: those a reply there reaches without naming them. */
  agentsIn(target: InboundTarget, conversation: Conversation): Promise<WorkspaceAgent[]>;
  /** Files a guest's request that reached an agent as intake, in the item of `threadOf` its message; never throws. */
  intake(target: InboundTarget, result: SendResult, threadOf: (m: Message) => Promise<Conversation>): Promise<void>;
}

/** A reaction given (`on`) or taken back on the bridged side, by the platform's user `userId`; `emoji` is a short name (`thumbsup`). */
export interface BridgedReaction {
  tenantId: string;
  channelId: string;
  messageId: string;
  userId: string;
  emoji: string;
  on: boolean;
}

/** What became of a message on its chat platform: edited to `text`, or deleted. */
export type ChatEdit = { kind: 'edit'; text: string } | { kind: 'delete' };

/** A message edited or deleted on the bridged side. */
export type BridgedChange = { tenantId: string; channelId: string; messageId: string } & ChatEdit;

export class BridgeInbound {
  constructor(
    private readonly store: Store,
    private readonly messaging: MessagingService,
    private readonly notifier: Notifier,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Null when the message's channel is not bridged (ordinary routing applies). */
  async receive(port: SurfacePort, msg: InboundMessage, steps: PipelineSteps): Promise<InboundOutcome | null> {
    if (msg.place !== 'channel') return null;
    const bridge = await this.store.bridges.byExternal(port.surface, msg.tenantId, msg.channelId);
    if (!bridge) return null;
    // Our own mirror coming back, or a redelivery of one already stored.
    if (await this.store.bridges.byExternalId(bridge.id, msg.messageId)) return { kind: 'ignored' };
    if (!msg.text.trim() && !msg.addressed) return { kind: 'ignored' };
    const target = await steps.target();
    if (!target || target.workspace.id !== bridge.workspaceId) return { kind: 'ignored' };
    const { workspace: ws, directory } = target;
    // A bare mention of the app asks how to talk here; there is nothing to mirror.
    if (!msg.text.trim()) return { kind: 'name-an-agent', workspace: ws, directory };
    const conversation = await this.conversationOf(ws, bridge, msg);
    if (!conversation) return { kind: 'ignored' };
    const asker = await steps.asker(target);
    const { recipients, problems } = resolveNames(directory, msg.names, (n) => port.showName(n));
    const inThread = conversation.id !== bridge.channelId;
    // A mention of the app that names nobody goes where it would in any channel: the thread's agents, else the channel's default.
    const unnamed = msg.addressed && !msg.names.length;
    if (unnamed) recipients.push(...((await steps.fallback(target, inThread ? conversation : null)) ?? []));
    // A reply in a thread agents took part in reaches them without naming them, as a thread reply does on that side.
    const followUp = inThread && !msg.addressed && !recipients.length;
    if (followUp) recipients.push(...(await steps.agentsIn(target, conversation)));
    // A guest where linking is required is still mirrored for the people; agents do not get it. A follow-up was not
    // written to the app, so it is not answered with a refusal either.
    const quiet = followUp && asker.asGuest && ws.requireLinking;
    const refusal = recipients.length && !quiet ? await steps.guestGate(target) : null;
    const withheld = quiet || Boolean(refusal);
    const result = await this.messaging.send({
      workspace: ws,
      sender: asker.sender,
      asGuest: asker.asGuest,
      askerIdentityId: asker.identity.id,
      conversation,
      recipients: withheld ? [] : recipients,
      body: msg.text,
      surface: port.surface,
      permalink: await port.permalink(msg.messageId),
      externalId: msg.messageId,
    });
    // The agents a message at the top of the channel reached take part in its thread, as they would on its side:
    // they answer there (MessagingService puts their answers in it) and the replies written under it reach them.
    const reached = result.recipients.flatMap((r) => (r.status === 'delivered' && r.agent_id ? [r.agent_id] : []));
    if (result.message && !inThread && reached.length) {
      const thread = await threadOf(this.store, this.notifier, result.message, conversation);
      await this.store.messages.addParticipants(thread.id, [result.message.senderId, ...reached]);
    }
    // A request in the channel itself starts its own thread there, so later requests in it join the same item.
    if (asker.asGuest)
      await steps.intake(target, result, (m) => answerPlace(this.store, this.notifier, m, conversation));
    // Still mirrored for the people; the person is told how to name an agent.
    if (unnamed && !recipients.length) return { kind: 'name-an-agent', workspace: ws, directory };
    // As on that side, a follow-up nobody wrote to the app is answered with nothing.
    const refusals = result.recipients
      .filter((r) => r.status === 'refused' && !followUp)
      .map((r) => `${port.showName(r.to)} did not get it: ${r.reason}`);
    return {
      kind: 'handled',
      workspace: ws,
      notices: [...problems, ...(refusal ? [refusal] : []), ...refusals],
      result,
    };
  }

  /**
   * An edit or a delete of a message written in a bridged channel, applied to
   * its web copy; ignored when the bridge does not know the message (older, or
   * one of our own mirrors).
   */
  /** The web copy of a message written on the bridged side, which its edits and deletes change; null when the bridge does not know it. */
  async copyOf(
    surface: SurfacePort['surface'],
    at: Pick<BridgedChange, 'tenantId' | 'channelId' | 'messageId'>,
  ): Promise<Message | null> {
    const bridge = await this.store.bridges.byExternal(surface, at.tenantId, at.channelId);
    const mapped = bridge ? await this.store.bridges.byExternalId(bridge.id, at.messageId) : null;
    return bridge && mapped?.inbound ? this.store.messages.get(bridge.workspaceId, mapped.messageId) : null;
  }

  /**
   * An edit or a delete its author made on the chat platform, applied to the stored message (bridged or not):
   * search, inboxes and open pages see the new text, or the message is gone. An edit to no text, or to the
   * same text (Slack re-sends a message when it unfurls a link), changes nothing.
   */
  async apply(message: Message, change: ChatEdit): Promise<void> {
    const text = change.kind === 'edit' ? change.text.trim() : '';
    if (change.kind === 'edit' && (!text || text === message.body)) return;
    // Other bridged sides follow (our mirrors there), queued before a delete takes the message map with it.
    await this.store.transaction(async (tx) => {
      await queueMirrorChanges(tx, message, change.kind);
      if (change.kind === 'delete') await tx.messages.remove(message.workspaceId, message.id);
      else await tx.messages.edit(message.workspaceId, message.id, text, this.now());
      // A conversation titled with the start of this message (the one that opened it) quotes the new start.
      await tx.messages.requoteTitle(
        message.conversationId,
        titleExcerpt(message.body),
        change.kind === 'delete' ? DELETED_EXCERPT : titleExcerpt(text),
      );
      // Intake's copies of it (source excerpts, an automatic item's title and summary) follow too.
      await followChatEdit(tx, message, change.kind === 'delete' ? null : text, this.now());
    });
    await announceChange(
      this.notifier,
      message.conversationId,
      message.id,
      change.kind === 'delete' ? 'deleted' : 'changed',
    );
  }

  /**
   * A reaction on a bridged message (written on either side), given or taken
   * back by a chat user, applied to its web copy and followed on the other
   * bridged sides; false when the bridge does not know the message.
   */
  async react(
    surface: SurfacePort['surface'],
    r: BridgedReaction,
    identityOf: () => Promise<ExternalIdentity>,
  ): Promise<boolean> {
    const bridge = await this.store.bridges.byExternal(surface, r.tenantId, r.channelId);
    const mapped = bridge ? await this.store.bridges.byExternalId(bridge.id, r.messageId) : null;
    const message = bridge && mapped ? await this.store.messages.get(bridge.workspaceId, mapped.messageId) : null;
    if (!bridge || !message) return false;
    const identity = await identityOf();
    const reactor = `identity:${identity.id}`;
    const changed = await this.store.transaction(async (tx) => {
      const done = r.on
        ? await tx.reactions.add(bridge.workspaceId, {
            messageId: message.id,
            emoji: r.emoji,
            reactor,
            reactorName: identity.displayName || 'Someone',
            surface,
          })
        : await tx.reactions.remove(bridge.workspaceId, message.id, r.emoji, reactor);
      if (done) await queueReactionMirrors(tx, message, r.emoji, bridge.id);
      return done;
    });
    if (changed) await announceChange(this.notifier, message.conversationId, message.id, 'changed');
    return true;
  }

  /** The bridged web channel, or the web thread of the message's root when the bridge knows that root. */
  private async conversationOf(ws: Workspace, bridge: Bridge, msg: InboundMessage): Promise<Conversation | null> {
    const channel = await this.store.messages.getConversation(ws.id, bridge.channelId);
    if (!channel || !msg.threadRootId || msg.threadRootId === msg.messageId) return channel;
    const mapped = await this.store.bridges.byExternalId(bridge.id, msg.threadRootId);
    const root = mapped ? await this.store.messages.get(ws.id, mapped.messageId) : null;
    // A reply under a message from before the bridge lands in the channel itself.
    return root ? threadOf(this.store, this.notifier, root, channel) : channel;
  }
}
