import { randomUUID } from 'node:crypto';
import type { AgentService } from '../agents/agent-service.ts';
import { viaFrom } from '../channels/origin.ts';
import { answerPlace } from '../channels/thread-of.ts';
import { conflict, invalidInput, notFound, notPermitted, SwitchboardError } from '../errors.ts';
import { conversationTopic, inboxTopic } from '../messaging/messaging-service.ts';
import type { Conversation } from '../messaging/message.ts';
import type { AudienceService } from '../linking/audience-service.ts';
import type { OrgService } from '../organizations/org-service.ts';
import type { Clock, Notifier, Store } from '../ports.ts';
import { qualifiedName, WEB_CHAT, type Agent, type SurfaceName, type Workspace } from '../entities.ts';
import { NOT_LINKED, outcomeLine, refusalToDecide, type Decider, type GuestAsker } from './rules.ts';
import type { Approval, ApprovalView, Decision } from './approval.ts';

/** Topic for live views of one approval (web cards). */
export const approvalTopic = (id: string) => `approval:${id}`;

/** Topic of the job that shows a new approval on a chat surface (`<surface>.approval.show`). */
export const approvalShowTopic = (surface: SurfaceName) => `${surface}.approval.show`;

/** Topic of the job that updates a surface's shown approval cards once it is settled (`<surface>.approval.update`). */
export const approvalUpdateTopic = (surface: SurfaceName) => `${surface}.approval.update`;

/** A notice put in inboxes: where it went, and to whom. */
interface Notice {
  conversationId: string;
  messageId: string;
  to: string[];
}

/** A person's decision as a surface reports it. */
export interface DecisionInput {
  approvalId: string;
  workspaceId: string;
  decision: Decision;
  decider: Decider;
  via: SurfaceName;
  reason?: string;
}

export interface ApprovalOptions {
  /** Surfaces that show approvals through the outbox (`approvalShowTopic` / `approvalUpdateTopic`). */
  surfaces: () => SurfaceName[];
  /** Remind approvers after this long without a decision; 0 for never. */
  reminderMs?: number;
  /** A chat app's name as its surface registered it ("Slack"), for where an approval was decided. */
  labelOf?: (surface: SurfaceName) => string | undefined;
  /** The audience rule: what an agent read is never shown, here in a request's details, to a wider audience. */
  audiences?: Pick<AudienceService, 'checkPost'>;
}

/**
 * Approvals: stored first, then shown everywhere through the outbox; the first
 * permitted decision settles it with one conditional update, and every view follows.
 */
export class ApprovalService {
  constructor(
    private readonly store: Store,
    private readonly orgs: OrgService,
    private readonly agents: AgentService,
    private readonly notifier: Notifier,
    private readonly clock: Clock,
    private readonly opts: ApprovalOptions,
    private readonly afterCommit: () => void = () => {},
  ) {}

