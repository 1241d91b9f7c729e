// Approval cards in the web chat: the approvals asked in a conversation, the
// ones waiting for the signed-in person (their inbox), one card, and the
// decision a person posts from a card. Mounted inside the workspace router of
// the chat API, so every route has a session and every POST the CSRF token.
import express, { type Response, type Router } from 'express';
import { z } from 'zod';
import type { App } from '../../app.ts';
import { refusalToDecide } from '../../core/approvals/rules.ts';
import type { Approval } from '../../core/approvals/types.ts';
import type { Viewer } from '../../core/chat/access.ts';
import type { ChatService } from '../../core/chat/chat-service.ts';
import type { ApprovalCard } from '../../core/chat/views.ts';
import { notFound } from '../../core/errors.ts';
import { qualifiedName } from '../../core/types.ts';
import { parseInput } from '../../http/input.ts';

export type { ApprovalCard };

/** The prefix the approval service publishes on conversation and inbox topics (`approval:<id>`). */
export const APPROVAL_PAYLOAD = 'approval:';

const decision = z.object({
  decision: z.enum(['approve', 'reject'], { message: 'decision must be "approve" or "reject"' }),
  reason: z.string().trim().max(1000, 'a reason holds at most 1000 characters').optional(),
});
const uuid = z.string().uuid({ message: 'must be an id taken from the chat' });

const parse = parseInput;

/** Builds cards for one viewer. */
export class ApprovalCards {
  constructor(
    private readonly app: App,
    private readonly chat: ChatService,
  ) {}

  async card(v: Viewer, a: Approval): Promise<ApprovalCard> {
    const { store, approvals } = this.app;
    const [agent, approverIds, outcome, decidedBy, guest] = await Promise.all([
      store.agents.get(a.agentId),
      approvals.approversOf(a),
      approvals.outcome(a),
      approvals.deciderHandle(a),
      approvals.guestAsker(a),
    ]);
    const people = await Promise.all(approverIds.map((id) => store.people.get(id)));
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
    const a = await this.app.store.approvals.get(v.workspace.id, id);
    if (!a) return null;
    if (a.conversationId) {
      const c = await this.app.store.messages.getConversation(v.workspace.id, a.conversationId);
      if (c && (await this.chat.access.canSee(v, c))) return a;
    }
    if ((await this.app.approvals.approversOf(a)).includes(v.person.id)) return a;
    return (await this.app.store.agents.get(a.agentId))?.ownerId === v.person.id ? a : null;
  }

  /** The card for a published `approval:<id>`, or null when this viewer may not see it (for the event stream). */
  async forPayload(v: Viewer, payload: string): Promise<ApprovalCard | null> {
    const id = payload.slice(APPROVAL_PAYLOAD.length);
    const a = uuid.safeParse(id).success ? await this.visible(v, id) : null;
    return a ? this.card(v, a) : null;
  }

  async inConversation(v: Viewer, conversationId: string) {
    const c = await this.chat.access.conversation(v, conversationId);
    return Promise.all(
      (await this.app.store.approvals.listForConversation(v.workspace.id, c.id)).map((a) => this.card(v, a)),
    );
  }

  /** Pending approvals this person may decide: their inbox's approval items. */
  async waitingFor(v: Viewer) {
    const cards = await Promise.all(
      (await this.app.store.approvals.listPending(v.workspace.id)).map((a) => this.card(v, a)),
    );
    return cards.filter((c) => c.canDecide);
  }
}

/** The card builder over an app's services (it keeps no state of its own). */
export const approvalCards = (app: App, chat: ChatService): ApprovalCards => new ApprovalCards(app, chat);

const viewerOf = (res: Response) => res.locals.viewer as Viewer;

/** `GET /approvals[?conversation=ID]`, `GET /approvals/:id`, `POST /approvals/:id/decision` inside `/api/chat/w/:workspace`. */
export function approvalRoutes(app: App, chat: ChatService): Router {
  const cards = approvalCards(app, chat);
  const r = express.Router({ mergeParams: true });

  r.get('/approvals', async (req, res) => {
    const v = viewerOf(res);
    const conversation = req.query.conversation;
    res.json({
      approvals:
        conversation === undefined
          ? await cards.waitingFor(v)
          : await cards.inConversation(v, parse(uuid, conversation)),
    });
  });

  r.get('/approvals/:id', async (req, res) => {
    const v = viewerOf(res);
    const a = await cards.visible(v, parse(uuid, req.params.id));
    if (!a) throw notFound(`The approval ${req.params.id}`, 'It may belong to a conversation you cannot see.');
    res.json({ approval: await cards.card(v, a) });
  });

  r.post('/approvals/:id/decision', async (req, res) => {
    const v = viewerOf(res);
    const a = await cards.visible(v, parse(uuid, req.params.id));
    if (!a) throw notFound(`The approval ${req.params.id}`, 'It may belong to a conversation you cannot see.');
    const body = parse(decision, req.body);
    const settled = await app.approvals.decide({
      approvalId: a.id,
      workspaceId: v.workspace.id,
      decision: body.decision === 'approve' ? 'approved' : 'rejected',
      decider: { personId: v.person.id, role: v.role },
      via: 'web',
      reason: body.reason,
    });
    res.json({ approval: await cards.card(v, settled) });
  });

  return r;
}
