// Approval cards in the web chat: one approval as a card shows it to one
// person, whether they may see it, and the cards of a conversation or of a
// person's inbox.
import { z } from 'zod';
import type { AgentService } from '../../../core/agents/agent-service.ts';
import type { ApprovalService } from '../../../core/approvals/approval-service.ts';
import { refusalToDecide } from '../../../core/approvals/rules.ts';
import type { Approval } from '../../../core/approvals/approval.ts';
import type { Viewer } from '../../../core/channels/access.ts';
import type { ChannelService } from '../../../core/channels/channel-service.ts';
import type { OrgService } from '../../../core/organizations/org-service.ts';
import { qualifiedName } from '../../../core/entities.ts';
import type { ApprovalCard } from './views.ts';

export type { ApprovalCard };

/** The prefix the approval service publishes on conversation and inbox topics (`approval:<id>`). */
export const APPROVAL_PAYLOAD = 'approval:';

const uuid = z.string().uuid();

/** Builds cards for one viewer. */
export class ApprovalCards {
  constructor(
    private readonly core: {
      approvals: ApprovalService;
      agents: AgentService;
      orgs: OrgService;
      channels: ChannelService;
    },
  ) {}

  async card(v: Viewer, a: Approval): Promise<ApprovalCard> {
    const { approvals, agents, orgs } = this.core;
    const [agent, approverIds, outcome, decidedBy, guest] = await Promise.all([
      agents.get(a.agentId),
      approvals.approversOf(a),
      approvals.outcome(a),
      approvals.deciderHandle(a),
      approvals.guestAsker(a),
    ]);
    const people = await Promise.all(approverIds.map((id) => orgs.findPerson(id)));
    const canDecide =
      a.status === 'pending' &&
      Boolean(agent) &&
      refusalToDecide(a, { personId: v.person.id, role: v.role }, agent!.ownerId, guest) === null;
    return {
      id: a.id,
      title: a.title,
      details: a.details,
      status: a.status,
      outcome,
      agent: agent
        ? { id: agent.id, label: qualifiedName(agent), displayName: agent.displayName, avatarUrl: agent.avatarUrl }
        : { id: a.agentId, label: 'unknown', displayName: 'An agent', avatarUrl: null },
      conversationId: a.conversationId,
      approvers: people.flatMap((p) => (p ? [p.handle] : [])),
      decidedBy,
      via: a.decidedVia,
      decidedAt: a.decidedAt,
      reason: a.reason,
      expiresAt: a.expiresAt,
      createdAt: a.createdAt,
      canDecide,
    };
  }

  /** Whether the viewer may see the approval: in a conversation they can read, or as someone who may decide it, or as the agent's owner. */
  async visible(v: Viewer, id: string): Promise<Approval | null> {
    const { approvals, agents, channels } = this.core;
    const a = await approvals.find(v.workspace.id, id);
    if (!a) return null;
    if (a.conversationId && (await channels.visibleConversation(v, a.conversationId))) return a;
    if ((await approvals.approversOf(a)).includes(v.person.id)) return a;
    return (await agents.get(a.agentId))?.ownerId === v.person.id ? a : null;
  }

  /** The card for a published `approval:<id>`, or null when this viewer may not see it (for the event stream). */
  async forPayload(v: Viewer, payload: string): Promise<ApprovalCard | null> {
    const id = payload.slice(APPROVAL_PAYLOAD.length);
    const a = uuid.safeParse(id).success ? await this.visible(v, id) : null;
    return a ? this.card(v, a) : null;
  }

  async inConversation(v: Viewer, conversationId: string) {
    const c = await this.core.channels.access.conversation(v, conversationId);
    return Promise.all((await this.core.approvals.inConversation(v.workspace.id, c.id)).map((a) => this.card(v, a)));
  }

  /** Pending approvals this person may decide: their inbox's approval items. */
  async waitingFor(v: Viewer) {
    const cards = await Promise.all((await this.core.approvals.pending(v.workspace.id)).map((a) => this.card(v, a)));
    return cards.filter((c) => c.canDecide);
  }
}
