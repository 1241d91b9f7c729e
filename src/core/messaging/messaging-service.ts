import { randomUUID } from 'node:crypto';
import { postOrderingKey } from '../delivery/post-change.ts';
import { resolveOne, type AgentService, type WorkspaceAgent } from '../agents/agent-service.ts';
import { invalidInput, notPermitted, SwitchboardError } from '../errors.ts';
import { assertMessagesAllowed, planLimits, usageMonth, type Plan } from '../organizations/plans.ts';
import type { Clock, Notifier, SendGate, Store } from '../ports.ts';
import { PERSON_AGENT_PERMISSIONS, type Agent, type SurfaceName, type Workspace } from '../entities.ts';
import type { PostTarget } from '../linking/audience-service.ts';
import type { ListeningService } from '../listening/listening-service.ts';
import { receiversOf } from '../listening/hearing.ts';
import { chainPosition, CHAIN_WINDOW_MS } from './chain.ts';
import { hasBridges, queueMirrors } from '../bridges/mirror-out.ts';
import { answerPlace } from '../channels/thread-of.ts';
import { conversationTopic, inboxTopic, type MessageAudiences, MessageReads, writerTopic } from './message-reads.ts';
import {
  DEFAULT_RATE_LIMIT,
  HOP_LIMIT,
  label,
  MAX_BODY_CHARS,
  rateLimited,
  refusalFor,
  type RateLimit,
  type Refusal,
  type RefusalRule,
} from './rules.ts';
import type { Conversation, Message } from './message.ts';
import type { RecipientResult, SendInput, SendResult } from './send.ts';

/** What `plan` decided: where the message goes, who accepts it, and its place in a chain. */
interface SendPlan {
  conversation: Conversation | null;
  parent: Message | null;
  chain: ReturnType<typeof chainPosition>;
  results: RecipientResult[];
  targets: WorkspaceAgent[];
  hopRefused: boolean;
  /** The workspace's directory as read for this message (listeners are looked up in it). */
  directory: WorkspaceAgent[];
  /** Where the audience rule checked the message against; null when nobody would receive it. */
  audience: PostTarget | null;
}

export { conversationTopic, inboxTopic, writerTopic };
export type { RecipientResult, SendInput, SendResult };

const dmKey = (ids: string[]) => `dm:${[...new Set(ids)].sort().join(',')}`;
/** The largest count a usage row holds (a PostgreSQL integer). */
const MAX_INT = 2 ** 31 - 1;

/** A conversation held on a chat surface (a Slack or Teams thread). */
const isExternal = (c: Conversation | null) => c?.kind === 'external';
/** A conversation whose members all read it (external threads, web channels and their threads): it needs no named recipient. */
const isAudience = (c: Conversation | null) => isExternal(c) || c?.kind === 'channel' || c?.kind === 'thread';

/** How a recipient took the message: delivered, or refused with the rule and its reason. */
const recipientResult = (to: string, agentId: string | null, refusal: Refusal | null): RecipientResult => ({
  to,
  agent_id: agentId,
  status: refusal ? 'refused' : 'delivered',
  ...refusal,
});

/** The refusal of a message every recipient refused, with each one's reason. */
const nobodyReceives = (results: RecipientResult[]) =>
  notPermitted(
    `Nobody would receive this message (${results.map((r) => `${r.to}: ${r.reason}`).join('; ')}); name recipients who accept it.`,
    { recipients: results },
  );

/** Sending messages (and, through MessageReads, reading and searching them), with every rule of the workspace applied. */
export class MessagingService extends MessageReads {
  /** Called after a message is stored and its readers woken (the live service clears the sender's status there). */
  readonly onSent: Array<(m: Message) => void> = [];