  async request(
    agent: Agent,
    ws: Workspace,
    input: { title: string; details: string; conversationId?: string; approvers?: string[]; expiresInSeconds?: number },
  ) {
    await this.agents.member(agent, ws);
    const approvers: string[] = [];
    for (const handle of input.approvers ?? []) {
      const p = await this.store.people.get(handle.replace(/^@/, ''));
      if (!p || !(await this.orgs.roleIn(p.id, ws))) {
        throw invalidInput(
          `"${handle}" is not a person who can reach this workspace; approvers are person handles (call list_agents: kind "person").`,
        );
      }
      // The same person named twice (bob, @bob) is asked once.
      if (!approvers.includes(p.id)) approvers.push(p.id);
    }
    let askerPersonId: string | null = agent.ownerId;
    let askerIdentityId: string | null = null;
    let conversation = input.conversationId
      ? await this.store.messages.getConversation(ws.id, input.conversationId)
      : null;
    if (input.conversationId) {
      if (!conversation || !(await this.store.messages.participants(conversation.id)).includes(agent.id)) {
        throw notFound(
          `The conversation ${input.conversationId}`,
          'Ask in a conversation you received a message in, or leave `conversation` out to ask approvers directly.',
        );
      }
      const last = await this.store.messages.latestReceived(agent.id, conversation.id);
      if (last) {
        askerPersonId = last.askerPersonId;
        askerIdentityId = last.askerIdentityId;
        // Asked about a Slack or Teams message at the top of a bridged channel: shown in its thread, on every side.
        conversation = await answerPlace(this.store, this.notifier, last, conversation);
      }
    }
    const now = this.clock.now();
    const expiresAt = input.expiresInSeconds ? new Date(now.getTime() + input.expiresInSeconds * 1000) : null;
    const owners = approvers.length ? approvers : await this.defaultApprovers(agent, ws);
    // Approvers are told through their person agents: read once, for the audience rule, the notices and the wake-ups.
    const approverAgents = await this.personAgentsOf(owners);
    const inboxes = approverAgents.map((p) => p.id);
    // The request (its details included) is shown in the conversation, or to the approvers: the audience rule applies as to a message.
    await this.opts.audiences?.checkPost(
      agent,
      ws,
      conversation ? { conversation } : { agents: [agent, ...approverAgents] },
    );
    const system = await this.orgs.systemAgent();
    const { a: approval, notices } = await this.store.transaction(async (tx) => {
      const a = await tx.approvals.create({
        workspaceId: ws.id,
        agentId: agent.id,
        conversationId: conversation?.id ?? null,
        title: input.title,
        details: input.details,
        approvers,
        askerPersonId,
        askerIdentityId,
        expiresAt,
      });
      for (const surface of this.opts.surfaces()) {
        await tx.outbox.add({
          topic: approvalShowTopic(surface),
          payload: { approvalId: a.id, workspaceId: ws.id },
          orderingKey: `approval:${a.id}`,
        });
      }
      if (expiresAt)
        await tx.outbox.add({
          topic: 'approval.expire',
          payload: { approvalId: a.id, workspaceId: ws.id },
          runAt: expiresAt,
        });
      if (this.opts.reminderMs) {
        await tx.outbox.add({
          topic: 'approval.remind',
          payload: { approvalId: a.id, workspaceId: ws.id },
          runAt: new Date(now.getTime() + this.opts.reminderMs),
        });
      }
      const notices = await this.notice(
        tx,
        system,
        ws,
        agent,
        inboxes,
        conversation?.id ?? null,
        `Approval requested by ${qualifiedName(agent)}: ${a.title}\n\n${a.details.trim() ? `${a.details.trim()}\n\n` : ''}(approval ${a.id})`,
      );
      await tx.audit.record({
        workspaceId: ws.id,
        agentId: agent.id,
        onBehalfOf: askerPersonId,
        action: 'request_approval',
        target: a.id,
        result: 'pending',
        details: { title: a.title },
      });
      return { a, notices };
    });
    this.afterCommit();
    await this.publishNotices(notices);
    await this.publish(approval, inboxes);
    return approval;
  }

  async get(workspaceId: string, id: string): Promise<Approval> {
    const a = await this.find(workspaceId, id);
    if (!a) throw notFound(`The approval ${id}`, 'Use the approval_id that request_approval returned.');
    return a;
  }

  /** The approval as stored now; null when absent or in another workspace (deleted with it since, say). */
  find(workspaceId: string, id: string): Promise<Approval | null> {
    return this.store.approvals.get(workspaceId, id);
  }

  /** The agent that asked; null when it was deleted since. */
  askingAgent(a: Approval): Promise<Agent | null> {
    return this.store.agents.get(a.agentId);
  }

  /** The conversation it was asked in; null when it was asked of the approvers directly (or the conversation is gone). */
  async conversationOf(a: Approval): Promise<Conversation | null> {
    return a.conversationId ? this.store.messages.getConversation(a.workspaceId, a.conversationId) : null;
  }

  /** Where a surface showed the approval (its cards), oldest first: what its update job rewrites. */
  views(approvalId: string, surface: SurfaceName): Promise<ApprovalView[]> {
    return this.store.approvals.views(approvalId, surface);
  }

  /** Records a card a surface posted, at once, so a retried show job skips it and the update job rewrites it. */
  addView(view: ApprovalView): Promise<void> {
    return this.store.approvals.addView(view);
  }

  /** The approvals asked in a conversation, whatever their status. */
  inConversation(workspaceId: string, conversationId: string): Promise<Approval[]> {
    return this.store.approvals.listForConversation(workspaceId, conversationId);
  }

