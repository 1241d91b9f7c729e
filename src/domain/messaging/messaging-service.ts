import { randomUUID } from 'node:crypto';
import { resolveOne, type AgentService, type WorkspaceAgent } from '../agents/agent-service.ts';
import { invalidInput, notPermitted, SwitchboardError } from '../errors.ts';
import { assertMessagesAllowed, historyCutoff, nextReset, planLimits, usageMonth } from '../organizations/plans.ts';
import type { Clock, Notifier, Store } from '../ports.ts';
import { PERSON_AGENT_PERMISSIONS, type Agent, type SurfaceName, type Workspace } from '../types.ts';
import { DEFAULT_RATE_LIMIT, HOP_LIMIT, label, MAX_BODY_CHARS, refusalFor, type RateLimit } from './rules.ts';
import type { Conversation, InboxItem, Message, SearchHit } from './types.ts';

export interface SendInput {
  workspace: Workspace;
  sender: Agent;
  to?: string[];
  conversationId?: string;
  body: string;
  replyTo?: string;
  surface?: SurfaceName;
  /** For a message arriving from a chat surface: the external identity behind it. */
  askerIdentityId?: string | null;
  /** When the message came from a surface: its permalink and platform id. */
  permalink?: string | null;
  externalId?: string | null;
  /** When set, the message lands in this conversation (surface adapters pass the linked thread). */
  conversation?: Conversation;
  /** Recipients chosen by a surface (e.g. the agents mentioned in Slack), bypassing name resolution. */
  recipients?: WorkspaceAgent[];
  /**
   * Set by a surface adapter for a chat user who is not linked: the sender is then
   * the guest agent (OrgService.guestAgent), which is not a workspace member, and
   * `askerIdentityId` says who really wrote. Guests never act with anyone's access.
   */
  asGuest?: boolean;
}

export interface RecipientResult {
  to: string;
  agent_id: string | null;
  status: 'delivered' | 'refused';
  reason?: string;
}

export interface SendResult {
  message: Message | null;
  conversation: Conversation | null;
  recipients: RecipientResult[];
}

/** Topic for waking whoever waits on an agent's inbox. */
export const inboxTopic = (agentId: string) => `inbox:${agentId}`;
/** Topic for live views of a conversation (web chat). */
export const conversationTopic = (conversationId: string) => `conversation:${conversationId}`;

/** Sending, reading and searching messages, with every rule of the workspace applied. */
export class MessagingService {
  constructor(
    private readonly store: Store,
    private readonly agents: AgentService,
    private readonly notifier: Notifier,
    private readonly clock: Clock,
    private readonly rateLimit: RateLimit = DEFAULT_RATE_LIMIT,
    private readonly afterCommit: () => void = () => {},
  ) {}