  constructor(
    store: Store,
    agents: AgentService,
    notifier: Notifier,
    clock: Clock,
    private readonly rateLimit: RateLimit = DEFAULT_RATE_LIMIT,
    /** Called after a message's transaction queued jobs (a post to its chat surface, bridge mirrors): the queue looks for them. */
    private readonly afterCommit: () => void = () => {},
    /** Audience rules (linking/audience-service.ts): inbox items carry their audience; agents' posts are checked against it. */
    audiences: MessageAudiences | null = null,
    /** The job kind a chat surface registered for posting into its conversations; null when no surface of that name is set up here. */
    private readonly postTopicOf: (surface: SurfaceName) => string | null = () => null,
    /** Listening agents (listening/): who overhears a message in a channel; without it nobody does. */
    private readonly listening: Pick<ListeningService, 'overhearers'> | null = null,
  ) {
    super(store, agents, notifier, clock, audiences);
  }

  async send(input: SendInput): Promise<SendResult> {
    const body = input.body.trim();
    if (!body) throw invalidInput('The message body is empty; write something to send.');
    if (body.length > MAX_BODY_CHARS)
      throw invalidInput(
        `The message body is ${body.length} characters; the limit is ${MAX_BODY_CHARS}. Split it or share a document instead.`,
      );
    const plan = await this.plan(input);
    if (!plan.targets.length && !(isAudience(plan.conversation) && !plan.results.length))
      return this.refuseAll(input, plan);
    return this.commit(input, body, plan);
  }

  /**
   * Checks a message before it is written: every rule send applies, and with `limits` (a streamed message starting)
   * the rate limit and the plan's monthly count as they stand now too (send checks them again when it stores it).
   * Returns the conversation it will land in, created now for a new DM so that live views can follow it; throws the
   * refusal send would give. `recheck` checks again, for the same place and recipients, what can change before the
   * message is sent (a stream's live updates run it): the sender's send permission, the recipients' rules (a recipient
   * whose owner stops it taking messages from the sender, or takes it out of the workspace), and the audience rule.
   */
  async preview(
    input: Omit<SendInput, 'body'>,
    opts: { limits?: boolean } = {},
  ): Promise<{ conversation: Conversation; recipients: RecipientResult[]; recheck: () => Promise<void> }> {
    const { workspace: ws, sender } = input;
    const plan = await this.plan(input);
    if (!plan.targets.length && !(isAudience(plan.conversation) && !plan.results.length)) {
      if (!plan.results.length)
        throw invalidInput('Nobody else is in that conversation to receive the message; name recipients with `to`.');
      throw nobodyReceives(plan.results);
    }
    const spec = plan.conversation ? null : this.dmSpec(ws, sender, plan.targets);
    let conversation = plan.conversation ?? (await this.store.messages.findConversation(ws.id, spec!.key));
    if (opts.limits) {
      const now = this.clock.now();
      const org = (await this.store.orgs.get(ws.orgId))!;
      const sent = conversation
        ? await this.store.messages.sentSince(
            sender.id,
            conversation.id,
            new Date(now.getTime() - this.rateLimit.windowMs),
            this.rateLimit.max,
          )
        : 0;
      await this.assertWithinLimits(
        sent,
        () => this.store.orgs.usage(org.id, usageMonth(now)),
        planLimits(org.plan, org.licensedMessages),
        Math.max(1, plan.targets.length),
        now,
      );
    }
    conversation ??= await this.store.messages.conversation(spec!);
    const recheck = async () => {
      // The directory comes from the read cache until a membership or a role changes: no statement while none does.
      const [me, directory] = await Promise.all([
        this.standing(input),
        plan.targets.length ? this.agents.directory(ws) : [],
      ]);
      if (plan.targets.length) {
        const results = plan.targets.map((t) => {
          const to = plan.results.find((r) => r.agent_id === t.agent.id)?.to ?? label(t.agent);
          const now = directory.find((d) => d.agent.id === t.agent.id);
          const refusal = now
            ? refusalFor(me, now, plan.chain.hop)
            : { rule: 'unknown_recipient' as const, reason: `${to} is no longer in this workspace.` };
          return recipientResult(to, t.agent.id, refusal);
        });
        // As send: the message goes ahead while anyone still takes it.
        if (results.every((r) => r.status === 'refused')) throw nobodyReceives(results);
      }
      if (plan.audience) await this.audiences?.checkPost(sender, ws, plan.audience);
    };
    return { conversation, recipients: plan.results, recheck };
  }