  /** The workspace's approvals still waiting for a decision. */
  pending(workspaceId: string): Promise<Approval[]> {
    return this.store.approvals.listPending(workspaceId);
  }

  /**
   * Checks a decision before it is made, as `decide` does first: the pending
   * approval when this person may decide it now; otherwise CONFLICT (saying who
   * settled it) or NOT_PERMITTED (saying why), recorded in the audit log.
   * Surfaces call it before asking for more (e.g. a reject reason in a Slack modal).
   */
  async mayDecide(input: DecisionInput): Promise<Approval> {
    const a = await this.get(input.workspaceId, input.approvalId);
    const agent = (await this.store.agents.get(a.agentId))!;
    if (a.status !== 'pending') {
      await this.auditDecision(a, input, 'refused', { why: 'already settled' });
      throw await this.alreadySettled(a);
    }
    const refusal = refusalToDecide(a, input.decider, agent.ownerId, await this.guestAsker(a));
    if (refusal) {
      await this.auditDecision(a, input, 'refused', { why: refusal });
      // The rule lets each surface say how to link its own way (its command name, its DM): SwitchboardError.withHint.
      throw !input.decider.isAgent && !input.decider.personId
        ? new SwitchboardError('NOT_PERMITTED', NOT_LINKED.reason, { rule: 'not_linked' }, NOT_LINKED.hint)
        : notPermitted(refusal, { rule: 'not_allowed' });
    }
    return a;
  }

  /** A person's decision from any surface. Exactly one decision ever wins; a late one is told who settled it. */
  async decide(input: DecisionInput) {
    const a = await this.mayDecide(input);
    const settled = await this.settle(a, {
      status: input.decision,
      decidedBy: input.decider.personId,
      decidedVia: input.via,
      reason: input.reason?.trim() || null,
    });
    if (!settled) {
      await this.auditDecision(a, input, 'refused', { why: 'lost the race' });
      throw await this.alreadySettled((await this.store.approvals.get(a.workspaceId, a.id))!);
    }
    await this.auditDecision(a, input, input.decision);
    return settled;
  }

  /** Who may decide: the approvers it names, or else the agent's owner and the workspace's owners (person ids). */
  async approversOf(a: Approval): Promise<string[]> {
    if (a.approvers.length) return a.approvers;
    const [ws, agent] = await Promise.all([this.store.workspaces.get(a.workspaceId), this.store.agents.get(a.agentId)]);
    return ws && agent ? this.defaultApprovers(agent, ws) : [];
  }

  /** The handles of who may decide (approversOf), for views; a person deleted since is left out. */
  async approverHandles(a: Approval): Promise<string[]> {
    const people = await Promise.all((await this.approversOf(a)).map((id) => this.store.people.get(id)));
    return people.flatMap((p) => (p ? [p.handle] : []));
  }

  /** The chat apps approvals are shown in besides Switchboard's own views, by the labels their surfaces registered. */
  shownIn(): string[] {
    return this.opts.surfaces().flatMap((s) => this.opts.labelOf?.(s) ?? []);
  }

  private auditDecision(a: Approval, input: DecisionInput, result: string, details: Record<string, unknown> = {}) {
    return this.store.audit.record({
      workspaceId: a.workspaceId,
      agentId: a.agentId,
      onBehalfOf: input.decider.personId,
      action: `approval.${input.decision === 'approved' ? 'approve' : 'reject'}`,
      target: a.id,
      result,
      details: { via: input.via, ...details },
    });
  }

  async cancel(agent: Agent, workspaceId: string, id: string) {
    const a = await this.get(workspaceId, id);
    if (a.agentId !== agent.id) throw notPermitted('Only the agent that requested an approval can cancel it.');
    if (a.status !== 'pending') throw await this.alreadySettled(a);
    const settled = await this.settle(a, { status: 'cancelled', decidedBy: null, decidedVia: null, reason: null });
    if (!settled) throw await this.alreadySettled((await this.store.approvals.get(a.workspaceId, a.id))!);
    await this.store.audit.record({
      workspaceId,
      agentId: agent.id,
      onBehalfOf: agent.ownerId,
      action: 'approval.cancel',
      target: a.id,
      result: 'cancelled',
    });
    return settled;
  }