  async send(input: SendInput): Promise<SendResult> {
    const { workspace: ws, sender } = input;
    const body = input.body.trim();
    if (!body) throw invalidInput('The message body is empty; write something to send.');
    if (body.length > MAX_BODY_CHARS) throw invalidInput(`The message body is ${body.length} characters; the limit is ${MAX_BODY_CHARS}. Split it or share a document instead.`);
    const me: WorkspaceAgent = input.asGuest
      ? { agent: sender, permissions: { ...PERSON_AGENT_PERMISSIONS }, ownerRole: 'viewer' }
      : await this.agents.member(sender, ws);
    if (!me.permissions.send) throw notPermitted('You do not have the send permission in this workspace; ask your owner to grant it.');
    const directory = await this.agents.directory(ws);

    let conversation = input.conversation ?? null;
    if (!conversation && input.conversationId) {
      conversation = await this.store.messages.getConversation(ws.id, input.conversationId);
      if (!conversation) throw new SwitchboardError('NOT_FOUND', `There is no conversation ${input.conversationId} in this workspace; use the conversation id of a message you received.`);
      const participants = await this.store.messages.participants(conversation.id);
      if (!participants.includes(sender.id) && !me.permissions.monitor) {
        throw notPermitted('You are not part of that conversation; you can reply only where you received a message.');
      }
    }

    // The parent decides the chain: a reply continues the human request it descends from.
    let parent: Message | null = null;
    if (input.replyTo) {
      parent = await this.store.messages.get(ws.id, input.replyTo);
      if (!parent || !(await this.store.messages.involves(sender.id, parent.id))) {
        throw new SwitchboardError('NOT_FOUND', `There is no message ${input.replyTo} that you sent or received in this workspace.`);
      }
      conversation ??= await this.store.messages.getConversation(ws.id, parent.conversationId);
    } else if (conversation && sender.kind === 'agent') {
      parent = await this.store.messages.latestReceived(sender.id, conversation.id);
    }
    const human = sender.kind === 'person';
    const chainId = human || !parent ? randomUUID() : parent.chainId;
    const hop = human || !parent ? 0 : parent.hop + 1;
    const askerPersonId = input.asGuest ? null : human ? sender.ownerId : parent?.askerPersonId ?? (parent ? null : sender.ownerId);
    const askerIdentityId = input.askerIdentityId ?? (human ? null : parent?.askerIdentityId ?? null);

    // Recipients: named ones, or everyone else in the conversation (agents only in a DM: agents answer agents only when addressed).
    const results: RecipientResult[] = [];
    const targets: WorkspaceAgent[] = [];
    const add = (w: WorkspaceAgent, to: string) => {
      if (targets.some((t) => t.agent.id === w.agent.id)) return;
      const reason = refusalFor(me, w, hop);
      results.push({ to, agent_id: w.agent.id, status: reason ? 'refused' : 'delivered', ...(reason ? { reason } : {}) });
      if (!reason) targets.push(w);
    };
    for (const w of input.recipients ?? []) add(w, label(w.agent));
    for (const name of input.to ?? []) {
      try {
        const w = resolveOne(directory, name);
        add(w, name);
      } catch (e) {
        if (!(e instanceof SwitchboardError)) throw e;
        results.push({ to: name, agent_id: null, status: 'refused', reason: e.message });
      }
    }
    if (!input.to?.length && !input.recipients && conversation) {
      const ids = await this.store.messages.participants(conversation.id);
      const others = directory.filter((d) => ids.includes(d.agent.id) && d.agent.id !== sender.id);
      const isDm = conversation.kind === 'dm' && ids.length <= 2;
      for (const w of others) if (w.agent.kind === 'person' || isDm) add(w, label(w.agent));
    }
    if (!results.length && !conversation) throw invalidInput('Say who the message is for: give `to` (agent names or person handles) or a `conversation` id to reply in.');
    const hopRefused = results.some((r) => r.reason?.includes(`${HOP_LIMIT} hops`));

    // An external thread (Slack, Teams) is itself an audience, so a reply there needs no named recipient.
    const external = conversation?.surface === 'slack' || conversation?.surface === 'teams';
    // A web channel and its threads are audiences too: everyone in them reads them.
    const audience = external || conversation?.kind === 'channel' || conversation?.kind === 'thread';
    if (!targets.length && !(audience && !results.length)) {
      if (hopRefused && askerPersonId) await this.tellChainStopped(ws, sender, askerPersonId, conversation);
      if (!results.length) throw invalidInput('Nobody else is in that conversation to receive the message; name recipients with `to`.');
      return { message: null, conversation, recipients: results };
    }

    const now = this.clock.now();
    if (conversation) {
      const sent = await this.store.messages.countSentSince(sender.id, conversation.id, new Date(now.getTime() - this.rateLimit.windowMs));
      if (sent >= this.rateLimit.max) {
        throw new SwitchboardError('RATE_LIMITED', `You have sent ${sent} messages to this conversation in the last ${Math.round(this.rateLimit.windowMs / 1000)} seconds, the most allowed; wait a minute before sending more.`, { limit: this.rateLimit.max, window_seconds: this.rateLimit.windowMs / 1000 });
      }
    }

    const stored = await this.store.transaction(async (tx) => {
      const org = (await tx.orgs.get(ws.orgId))!;
      const plan = planLimits(org.plan, org.licensedMessages);
      const month = usageMonth(now);
      assertMessagesAllowed(plan, await tx.orgs.usage(org.id, month), Math.max(1, targets.length), now);
      const conv = conversation ?? await tx.messages.conversation({
        workspaceId: ws.id, kind: 'dm', key: `dm:${[sender.id, ...targets.map((t) => t.agent.id)].sort().join(',')}`,
        title: [sender, ...targets.map((t) => t.agent)].map(label).join(', '),
      });
      const message = await tx.messages.insert({
        workspaceId: ws.id, conversationId: conv.id, senderId: sender.id, body, replyTo: parent?.id ?? null,
        chainId, hop, askerPersonId, askerIdentityId, surface: input.surface ?? 'mcp',
        permalink: input.permalink ?? null, externalId: input.externalId ?? null, createdAt: now,
      });
      await tx.messages.addParticipants(conv.id, [sender.id, ...targets.map((t) => t.agent.id)]);
      await tx.messages.deliver(message.id, ws.id, targets.map((t) => t.agent.id));
      await tx.orgs.addUsage(org.id, month, Math.max(1, targets.length));
      // A message into an external thread is posted there by the surface's worker, never inline.
      if ((conv.surface === 'slack' || conv.surface === 'teams') && input.surface !== conv.surface) {
        await tx.outbox.add({ topic: `${conv.surface}.post`, payload: { messageId: message.id, workspaceId: ws.id, conversationId: conv.id }, orderingKey: `${conv.surface}:${conv.id}` });
      }
      return { message, conversation: conv };
    });
    this.afterCommit();
    await Promise.all([
      ...targets.map((t) => this.notifier.publish(inboxTopic(t.agent.id), stored.message.id)),
      this.notifier.publish(conversationTopic(stored.conversation.id), stored.message.id),
    ]);
    if (hopRefused && askerPersonId) await this.tellChainStopped(ws, sender, askerPersonId, stored.conversation);
    return { ...stored, recipients: results };
  }