  /** The sender's standing in the workspace (a guest's is a person agent's); refused without the send permission. */
  private async standing(input: Omit<SendInput, 'body'>): Promise<WorkspaceAgent> {
    const me = input.asGuest
      ? { agent: input.sender, permissions: { ...PERSON_AGENT_PERMISSIONS }, ownerRole: 'viewer' as const }
      : await this.agents.member(input.sender, input.workspace);
    if (!me.permissions.send)
      throw notPermitted('You do not have the send permission in this workspace; ask your owner to grant it.');
    return me;
  }

  /**
   * The refusal of the rate limit or of the plan's monthly count, from counts the caller read (send: in the statement
   * that would have stored the message; a stream's start: before anything is written). `usage` is read only when needed.
   */
  private async assertWithinLimits(
    sentSince: number,
    usage: () => Promise<number>,
    limits: Plan,
    counted: number,
    now: Date,
  ): Promise<void> {
    if (sentSince >= this.rateLimit.max) throw rateLimited(this.rateLimit, sentSince, this.rateLimit.windowMs);
    assertMessagesAllowed(limits, await usage(), counted, now);
  }

  private dmSpec(ws: Workspace, sender: Agent, targets: WorkspaceAgent[]) {
    return {
      workspaceId: ws.id,
      kind: 'dm' as const,
      key: dmKey([sender.id, ...targets.map((t) => t.agent.id)]),
      title: [sender, ...targets.map((t) => t.agent)].map(label).join(', '),
    };
  }

  /** Nobody accepted the message: tells the asker when the hop limit stopped it, and says who refused. */
  private async refuseAll(input: Omit<SendInput, 'body'>, plan: SendPlan): Promise<SendResult> {
    if (plan.hopRefused && plan.chain.askerPersonId)
      await this.tellChainStopped(input.workspace, input.sender, plan.chain.askerPersonId, plan.chain.chainId);
    if (!plan.results.length)
      throw invalidInput('Nobody else is in that conversation to receive the message; name recipients with `to`.');
    return { message: null, conversation: plan.conversation, recipients: plan.results };
  }