  /** Settles an approval whose time ran out (run by the `approval.expire` job); false when it was already settled. */
  async expire(workspaceId: string, id: string): Promise<boolean> {
    const a = await this.store.approvals.get(workspaceId, id);
    if (!a || a.status !== 'pending') return false;
    const settled = await this.settle(a, { status: 'expired', decidedBy: null, decidedVia: null, reason: null });
    if (settled)
      await this.store.audit.record({
        workspaceId,
        agentId: a.agentId,
        action: 'approval.expire',
        target: a.id,
        result: 'expired',
      });
    return Boolean(settled);
  }

  /** Reminds the approvers of a still-pending approval (run by the `approval.remind` job). */
  async remind(workspaceId: string, id: string): Promise<boolean> {
    const a = await this.store.approvals.get(workspaceId, id);
    if (!a || a.status !== 'pending') return false;
    const ws = (await this.store.workspaces.get(workspaceId))!;
    const agent = (await this.store.agents.get(a.agentId))!;
    const approvers = a.approvers.length ? a.approvers : await this.defaultApprovers(agent, ws);
    const inboxes = (await this.personAgentsOf(approvers)).map((p) => p.id);
    const system = await this.orgs.systemAgent();
    const notices = await this.store.transaction((tx) =>
      this.notice(
        tx,
        system,
        ws,
        agent,
        inboxes,
        a.conversationId,
        `Reminder: ${qualifiedName(agent)} is still waiting for a decision on “${a.title}” (approval ${a.id}).`,
      ),
    );
    await this.publishNotices(notices);
    await this.publish(a, inboxes);
    return true;
  }

  /** For a request a guest made: the person their chat account is linked to now, who may not decide it either. */
  async guestAsker(a: Approval): Promise<GuestAsker> {
    if (a.askerPersonId || !a.askerIdentityId) return { linkedPersonId: null };
    return { linkedPersonId: (await this.store.identities.get(a.askerIdentityId))?.personId ?? null };
  }

  /** The handle of whoever decided (for views), or null. */
  async deciderHandle(a: Approval) {
    return a.decidedBy ? ((await this.store.people.get(a.decidedBy))?.handle ?? null) : null;
  }

  async outcome(a: Approval) {
    return outcomeLine(a, await this.deciderHandle(a), this.where);
  }

  private readonly via = viaFrom((surface) => this.opts.labelOf?.(surface));

  /** Where a decision was made, as people call it: "Slack", "the web chat" (a chat app not built here: its name, capitalised). */
  private readonly where = (via: SurfaceName) => {
    const app = this.via(via);
    return app === null
      ? via === WEB_CHAT
        ? 'the web chat'
        : 'an MCP client'
      : `${app.charAt(0).toUpperCase()}${app.slice(1)}`;
  };

  private async alreadySettled(a: Approval) {
    return conflict(`This approval was already settled: ${await this.outcome(a)}.`, {
      status: a.status,
      approval_id: a.id,
    });
  }

  private async settle(a: Approval, change: Pick<Approval, 'status' | 'decidedBy' | 'decidedVia' | 'reason'>) {
    const ws = (await this.store.workspaces.get(a.workspaceId))!;
    const agent = (await this.store.agents.get(a.agentId))!;
    const system = await this.orgs.systemAgent();
    let notices: Notice[] = [];
    const settled = await this.store.transaction(async (tx) => {
      const s = await tx.approvals.settle(a.id, { ...change, decidedAt: this.clock.now() });
      if (!s) return null;
      for (const surface of this.opts.surfaces()) {
        await tx.outbox.add({
          topic: approvalUpdateTopic(surface),
          payload: { approvalId: a.id, workspaceId: a.workspaceId },
          orderingKey: `approval:${a.id}`,
        });
      }
      const line = outcomeLine(
        s,
        s.decidedBy ? ((await tx.people.get(s.decidedBy))?.handle ?? null) : null,
        this.where,
      );
      if (change.status !== 'cancelled') {
        notices = await this.notice(
          tx,
          system,
          ws,
          null,
          [agent.id],
          a.conversationId,
          `Approval ${a.id} “${a.title}”: ${line}.`,
        );
      }
      return s;
    });
    if (!settled) return null;
    this.afterCommit();
    await this.publishNotices(notices);
    // Approvers' inboxes (web cards) follow too, not only the conversation and the agent.
    await this.publish(settled, [
      ...(await this.personAgentsOf(await this.approversOf(settled))).map((p) => p.id),
      agent.id,
    ]);
    return settled;
  }

