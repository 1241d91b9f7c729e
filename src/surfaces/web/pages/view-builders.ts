// Builds the web chat's views (views.ts) from what the core's services
// return: senders, rendered bodies, threads and reactions as one viewer sees them.
import type { Channel, Reaction, ThreadSummary } from '../../../core/channels/channel-ports.ts';
import { type ViaOf, writtenByGuest } from '../../../core/channels/origin.ts';
import { webReactor } from '../../../core/channels/reactions.ts';
import { threadRoot } from '../../../core/channels/threads.ts';
import type { Conversation, Message, Sender } from '../../../core/messaging/message.ts';
import { httpUrlOrNull } from '../../../core/safe-text.ts';
import type { ExternalIdentity } from '../../../core/surfaces/surface-ports.ts';
import { qualifiedName, type Agent } from '../../../core/entities.ts';
import type { ChatMessage, ConversationView, ReactionView, SenderView } from './views.ts';

/** Turns a stored Markdown body into the HTML the web chat inserts as is (it must already be sanitised). */
export type RenderMessage = (markdown: string) => string;

export function senderView(
  a: Pick<Agent, 'id' | 'name' | 'ownerHandle' | 'displayName' | 'avatarUrl' | 'kind'>,
): SenderView {
  const person = a.kind === 'person';
  return {
    id: a.id,
    label: person ? `@${a.name}` : qualifiedName(a),
    mention: person ? a.name : qualifiedName(a),
    displayName: a.displayName,
    avatarUrl: a.avatarUrl,
    kind: a.kind,
  };
}

/** The same view from the sender columns an inbox row carries. */
export const senderViewOf = (s: Sender) => senderView({ ...s, ownerHandle: s.person });

/** The reactions of each message (by id), grouped by emoji in the order each emoji first came; `mine` for `reactor`. */
export function reactionViews(list: Reaction[], reactor: string | null): Map<string, ReactionView[]> {
  const out = new Map<string, ReactionView[]>();
  for (const r of list) {
    let views = out.get(r.messageId);
    if (!views) out.set(r.messageId, (views = []));
    let view = views.find((x) => x.emoji === r.emoji);
    if (!view) views.push((view = { emoji: r.emoji, count: 0, mine: false, names: [] }));
    view.count += 1;
    view.names.push(r.reactorName);
    if (r.reactor === reactor) view.mine = true;
  }
  return out;
}

/** Where message views find senders, the chat users behind guests' messages, and reactions (the core's services). */
export interface SenderSources {
  /** The agent or person agent; null when there is none. */
  agent(id: string): Promise<Agent | null>;
  /** A chat user as Switchboard knows them; null when there is none. */
  identity(id: string): Promise<ExternalIdentity | null>;
  /** The reactions of these messages of the workspace, oldest first. */
  reactions(workspaceId: string, messageIds: string[]): Promise<Reaction[]>;
}

/** Loads each sender (and each chat user behind a guest's message) once per request. */
export class SenderCache {
  private readonly cache = new Map<string, Promise<Agent | null>>();
  private readonly identities = new Map<string, Promise<ExternalIdentity | null>>();
  /** `viewerAgentId`: whose reactions count as `mine`. */
  constructor(
    private readonly sources: SenderSources,
    private readonly render: RenderMessage,
    private readonly via: ViaOf,
    private readonly viewerAgentId: string | null = null,
  ) {}

  get(id: string) {
    let p = this.cache.get(id);
    if (!p) this.cache.set(id, (p = this.sources.agent(id)));
    return p;
  }

  /** The chat user who wrote a guest's message (a Slack or Teams user who has not linked an account); null otherwise. */
  private async chatAuthor(m: Message): Promise<SenderView | null> {
    if (!writtenByGuest(m)) return null;
    let p = this.identities.get(m.askerIdentityId);
    if (!p) this.identities.set(m.askerIdentityId, (p = this.sources.identity(m.askerIdentityId)));
    const identity = await p;
    if (!identity) return null;
    return {
      id: `identity:${identity.id}`,
      label: '',
      mention: '',
      displayName: identity.displayName || 'Someone',
      avatarUrl: httpUrlOrNull(identity.avatarUrl),
      kind: 'person',
    };
  }

  async views(messages: Message[], threads: ThreadSummary[] = []): Promise<ChatMessage[]> {
    const byRoot = new Map(threads.map((t) => [t.rootMessageId, t]));
    const reactions = messages.length
      ? reactionViews(
          await this.sources.reactions(
            messages[0].workspaceId,
            messages.map((m) => m.id),
          ),
          this.viewerAgentId && webReactor(this.viewerAgentId),
        )
      : new Map<string, ReactionView[]>();
    return Promise.all(
      messages.map(async (m) => {
        const agent = await this.get(m.senderId);
        const t = byRoot.get(m.id);
        const author = await this.chatAuthor(m);
        return {
          id: m.id,
          conversationId: m.conversationId,
          body: m.body,
          html: this.render(m.body),
          createdAt: m.createdAt,
          surface: m.surface,
          via: this.via(m.surface),
          permalink: httpUrlOrNull(m.permalink),
          sender:
            author ??
            (agent
              ? senderView(agent)
              : {
                  id: m.senderId,
                  label: 'unknown',
                  mention: '',
                  displayName: 'Unknown sender',
                  avatarUrl: null,
                  kind: 'agent' as const,
                }),
          thread:
            t && t.replies > 0
              ? { conversationId: t.conversationId, replies: t.replies, lastReplyAt: t.lastReplyAt }
              : null,
          editedAt: m.editedAt ?? null,
          reactions: reactions.get(m.id) ?? [],
        };
      }),
    );
  }
}

export function conversationView(
  c: Conversation,
  title: string,
  channel: (Channel & { member: boolean; bridges?: Array<{ surface: string; title: string }> }) | null,
): ConversationView {
  return {
    id: c.id,
    kind: c.kind,
    title,
    surface: c.surface,
    permalink: httpUrlOrNull(c.permalink),
    parentId: c.parentId,
    rootMessageId: threadRoot(c),
    channel: channel
      ? {
          name: channel.name,
          restricted: channel.restricted,
          description: channel.description,
          member: channel.member,
          bridges: channel.bridges ?? [],
        }
      : null,
  };
}