  /** Who receives the message and where, with every rule but the plan's count applied; throws a refusal for the whole message. */
  private async plan(input: Omit<SendInput, 'body'>): Promise<SendPlan> {
    const { workspace: ws, sender } = input;
    const [me, directory] = await Promise.all([this.standing(input), input.directory ?? this.agents.directory(ws)]);
    // Who is in a conversation, read once per plan: several rules below ask.
    const known = new Map<string, Promise<string[]>>();
    const participantsOf = (id: string) => {
      let ids = known.get(id);
      if (!ids) known.set(id, (ids = this.store.messages.participants(id)));
      return ids;
    };

    let conversation = input.conversation ?? null;
    if (!conversation && input.conversationId) {
      const unknown = new SwitchboardError(
        'NOT_FOUND',
        `There is no conversation ${input.conversationId} in this workspace; use the conversation id of a message you received.`,
      );
      conversation = await this.store.messages.getConversation(ws.id, input.conversationId);
      if (!conversation) throw unknown;
      // Monitoring lets an agent read everything, never speak where it was not invited. An agent that cannot see the
      // conversation at all (neither in it, nor a listener of it, nor a monitor) is answered as for an unknown id, so a
      // refusal never tells it which conversations exist.
      await this.assertParticipant(sender, conversation, participantsOf, me.permissions.monitor ? null : unknown);
    }

    let parent: Message | null = null;
    if (input.replyTo) {
      parent = await this.store.messages.get(ws.id, input.replyTo);
      if (!parent || !(await this.store.messages.involves(sender.id, parent.id))) {
        throw new SwitchboardError(
          'NOT_FOUND',
          `There is no message ${input.replyTo} that you sent or received in this workspace.`,
        );
      }
      if (conversation && parent.conversationId !== conversation.id) {
        throw invalidInput(
          `Message ${input.replyTo} belongs to another conversation; pass its own conversation id, or leave \`conversation\` out.`,
        );
      }
      if (!conversation) {
        conversation = await this.store.messages.getConversation(ws.id, parent.conversationId);
        // A message an agent only overheard does not let it speak in that channel.
        if (conversation) await this.assertParticipant(sender, conversation, participantsOf, null);
      }
    }

    // The parent decides the chain: what the agent answers, else what it received last.
    if (!parent && sender.kind === 'agent') {
      if (conversation) parent = await this.store.messages.latestReceived(sender.id, conversation.id);
      parent ??= await this.store.messages.latestReceivedSince(
        sender.id,
        ws.id,
        new Date(this.clock.now().getTime() - CHAIN_WINDOW_MS),
      );
    }
    // An agent's answer to a message written in Slack or Teams at the top of a bridged channel goes in its thread, as
    // it would on that side (the mirrors put it in that message's thread there).
    if (conversation && parent && sender.kind === 'agent')
      conversation = await answerPlace(this.store, this.notifier, parent, conversation);

    // Candidates: named ones, or everyone else in the conversation — but agents only in a
    // two-party DM, because agents answer other agents only when addressed.
    const entries: Array<{ to: string; w?: WorkspaceAgent; refusal?: { rule: RefusalRule; reason: string } }> = [];
    const seen = new Set<string>();
    const push = (w: WorkspaceAgent, to: string) => {
      if (!seen.has(w.agent.id)) {
        seen.add(w.agent.id);
        entries.push({ to, w });
      }
    };
    for (const w of input.recipients ?? []) push(w, label(w.agent));
    for (const name of input.to ?? []) {
      try {
        push(resolveOne(directory, name), name);
      } catch (e) {
        if (!(e instanceof SwitchboardError)) throw e;
        entries.push({
          to: name,
          refusal: {
            rule: e.code === 'INVALID_INPUT' ? 'ambiguous_recipient' : 'unknown_recipient',
            reason: e.message,
          },
        });
      }
    }
    if (!input.to?.length && !input.recipients && conversation) {
      const ids = await participantsOf(conversation.id);
      const isDm = conversation.kind === 'dm' && ids.length <= 2;
      for (const w of directory) {
        if (ids.includes(w.agent.id) && w.agent.id !== sender.id && (w.agent.kind === 'person' || isDm))
          push(w, label(w.agent));
      }
    }
    if (!entries.length && !conversation)
      throw invalidInput(
        'Say who the message is for: give `to` (agent names or person handles) or a `conversation` id to reply in.',
      );
    // A conversation is never widened by naming someone: in a DM (or a thread of one) only those in it are written to,
    // and a Slack or Teams thread takes in no person who is not in it (who would then read it in the web chat).
    const members = conversation ? await this.privateMembers(ws, conversation, input.surface, participantsOf) : null;
    if (members) {
      for (const e of entries) {
        if (!e.w || e.refusal || members.ids.has(e.w.agent.id) || (members.agentsMayJoin && e.w.agent.kind === 'agent'))
          continue;
        e.refusal = {
          rule: 'not_in_conversation',
          reason: `${e.to} is not in this conversation, and writing to them here would show them what was said in it; write to them without \`conversation\` (or \`reply_to\`) to start a conversation of your own.`,
        };
      }
    }

    const chain = chainPosition({
      sender,
      parent,
      newChainId: randomUUID(),
      asGuest: input.asGuest,
      askerIdentityId: input.askerIdentityId,
    });

    const results: RecipientResult[] = [];
    const targets: WorkspaceAgent[] = [];
    for (const e of entries) {
      const refusal = e.refusal ?? refusalFor(me, e.w!, chain.hop);
      results.push(recipientResult(e.to, e.w?.agent.id ?? null, refusal));
      if (!refusal) targets.push(e.w!);
    }
    const hopRefused = results.some((r) => r.rule === 'hop_limit');

    // An external thread (Slack, Teams) is itself an audience, so a reply there needs no named recipient.
    let audience: PostTarget | null = null;
    if (targets.length || (isAudience(conversation) && !results.length)) {
      // Private content an agent read is never posted where a wider audience would see it: the conversation's, and
      // whoever the message brings into it. (Only agents are held to what they read: a person's message costs no lookup here.)
      audience = conversation ? { conversation } : { agents: [sender, ...targets.map((t) => t.agent)] };
      if (conversation && targets.length && sender.kind === 'agent' && this.audiences) {
        const inIt = await participantsOf(conversation.id);
        const joining = targets.filter((t) => !inIt.includes(t.agent.id)).map((t) => t.agent);
        if (joining.length) audience = { conversation, joining };
      }
      await this.audiences?.checkPost(sender, ws, audience);
    }
    return { conversation, parent, chain, results, targets, hopRefused, directory, audience };
  }