  /** Tells the person who started a chain that it stopped at the hop limit. */
  private async tellChainStopped(ws: Workspace, sender: Agent, personId: string, conversation: Conversation | null) {
    const personAgent = await this.store.agents.personAgent(personId);
    if (!personAgent) return;
    const body = `Switchboard stopped a chain of agent-to-agent messages started by your request after ${HOP_LIMIT} hops (last sender: ${label(sender)}). Reply in the conversation if you want the agents to continue.`;
    await this.store.transaction(async (tx) => {
      const conv = conversation ?? await tx.messages.conversation({ workspaceId: ws.id, kind: 'dm', key: `dm:${[sender.id, personAgent.id].sort().join(',')}` });
      const m = await tx.messages.insert({
        workspaceId: ws.id, conversationId: conv.id, senderId: sender.id, body, replyTo: null, chainId: randomUUID(), hop: 0,
        askerPersonId: personId, askerIdentityId: null, surface: 'mcp', createdAt: this.clock.now(),
      });
      await tx.messages.addParticipants(conv.id, [personAgent.id]);
      await tx.messages.deliver(m.id, ws.id, [personAgent.id]);
    });
    await this.notifier.publish(inboxTopic(personAgent.id), 'hop-limit');
  }

  /** Unread messages oldest first, marked read. */
  async checkInbox(agent: Agent, ws: Workspace, limit: number): Promise<{ items: InboxItem[]; remaining: number }> {
    await this.assertReceive(agent, ws);
    return this.store.messages.takeUnread(agent.id, ws.id, limit);
  }

  /**
   * Returns unread messages at once if there are any; otherwise waits until one
   * arrives (woken through the notifier, also from other processes) or the timeout.
   */
  async waitForInbox(agent: Agent, ws: Workspace, limit: number, timeoutMs: number, signal?: AbortSignal) {
    await this.assertReceive(agent, ws);
    let wake: () => void = () => {};
    let woken = false;
    const unsubscribe = await this.notifier.subscribe(inboxTopic(agent.id), () => { woken = true; wake(); });
    try {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        woken = false;
        const got = await this.store.messages.takeUnread(agent.id, ws.id, limit);
        if (got.items.length || Date.now() >= deadline || signal?.aborted) return { ...got, timedOut: !got.items.length };
        if (woken) continue;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
          const done = () => { clearTimeout(timer); signal?.removeEventListener('abort', done); resolve(); };
          wake = done;
          signal?.addEventListener('abort', done);
        });
      }
    } finally {
      await unsubscribe();
    }
  }

  async search(agent: Agent, ws: Workspace, q: { text: string; from?: string; conversationId?: string; since?: Date; limit: number }): Promise<SearchHit[]> {
    const me = await this.assertReceive(agent, ws);
    const org = (await this.store.orgs.get(ws.orgId))!;
    const cutoff = historyCutoff(planLimits(org.plan, org.licensedMessages), this.clock.now());
    const since = q.since && q.since > cutoff ? q.since : cutoff;
    const from = q.from ? resolveOne(await this.agents.directory(ws), q.from).agent.id : undefined;
    return this.store.messages.search({
      workspaceId: ws.id, text: q.text, agentId: me.permissions.monitor ? null : agent.id,
      fromAgentId: from, conversationId: q.conversationId, since, limit: q.limit,
    });
  }

  private async assertReceive(agent: Agent, ws: Workspace) {
    const me = await this.agents.member(agent, ws);
    if (!me.permissions.receive) throw notPermitted('You do not have the receive permission in this workspace, so you cannot read messages; ask your owner to grant it.');
    return me;
  }

  /** Deletes messages older than each organization's plan keeps. Returns how many went. */
  async purgeHistory(): Promise<number> {
    let n = 0;
    for (const org of await this.store.orgs.listAll()) {
      n += await this.store.messages.purgeOlderThan(org.id, historyCutoff(planLimits(org.plan, org.licensedMessages), this.clock.now()));
    }
    return n;
  }

  /** When the month's message count resets (for refusals and the web app). */
  resetsAt() {
    return nextReset(this.clock.now());
  }
}