  /** Owners of the agent and of the workspace: who decides when the request names nobody. */
  private async defaultApprovers(agent: Agent, ws: Workspace) {
    const people = await this.store.workspaces.reachablePeople(ws);
    const ids = people.filter((p) => p.role === 'owner').map((p) => p.person.id);
    return [...new Set([agent.ownerId, ...ids])];
  }

  /**
   * Puts a notice in the inboxes of `recipients` (agent ids: approvers' person agents, or the asking agent).
   * Sent by Switchboard itself, so it counts against no plan.
   * In the approval's conversation when it has one, to those already in it; everyone else gets it in a DM of their
   * own with Switchboard and the asking agent (so nobody reads what was asked of others, and an approver never joins
   * a conversation, a person's DM say, they were not in). Returns what to publish.
   */
  private async notice(
    tx: Store,
    system: Agent,
    ws: Workspace,
    about: Agent | null,
    recipients: string[],
    conversationId: string | null,
    body: string,
  ): Promise<Notice[]> {
    if (!recipients.length) return [];
    const post = async (conversation: { id: string }, to: string[], participants: string[]): Promise<Notice> => {
      const { message: m } = await tx.messages.post(
        {
          workspaceId: ws.id,
          conversationId: conversation.id,
          senderId: system.id,
          body,
          replyTo: null,
          chainId: randomUUID(),
          hop: 0,
          askerPersonId: null,
          askerIdentityId: null,
          surface: 'mcp',
          createdAt: this.clock.now(),
        },
        { participants, deliverTo: to },
      );
      return { conversationId: conversation.id, messageId: m.id, to };
    };
    const out: Notice[] = [];
    let apart = recipients;
    if (conversationId) {
      const inIt = new Set(await tx.messages.participants(conversationId));
      const there = recipients.filter((r) => inIt.has(r));
      apart = recipients.filter((r) => !inIt.has(r));
      if (there.length) out.push(await post((await tx.messages.getConversation(ws.id, conversationId))!, there, there));
    }
    if (!apart.length) return out;
    if (!about) {
      return [
        ...out,
        await post(
          await tx.messages.conversation({
            workspaceId: ws.id,
            kind: 'dm',
            key: `notices:${apart.join(',')}`,
            title: 'Approvals',
          }),
          apart,
          apart,
        ),
      ];
    }
    for (const r of apart) {
      const conv = await tx.messages.conversation({
        workspaceId: ws.id,
        kind: 'dm',
        key: `approvals:${about.id}:${r}`,
        title: 'Approvals',
      });
      out.push(await post(conv, [r], [system.id, about.id, r]));
    }
    return out;
  }

  /** Live wake-ups for notices once committed: their conversation, and each recipient's inbox. */
  private async publishNotices(notices: Notice[]) {
    await Promise.all(
      notices.flatMap((n) => [
        this.notifier.publish(conversationTopic(n.conversationId), n.messageId),
        ...n.to.map((id) => this.notifier.publish(inboxTopic(id), n.messageId)),
      ]),
    );
  }

  /** Live wake-ups for an approval's views: its own, its conversation's, and the inboxes (agent ids) that show its card. */
  private async publish(a: Approval, inboxes: string[]) {
    await Promise.all([
      this.notifier.publish(approvalTopic(a.id), a.status),
      ...(a.conversationId ? [this.notifier.publish(conversationTopic(a.conversationId), `approval:${a.id}`)] : []),
      ...inboxes.map((id) => this.notifier.publish(inboxTopic(id), `approval:${a.id}`)),
    ]);
  }

  /** The person agents of people (those that have one), in the order given. */
  private async personAgentsOf(personIds: string[]): Promise<Agent[]> {
    return (await Promise.all(personIds.map((p) => this.store.agents.personAgent(p)))).flatMap((a) => (a ? [a] : []));
  }
}
