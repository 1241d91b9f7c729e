// Approval cards in the web chat: the approvals asked in a conversation, the
// ones waiting for the signed-in person (their inbox), one card, and the
// decision a person posts from a card. Mounted inside the workspace router of
// the chat API, so every route has a session and every POST the CSRF token.
import express, { type Response, type Router } from 'express';
import { z } from 'zod';
import type { Viewer } from '../../core/channels/access.ts';
import { notFound } from '../../core/errors.ts';
import { parseInput } from '../../http/input.ts';
import type { WebChat } from './context.ts';

const decision = z.object({
  decision: z.enum(['approve', 'reject'], { message: 'decision must be "approve" or "reject"' }),
  reason: z.string().trim().max(1000, 'a reason holds at most 1000 characters').optional(),
});
const uuid = z.string().uuid({ message: 'must be an id taken from the chat' });

const parse = parseInput;

const viewerOf = (res: Response) => res.locals.viewer as Viewer;

/** `GET /approvals[?conversation=ID]`, `GET /approvals/:id`, `POST /approvals/:id/decision` inside `/api/chat/w/:workspace`. */
export function approvalRoutes({ cards, core }: WebChat): Router {
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
    const settled = await core.approvals.decide({
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