  /**
   * Who may be written to in a conversation that only its members read: a DM (or a thread hanging off one) and its
   * participants; a Slack or Teams thread written to from elsewhere (an agent, the web chat), where agents named join
   * (that is how a thread brings one in) but people do not. Null for channels and their threads, which members and
   * mentions reach, and for a message from the thread's own chat app, whose people are its readers already.
   */
  private async privateMembers(
    ws: Workspace,
    c: Conversation,
    from: SurfaceName | undefined,
    participantsOf: (id: string) => Promise<string[]>,
  ): Promise<{ ids: Set<string>; agentsMayJoin: boolean } | null> {
    const dm =
      c.kind === 'dm'
        ? c
        : c.kind === 'thread' && c.parentId
          ? await this.store.messages.getConversation(ws.id, c.parentId)
          : null;
    if (dm?.kind === 'dm') return { ids: new Set(await participantsOf(dm.id)), agentsMayJoin: false };
    if (isExternal(c) && from !== c.surface) return { ids: new Set(await participantsOf(c.id)), agentsMayJoin: true };
    return null;
  }

  /** Stores the planned message with its deliveries and its outbox post, then wakes its readers. */
  private async commit(input: SendInput, body: string, plan: SendPlan): Promise<SendResult> {
    const { workspace: ws, sender } = input;
    const { parent, chain, results, targets, hopRefused } = plan;
    // A DM written before is found first (one read), so the message can be stored alone; a new one is created with it.
    const conversation =
      plan.conversation ?? (await this.store.messages.findConversation(ws.id, this.dmSpec(ws, sender, targets).key));
    const now = this.clock.now();
    const counted = Math.max(1, targets.length);
    // A message into an external thread is posted there by the job its surface registered, never inline.
    const postTopic =
      conversation && isExternal(conversation) && input.surface !== conversation.surface
        ? this.postTopicOf(conversation.surface)
        : null;
    if (conversation && isExternal(conversation) && input.surface !== conversation.surface && !postTopic) {
      throw new SwitchboardError(
        'UNAVAILABLE',
        `This conversation is held in ${conversation.surface}, which this Switchboard is not set up for, so nothing could be posted there; configure it and send again.`,
      );
    }
    // Read before the transaction, where they may come from the read cache: the plan, and who overhears the message.
    const org = (await this.store.orgs.get(ws.orgId))!;
    const recipientIds = targets.map((t) => t.agent.id);
    let overheard = conversation
      ? await this.overhearers(ws, conversation, plan.directory, [sender.id, ...recipientIds])
      : [];
    const limits = planLimits(org.plan, org.licensedMessages);
    const gate: SendGate = {
      externalId: input.externalId ?? null,
      since: new Date(now.getTime() - this.rateLimit.windowMs),
      rateMax: this.rateLimit.max,
      count: { orgId: org.id, month: usageMonth(now), n: counted, limit: Math.min(limits.messagesPerMonth, MAX_INT) },
    };
    // The statement that stores the message also checks it (redelivery, rate, plan) and counts it, which locks the
    // organization's usage row until it commits: alone, it is its own transaction; with more to write (the DM
    // conversation, bridged channels' mirrors, the post to an external thread) they share one.
    const write = async (tx: Store) => {
      const conv = conversation ?? (await tx.messages.conversation(this.dmSpec(ws, sender, targets)));
      if (!conversation) overheard = await this.overhearers(ws, conv, plan.directory, [sender.id, ...recipientIds]);
      const posted = await tx.messages.post(
        {
          ...(input.id ? { id: input.id } : {}),
          workspaceId: ws.id,
          conversationId: conv.id,
          senderId: sender.id,
          body,
          replyTo: parent?.id ?? null,
          ...chain,
          surface: input.surface ?? 'mcp',
          permalink: input.permalink ?? null,
          externalId: input.externalId ?? null,
          createdAt: now,
        },
        { participants: [sender.id, ...recipientIds], deliverTo: recipientIds, overheard },
        gate,
      );
      // A chat message handled again (Slack's redelivery, a retried inbound job) was stored the first time.
      if (posted.earlier) return { message: posted.earlier, conversation: conv, again: true };
      const { message } = posted;
      if (!message) {
        // Refused by the rate limit or the plan: the usage as it is now (the statement waited for other senders' counts) says by how much.
        await this.assertWithinLimits(
          posted.sentSince,
          () => tx.orgs.usage(org.id, gate.count.month),
          limits,
          counted,
          now,
        );
        throw new SwitchboardError(
          'UNAVAILABLE',
          'The message was not stored although it passed every check; send it again.',
        );
      }
      // Bridged channels: mirrored to every other side, in this transaction so none is lost.
      const mirrors = await queueMirrors(tx, message, conv);
      if (postTopic) {
        const live = input.livePost ? { live: input.livePost } : {};
        await tx.outbox.add({
          topic: postTopic,
          payload: { messageId: message.id, workspaceId: ws.id, conversationId: conv.id, ...live },
          orderingKey: postOrderingKey(conv),
        });
      }
      return { message, conversation: conv, again: false, overheard, queued: mirrors > 0 || Boolean(postTopic) };
    };
    const alone = conversation !== null && !postTopic && !(await hasBridges(this.store, conversation));
    const stored = alone ? await write(this.store) : await this.store.transaction(write);
    if (stored.again) return { message: stored.message, conversation: stored.conversation, recipients: results };
    // The queue looks for new jobs only when this message queued some (a claim is a statement).
    if (stored.queued) this.afterCommit();
    for (const fn of this.onSent) fn(stored.message);
    await this.notifier.publish(
      [
        ...[...recipientIds, ...(stored.overheard ?? [])].map(inboxTopic),
        conversationTopic(stored.conversation.id),
        writerTopic(stored.message.senderId, stored.conversation.id),
      ],
      stored.message.id,
    );
    if (hopRefused && chain.askerPersonId) await this.tellChainStopped(ws, sender, chain.askerPersonId, chain.chainId);
    return { message: stored.message, conversation: stored.conversation, recipients: results };
  }

