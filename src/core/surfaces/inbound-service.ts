// One pipeline for what people write in chat apps: which agents a message
// goes to, who is asking (a linked person or a guest), the link prompt (once
// per person), the refusal when a workspace requires linking, the
// conversation record, and delivery through the messaging service. Each
// surface only normalises its payloads and renders the outcome.
import type { AgentService, WorkspaceAgent } from '../agents/agent-service.ts';
import { resolveNames, talkableAgents } from '../agents/naming.ts';
import { notPermitted, SwitchboardError } from '../errors.ts';
import type { LinkService } from '../linking/link-service.ts';
import { hearers, receiversOf } from '../listening/hearing.ts';
import type { MessagingService, SendResult } from '../messaging/messaging-service.ts';
import type { OrgService } from '../organizations/org-service.ts';
import type { Clock, Store } from '../ports.ts';
import type { Conversation, Message } from '../messaging/message.ts';
import type { Agent, Workspace } from '../entities.ts';
import type {
  ChatAsker,
  InboundMessage,
  InboundOutcome,
  InboundTarget,
  KnownMessage,
  KnownOutcome,
  SurfacePort,
} from './inbound.ts';
import type { BridgedChange, BridgedReaction, BridgeInbound } from '../bridges/mirror-in.ts';
import { titleExcerpt } from './title.ts';
import { askedFromChatApp } from '../channels/thread-of.ts';
import { threadRoot } from '../channels/threads.ts';
import type { IntakeService } from '../intake/intake-service.ts';
import type { AgentChoiceScope, ExternalIdentity } from './surface-ports.ts';

export type { ChatAsker, InboundTarget } from './inbound.ts';

/** Whether the link prompt went out for this message (`now`), went out before (`earlier`), or could not be sent. */
type PromptSent = 'now' | 'earlier' | 'failed';

/**
 * An edit or a delete made on the chat platform, with the keys of the conversations it may be stored in; an edit's
 * text is read (converted, names looked up) only once Switchboard is known to have stored the message.
 */
export type FollowedChange = Pick<BridgedChange, 'tenantId' | 'channelId' | 'messageId'> & {
  conversationKeys: string[];
} & ({ kind: 'delete' } | { kind: 'edit'; text: () => Promise<string> });

/** A person's verdict on an agent's message, given with the platform's feedback buttons. */
export interface MessageFeedback {
  tenantId: string;
  /** The platform's id of the message, and the keys of the conversations it may be stored in. */
  messageId: string;
  conversationKeys: string[];
  /** Who gave it: their platform id, and their name there. */
  userId: string;
  userName: string;
  helpful: boolean;
  /** What they wrote with it, if anything. */
  text: string;
}

/** The longest feedback text an agent is handed; the rest is cut. */
const MAX_FEEDBACK_CHARS = 1_000;

