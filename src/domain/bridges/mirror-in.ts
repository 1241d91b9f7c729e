// Outside → web: a message written in a Slack or Teams channel bridged to a
// web channel is stored in that web channel (or the web thread of its root) as
// its author, the agents it names get it once, there, and every other bridged
// side is queued by MessagingService (mirror-out.ts). A step of the one inbound
// pipeline (InboundService.mirrorBridged), before ordinary routing.
import { resolveNames } from '../agents/naming.ts';
import { threadOf } from '../chat/chat-service.ts';
import { announceChange } from '../chat/changes.ts';
import type { MessagingService } from '../messaging/messaging-service.ts';
import type { Conversation } from '../messaging/types.ts';
import type { Notifier, Store } from '../ports.ts';
import type { ChatAsker, InboundMessage, InboundOutcome, InboundTarget, SurfacePort } from '../surfaces/inbound.ts';
import type { Workspace } from '../types.ts';
import type { Bridge } from './types.ts';

/** What the inbound pipeline lends this step: its target, asker and linking rules. */
export interface PipelineSteps {
  target(): Promise<InboundTarget | null>;
  asker(target: InboundTarget): Promise<ChatAsker>;
  /** The sentence for a guest when the workspace requires linking (the prompt sent once); null otherwise. */
  linkingRefusal(target: InboundTarget): Promise<string | null>;
}

/** A message edited or deleted on the bridged side. */
export type BridgedChange = { tenantId: string; channelId: string; messageId: string } & ({ kind: 'edit'; text: string } | { kind: 'delete' });

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
    if (!msg.text.trim()) return { kind: 'ignored' };
    const target = await steps.target();
    if (!target || target.workspace.id !== bridge.workspaceId) return { kind: 'ignored' };
    const { workspace: ws, directory } = target;
    const conversation = await this.conversationOf(ws, bridge, msg);
    if (!conversation) return { kind: 'ignored' };
    const asker = await steps.asker(target);
    const { recipients, problems } = resolveNames(directory, msg.names, (n) => port.showName(n));
    // A guest where linking is required is still mirrored for the people; agents do not get it.
    const refusal = recipients.length ? await steps.linkingRefusal(target) : null;
    const result = await this.messaging.send({
      workspace: ws, sender: asker.sender, asGuest: asker.asGuest, askerIdentityId: asker.identity.id, conversation,
      recipients: refusal ? [] : recipients, body: msg.text, surface: port.surface,
      permalink: await port.permalink(msg.messageId), externalId: msg.messageId,
    });
    const refusals = result.recipients.filter((r) => r.status === 'refused').map((r) => `${port.showName(r.to)} did not get it: ${r.reason}`);
    return { kind: 'handled', workspace: ws, notices: [...problems, ...(refusal ? [refusal] : []), ...refusals], result };
  }

  /**
   * An edit or a delete of a message written in a bridged channel, applied to
   * its web copy; ignored when the bridge does not know the message (older, or
   * one of our own mirrors).
   */
  async change(surface: SurfacePort['surface'], change: BridgedChange): Promise<boolean> {
    const bridge = await this.store.bridges.byExternal(surface, change.tenantId, change.channelId);
    const mapped = bridge ? await this.store.bridges.byExternalId(bridge.id, change.messageId) : null;
    if (!bridge || !mapped?.inbound) return false;
    const message = await this.store.messages.get(bridge.workspaceId, mapped.messageId);
    if (!message) return false;
    if (change.kind === 'delete') await this.store.messages.remove(bridge.workspaceId, message.id);
    else if (change.text.trim()) await this.store.messages.edit(bridge.workspaceId, message.id, change.text.trim(), this.now());
    else return false;
    await announceChange(this.notifier, message.conversationId, message.id, change.kind === 'delete' ? 'deleted' : 'changed');
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