  /**
   * The listening step: agents listening to the conversation's channel (see
   * listening/) get the message flagged overheard. It is not addressed to
   * them: it opens no chain for them, counts toward no plan or hop limit, and
   * does not make them participants (they speak there only once mentioned).
   */
  private async overhearers(
    ws: Workspace,
    conv: Conversation,
    directory: WorkspaceAgent[],
    exclude: string[],
  ): Promise<string[]> {
    if (!this.listening) return [];
    return this.listening.overhearers(this.store, ws, conv, new Set(exclude), receiversOf(directory));
  }

  /**
   * Refuses an agent that is not part of a conversation, with why: it only overheard it as a listener, or it sees it
   * (a monitor, a message it received) without being in it; `unseen` is the refusal when it cannot see it at all.
   */
  private async assertParticipant(
    sender: Agent,
    conversation: Conversation,
    participantsOf: (id: string) => Promise<string[]>,
    unseen: SwitchboardError | null,
  ) {
    if ((await participantsOf(conversation.id)).includes(sender.id)) return;
    if (await this.store.messages.overheardIn(sender.id, conversation.id)) {
      throw notPermitted(
        'You only overheard that conversation as a listener of its channel, and listening agents speak in a channel only where someone mentioned them; ' +
          'wait to be mentioned there, or write to the person with `to`.',
        { reason: 'overheard_only' },
      );
    }
    if (unseen) throw unseen;
    throw notPermitted(
      'You are not part of that conversation; you can reply only where you sent or received a message. Name recipients with `to` instead.',
    );
  }