export class InboundService {
  private guest: Promise<Agent> | null = null;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly orgs: OrgService,
    private readonly agents: AgentService,
    private readonly messaging: MessagingService,
    private readonly links: LinkService,
    /** Bridged channels (bridges/mirror-in.ts); without it no channel is bridged. */
    private readonly bridges: BridgeInbound | null = null,
    /** Files unlinked people's requests as intake (intake/); absent, nothing is filed. */
    private readonly intake: Pick<IntakeService, 'fromGuestRequest'> | null = null,
  ) {}

  /**
   * An edit or a delete of a message written in the chat app, applied to the copy Switchboard stored: through
   * the bridge in a bridged channel, else found by its platform id in one of `conversationKeys` (the surface's
   * keys for where it may be stored). Agents that got it read the new text (or no longer find it); they are not
   * told. False when Switchboard stored no such message from this surface (our own posts are never changed here).
   */
  async followChange(port: SurfacePort, change: FollowedChange): Promise<boolean> {
    const message = await this.changedMessage(port, change);
    if (!message || !this.bridges) return false;
    // Read only now: Slack sends a change for every message whose link it unfurls, stored by Switchboard or not.
    await this.bridges.apply(message, change.kind === 'delete' ? change : { kind: 'edit', text: await change.text() });
    return true;
  }

  /** The stored message a platform edit or delete is about: a bridged channel's web copy, else the one stored under its keys. */
  private async changedMessage(port: SurfacePort, change: FollowedChange): Promise<Message | null> {
    if (!this.bridges) return null;
    const copy = await this.bridges.copyOf(port.surface, change);
    if (copy) return copy;
    const workspace = await port.workspaceOf(change.tenantId);
    if (!workspace) return null;
    for (const key of new Set(change.conversationKeys)) {
      const conversation = await this.store.messages.findConversation(workspace.id, key);
      const message =
        conversation && (await this.store.messages.byExternalId(workspace.id, conversation.id, change.messageId));
      if (message?.surface === port.surface) return message;
    }
    return null;
  }

  /**
   * Feedback on an agent's message (a 👍 or 👎, with what the person wrote): it reaches the agent's inbox as a notice
   * from Switchboard naming the message and the conversation. False when this surface holds no agent's message under
   * that platform id.
   */
  async feedback(port: SurfacePort, f: MessageFeedback): Promise<boolean> {
    const workspace = await port.workspaceOf(f.tenantId);
    if (!workspace) return false;
    let found: { message: Message; conversation: Conversation } | null = null;
    for (const key of new Set(f.conversationKeys)) {
      const conversation = await this.store.messages.findConversation(workspace.id, key);
      const message =
        conversation && (await this.store.messages.byExternalId(workspace.id, conversation.id, f.messageId));
      if (message) {
        found = { message, conversation: conversation! };
        break;
      }
    }
    const author = found && (await this.store.agents.get(found.message.senderId));
    if (!found || author?.kind !== 'agent') return false;
    const identity = await this.store.identities.find({
      surface: port.surface,
      tenantId: f.tenantId,
      externalUserId: f.userId,
    });
    const person = identity?.personId ? await this.store.people.get(identity.personId) : null;
    const who = person ? `${person.displayName} (@${person.handle})` : identity?.displayName || f.userName || 'Someone';
    const text = f.text.trim().slice(0, MAX_FEEDBACK_CHARS);
    const verdict = f.helpful ? 'helpful (👍)' : 'not helpful (👎)';
    const body =
      `${who} marked your message ${found.message.id} in ${port.label} as ${verdict}` +
      `${text ? ` and wrote: "${text}"` : '.'}\n\n(Conversation ${found.conversation.id}.)`;
    await this.messaging.notice(workspace, await this.orgs.systemAgent(), author, body, 'feedback');
    return true;
  }

  /** Step for bridged channels: a reaction on the bridged side follows to the web copy, as its chat user's; false when the message is not bridged. */
  async mirrorBridgedReaction(port: SurfacePort, r: BridgedReaction): Promise<boolean> {
    if (!this.bridges) return false;
    return this.bridges.react(port.surface, r, async () => (await this.asker(port, r.tenantId, r.userId, [])).identity);
  }

  /**
   * Step for bridged channels, taken before `receive`: a message in a chat
   * channel bridged to a web channel is stored there as its author (mentions
   * delivered there, once). Null when the channel is not bridged.
   */
  async mirrorBridged(port: SurfacePort, msg: InboundMessage): Promise<InboundOutcome | null> {
    if (!this.bridges) return null;
    return this.bridges.receive(port, msg, {
      target: () => this.target(port, msg.tenantId),
      asker: (t) => this.asker(port, msg.tenantId, msg.authorId, t.directory),
      guestGate: async (t) =>
        (await this.guestGate(port, t.workspace, await this.asker(port, msg.tenantId, msg.authorId, t.directory)))
          ?.message ?? null,
      fallback: async (t, thread) =>
        this.fallback(port, msg, t.workspace, t.directory, await this.agentsIn(t.workspace, thread)),
      agentsIn: (t, conversation) => this.agentsIn(t.workspace, conversation),
      intake: (t, result, threadOf) => this.intakeStep(t, result, threadOf),
    });
  }

  /** The workspace the tenant is connected to, with its directory; null when it is not connected. */
  async target(port: SurfacePort, tenantId: string): Promise<InboundTarget | null> {
    const workspace = await port.workspaceOf(tenantId);
    return workspace ? { workspace, directory: await this.agents.directory(workspace) } : null;
  }

  /**
   * Routes a message and delivers it: named agents, else the thread's agents,
   * else the DM's or channel's default. A message not written to the app is
   * never answered, not even refused. `known` saves reading the target again
   * when the surface has it already.
   */
  async receive(port: SurfacePort, msg: InboundMessage, known?: InboundTarget): Promise<InboundOutcome> {
    const target = known ?? (await this.target(port, msg.tenantId));
    if (!target) return msg.addressed ? { kind: 'not-connected' } : { kind: 'ignored' };
    const { workspace, directory } = target;
    // Only a mention says nothing on purpose (it asks how to talk here); an empty DM or reply is nothing.
    if (!msg.text.trim())
      return msg.addressed && msg.place !== 'dm'
        ? { kind: 'name-an-agent', workspace, directory }
        : { kind: 'ignored' };
    const { recipients, problems } = resolveNames(directory, msg.names, (n) => port.showName(n));
    if (!msg.addressed) {
      // A reply that only continues a thread reaches the thread's agents, and only threads agents took part in.
      const inThread = await this.threadAgents(workspace, msg);
      if (!inThread.length) return this.overhearOnly(port, msg, target);
      // Nobody wrote to the app, so nobody is answered: a guest where linking is required is ignored, not refused in public.
      const asker = await this.asker(port, msg.tenantId, msg.authorId, directory);
      if (asker.asGuest && workspace.requireLinking) return { kind: 'ignored' };
      const to = recipients.length ? recipients : inThread;
      return {
        kind: 'handled',
        workspace,
        notices: [],
        result: await this.deliverAs(port, msg, target, to, asker).then((d) => d.result),
      };
    }
    if (!msg.names.length) {
      const fallback = await this.fallback(port, msg, workspace, directory);
      if (!fallback) return { kind: msg.place === 'dm' ? 'choose-agent' : 'name-an-agent', workspace, directory };
      recipients.push(...fallback);
    }
    if (!recipients.length) return { kind: 'handled', workspace, notices: problems, result: null };
    const { result, refusals } = await this.deliver(port, msg, target, recipients);
    return { kind: 'handled', workspace, notices: [...problems, ...refusals], result };
  }

  /**
   * Delivers to agents already chosen: resolves the asker, sends the link
   * prompt the first time they talk unlinked, refuses when the workspace
   * requires linking, and sends in the conversation of the message's thread.
   */
  async deliver(
    port: SurfacePort,
    msg: InboundMessage,
    target: InboundTarget,
    recipients: WorkspaceAgent[],
  ): Promise<{ result: SendResult; refusals: string[] }> {
    return this.deliverAs(
      port,
      msg,
      target,
      recipients,
      await this.asker(port, msg.tenantId, msg.authorId, target.directory),
    );
  }

  /** `deliver` for an asker resolved already. */
  private async deliverAs(
    port: SurfacePort,
    msg: InboundMessage,
    target: InboundTarget,
    recipients: WorkspaceAgent[],
    asker: ChatAsker,
  ): Promise<{ result: SendResult; refusals: string[] }> {
    const refused = await this.guestGate(port, target.workspace, asker);
    if (refused) throw refused;
    const result = await this.record(port, msg, target, asker, recipients);
    if (asker.asGuest) await this.intakeStep(target, result);
    return { result, refusals: refusalsOf(port, result) };
  }

  /**
   * Routes and delivers a message whose author and workspace the surface knows
   * already (a signed-in web user writing as their person agent): the agents and
   * people it names, and in a DM (or a thread under one) everyone else in it.
   * Refused mentions never swallow a message written in a channel or thread:
   * it is then stored for that place alone, and the refusals said.
   */
  async deliverKnown(port: SurfacePort, msg: KnownMessage): Promise<KnownOutcome> {
    const { workspace, sender, conversation } = msg;
    const directory = await this.agents.directory(workspace);
    const { recipients, problems } = resolveNames(directory, msg.names, (n) => port.showName(n));
    const to = new Map(recipients.filter((w) => w.agent.id !== sender.id).map((w) => [w.agent.id, w]));
    for (const w of await this.othersInDm(workspace, conversation, sender, directory)) to.set(w.agent.id, w);
    // A reply naming nobody in the thread of a Slack or Teams message reaches its agents, as it does from that side.
    if (!msg.names.length) for (const w of await this.chatThreadAgents(workspace, conversation)) to.set(w.agent.id, w);
    const send = (list: WorkspaceAgent[]) =>
      this.messaging.send({
        workspace,
        sender,
        conversation,
        recipients: list,
        directory,
        body: msg.text,
        surface: port.surface,
      });
    let result = await send([...to.values()]);
    if (!result.message && conversation.kind !== 'dm' && to.size)
      result = { ...(await send([])), recipients: result.recipients };
    return { result, notices: [...problems, ...refusalsOf(port, result)] };
  }

  /** The agents taking part in the web thread of a message written in Slack or Teams (a bridged channel's); none elsewhere. */
  private async chatThreadAgents(ws: Workspace, c: Conversation): Promise<WorkspaceAgent[]> {
    const rootId = threadRoot(c);
    if (!rootId || !c.parentId) return [];
    const [root, parent] = await Promise.all([
      this.store.messages.get(ws.id, rootId),
      this.store.messages.getConversation(ws.id, c.parentId),
    ]);
    return root && parent && askedFromChatApp(root, parent) ? this.agentsIn(ws, c) : [];
  }

  /** Everyone but the sender in a DM, or in the DM a thread hangs off; nobody elsewhere. */
  private async othersInDm(
    ws: Workspace,
    c: Conversation,
    sender: Agent,
    directory: WorkspaceAgent[],
  ): Promise<WorkspaceAgent[]> {
    const dm =
      c.kind === 'dm'
        ? c
        : c.kind === 'thread' && c.parentId
          ? await this.store.messages.getConversation(ws.id, c.parentId)
          : null;
    if (dm?.kind !== 'dm') return [];
    const ids = new Set(await this.store.messages.participants(dm.id));
    return directory.filter((d) => ids.has(d.agent.id) && d.agent.id !== sender.id);
  }

  /**
   * The intake step: an unlinked person's message that reached an agent (not
   * only people) and reads like a request becomes an intake item, joining the
   * item of its thread (`threadOf` names that thread when it is not the
   * message's conversation). It never stops delivery: the message is stored
   * and delivered already.
   */
  private async intakeStep(
    target: InboundTarget,
    result: SendResult,
    threadOf?: (m: Message) => Promise<Conversation>,
  ) {
    if (!this.intake || !result.message || !result.conversation) return;
    const agents = new Set(target.directory.filter((d) => d.agent.kind === 'agent').map((d) => d.agent.id));
    if (!result.recipients.some((r) => r.status === 'delivered' && r.agent_id && agents.has(r.agent_id))) return;
    try {
      await this.intake.fromGuestRequest(
        target.workspace,
        result.message,
        threadOf ? await threadOf(result.message) : result.conversation,
      );
    } catch {
      // Filing is best effort: the request reached its agents already.
    }
  }

  /**
   * The listening step (see listening/): a channel message addressed to no
   * agent is stored only when a listener of that channel may hear it (the
   * rule the reads ask too: listening/hearing.ts), so it overhears it; nobody
   * is prompted or answered. A guest's message is not kept where the
   * workspace requires linking.
   */
  private async overhearOnly(port: SurfacePort, msg: InboundMessage, target: InboundTarget): Promise<InboundOutcome> {
    const ws = target.workspace;
    if (msg.place !== 'channel' || !msg.text.trim()) return { kind: 'ignored' };
    if (
      !(
        await hearers(this.store, ws, { surface: msg.surface, channelId: msg.channelId }, receiversOf(target.directory))
      ).length
    )
      return { kind: 'ignored' };
    const asker = await this.asker(port, msg.tenantId, msg.authorId, target.directory);
    if (asker.asGuest && ws.requireLinking) return { kind: 'ignored' };
    try {
      return { kind: 'handled', workspace: ws, notices: [], result: await this.record(port, msg, target, asker, []) };
    } catch (e) {
      // A plan limit or rate limit stops what nobody asked for without a word to the person.
      if (e instanceof SwitchboardError) return { kind: 'ignored' };
      throw e;
    }
  }

  /** Stores the message in the conversation of its thread and sends it to `recipients` (none: only listeners hear it). */
  private async record(
    port: SurfacePort,
    msg: InboundMessage,
    target: InboundTarget,
    asker: ChatAsker,
    recipients: WorkspaceAgent[],
  ): Promise<SendResult> {
    const ws = target.workspace;
    const inThread = msg.threadRootId !== null && msg.threadRootId !== msg.messageId;
    const [permalink, rootPermalink] = await Promise.all([
      port.permalink(msg.messageId),
      inThread ? port.permalink(msg.threadRootId!) : null,
    ]);
    const conversation = await this.store.messages.conversation({
      workspaceId: ws.id,
      kind: 'external',
      surface: msg.surface,
      key: msg.conversationKey,
      title: titleOf(port.label, msg, asker),
      externalRef: msg.externalRef,
      permalink: msg.threadRootId ? (rootPermalink ?? permalink) : null,
    });
    return this.messaging.send({
      workspace: ws,
      sender: asker.sender,
      asGuest: asker.asGuest,
      askerIdentityId: asker.identity.id,
      conversation,
      recipients,
      directory: target.directory,
      body: msg.text,
      surface: msg.surface,
      permalink,
      externalId: msg.messageId,
    });
  }

  /**
   * What a request to an agent from a guest meets first: the link prompt, sent the first time they talk; and where the
   * workspace requires linking, the refusal to tell them instead (null otherwise, or for a linked person).
   */
  private async guestGate(port: SurfacePort, ws: Workspace, asker: ChatAsker): Promise<SwitchboardError | null> {
    if (!asker.asGuest) return null;
    const prompted = await this.promptOnce(port, asker.identity, ws.requireLinking ? 'required' : 'first');
    return ws.requireLinking ? this.linkingRequired(port, prompted, Boolean(asker.identity.personId)) : null;
  }

  /** When the workspace requires linking and this chat user is a guest: the sentence to answer instead (after sending the prompt once). */
  async linkingRefusal(
    port: SurfacePort,
    target: InboundTarget,
    tenantId: string,
    authorId: string,
  ): Promise<string | null> {
    if (!target.workspace.requireLinking) return null;
    const asker = await this.asker(port, tenantId, authorId, target.directory);
    if (!asker.asGuest) return null;
    const prompted = await this.promptOnce(port, asker.identity, 'required');
    return this.linkingRequired(port, prompted, Boolean(asker.identity.personId)).message;
  }

  /**
   * The chat user's identity (created on first sight, its profile read again
   * when older than the surface's TTL) and the sender for their messages: a
   * linked person who can reach the workspace writes as their person agent;
   * anyone else as the guest, with no access of their own.
   */
  async asker(port: SurfacePort, tenantId: string, authorId: string, directory: WorkspaceAgent[]): Promise<ChatAsker> {
    const key = { surface: port.surface, tenantId, externalUserId: authorId };
    const now = this.clock.now();
    let identity = await this.store.identities.find(key);
    if (!identity?.profileFetchedAt || now.getTime() - identity.profileFetchedAt.getTime() > port.profileTtlMs) {
      identity = await this.store.identities.upsert(key, (await port.profile(authorId)) ?? undefined);
    }
    const personId = identity.personId;
    const entry = personId
      ? directory.find((d) => d.agent.kind === 'person' && d.agent.ownerId === personId)
      : undefined;
    if (entry) return { identity, sender: entry.agent, asGuest: false };
    return { identity, sender: await this.guestAgent(), asGuest: true };
  }

  /** The agents (not people) that took part in the message's thread; none outside threads or in threads Switchboard never saw. */
  private async threadAgents(workspace: Workspace, msg: InboundMessage): Promise<WorkspaceAgent[]> {
    if (!msg.threadRootId) return [];
    return this.agentsIn(workspace, await this.store.messages.findConversation(workspace.id, msg.conversationKey));
  }

  /** The agents (not people) that took part in a conversation; none when there is no conversation. */
  private async agentsIn(workspace: Workspace, conversation: Conversation | null): Promise<WorkspaceAgent[]> {
    if (!conversation) return [];
    const ids = new Set(await this.store.messages.participants(conversation.id));
    return talkableAgents(await this.agents.directory(workspace)).filter((d) => ids.has(d.agent.id));
  }

  /**
   * Who gets a message that names nobody: the DM's chosen agent; in a thread its agents (`inThread` where the caller
   * read them already, as the bridge does from the web thread); else the channel's default.
   */
  private async fallback(
    port: SurfacePort,
    msg: InboundMessage,
    workspace: Workspace,
    directory: WorkspaceAgent[],
    inThread?: WorkspaceAgent[],
  ): Promise<WorkspaceAgent[] | null> {
    if (msg.place === 'dm') return this.chosen(port, msg.tenantId, directory, 'user', msg.authorId);
    const agents = inThread ?? (await this.threadAgents(workspace, msg));
    return agents.length ? agents : this.chosen(port, msg.tenantId, directory, 'channel', msg.channelId);
  }

  /** The agent chosen for a DM (`user`) or made a channel's default, while it can still be talked to; null otherwise. */
  private async chosen(
    port: SurfacePort,
    tenantId: string,
    directory: WorkspaceAgent[],
    scope: AgentChoiceScope,
    scopeId: string,
  ): Promise<WorkspaceAgent[] | null> {
    const agentId = await this.store.defaultAgents.get({ surface: port.surface, tenantId, scope, scopeId });
    const found = agentId ? talkableAgents(directory).find((d) => d.agent.id === agentId) : undefined;
    return found ? [found] : null;
  }

  /** Sends the link prompt the first time; a send that fails is forgotten, so the next message tries again. */
  private async promptOnce(
    port: SurfacePort,
    identity: ExternalIdentity,
    reason: 'first' | 'required',
  ): Promise<PromptSent> {
    if (identity.personId || !(await this.links.firstPrompt(identity))) return 'earlier';
    if (await port.sendLinkPrompt(identity, reason)) return 'now';
    await this.links.promptNotSent(identity);
    return 'failed';
  }

  private linkingRequired(port: SurfacePort, prompt: PromptSent, linkedElsewhere: boolean) {
    if (linkedElsewhere) {
      return notPermitted(
        `This Switchboard workspace answers only people who have linked their ${port.label} account and can reach the workspace; your linked account cannot reach it, so no agent got your message. Ask an owner to add you.`,
        { reason: 'linking_required' },
      );
    }
    return notPermitted(
      `This Switchboard workspace answers only people who have linked their ${port.label} account, and yours is not linked yet, so no agent got your message. ${port.linkHowTo(prompt === 'now', prompt === 'failed')}; link, then write again.`,
      { reason: 'linking_required' },
    );
  }

  private guestAgent(): Promise<Agent> {
    return (this.guest ??= this.orgs.guestAgent().catch((e: unknown) => {
      this.guest = null;
      throw e;
    }));
  }
}

/** A sentence for each recipient that refused the message, naming it the surface's way. */
function refusalsOf(port: SurfacePort, result: SendResult): string[] {
  return result.recipients
    .filter((r) => r.status === 'refused')
    .map((r) => `${port.showName(r.to)} did not get it: ${r.reason}`);
}

function titleOf(label: string, msg: InboundMessage, asker: ChatAsker): string {
  const excerpt = titleExcerpt(msg.text);
  if (msg.place === 'dm') return `${label} DM with ${asker.identity.displayName}`;
  return msg.place === 'group' ? `${label} group chat: ${excerpt}` : `${label}: ${excerpt}`;
}