  /** Tells the person who started a chain, once per chain, that it stopped at the hop limit. */
  private async tellChainStopped(ws: Workspace, sender: Agent, personId: string, chainId: string) {
    const personAgent = await this.store.agents.personAgent(personId);
    if (!personAgent || !(await this.store.firstSeen('hop-limit', chainId))) return;
    const body =
      `Switchboard stopped a chain of agent-to-agent messages started by your request after ${HOP_LIMIT} hops (last sender: ${label(sender)}). ` +
      'Reply to the agents if you want them to continue.';
    const message = await this.store.transaction(async (tx) => {
      const conv = await tx.messages.conversation({
        workspaceId: ws.id,
        kind: 'dm',
        key: dmKey([sender.id, personAgent.id]),
        title: [sender, personAgent].map(label).join(', '),
      });
      return (
        await tx.messages.post(
          {
            workspaceId: ws.id,
            conversationId: conv.id,
            senderId: sender.id,
            body,
            replyTo: null,
            chainId,
            hop: HOP_LIMIT + 1,
            askerPersonId: personId,
            askerIdentityId: null,
            surface: 'mcp',
            createdAt: this.clock.now(),
          },
          { participants: [sender.id, personAgent.id], deliverTo: [personAgent.id] },
        )
      ).message;
    });
    await this.notifier.publish(inboxTopic(personAgent.id), message.id);
  }

  /**
   * Puts a notice from Switchboard (`from`, the system agent) in an agent's
   * inbox, e.g. a post a chat platform refused for good. It needs no permission
   * and counts against no plan; all notices of one `topic` share a conversation.
   */
  async notice(ws: Workspace, from: Agent, to: Agent, body: string, topic = 'notices'): Promise<Message> {
    const message = await this.store.transaction(async (tx) => {
      const conv = await tx.messages.conversation({
        workspaceId: ws.id,
        kind: 'dm',
        key: `${topic}:${to.id}`,
        title: `${from.displayName} notices`,
      });
      return (
        await tx.messages.post(
          {
            workspaceId: ws.id,
            conversationId: conv.id,
            senderId: from.id,
            body,
            replyTo: null,
            chainId: randomUUID(),
            hop: 0,
            askerPersonId: null,
            askerIdentityId: null,
            surface: 'mcp',
            createdAt: this.clock.now(),
          },
          { participants: [from.id, to.id], deliverTo: [to.id] },
        )
      ).message;
    });
    await this.notifier.publish(inboxTopic(to.id), message.id);
    return message;
  }
}
