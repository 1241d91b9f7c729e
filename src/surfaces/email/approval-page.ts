// The page an approval mail's links open. `GET /email/approvals/<workspace>/<id>?decision=approve|reject` shows the
// approval and asks to confirm; only the POST of its form (with this browser's CSRF token) decides, through the
// core's approvals service, so a mail scanner that follows a link decides nothing. Both need the person signed in,
// and the core checks that they may decide, as everywhere: a link carries no secret, so a forwarded mail lets nobody
// decide who could not already. A decision here is one from email (`via: "email"`).
import express, { type Express, type Request, type Response } from 'express';
import { z } from 'zod';
import type { Approval } from '../../core/approvals/approval.ts';
import { refusalToDecide } from '../../core/approvals/rules.ts';
import type { Viewer } from '../../core/channels/access.ts';
import { qualifiedName, type Agent } from '../../core/entities.ts';
import { isSwitchboardError } from '../../core/errors.ts';
import { html, trustedHtml, type SafeHtml } from '../../http/html.ts';
import { cardPage } from '../../http/layout.ts';
import { messageHtml } from '../../http/message-html.ts';
import type { HttpKit } from '../contract.ts';
import { APPROVAL_PATH, type MailDecision } from './cards.ts';
import type { EmailRuntime } from './runtime.ts';

const Params = z.object({ workspace: z.string().min(1).max(100), id: z.string().uuid() });
const Form = z.object({
  decision: z.enum(['approve', 'reject'], { message: 'choose Approve or Reject' }),
  reason: z.string().trim().max(1000, 'a reason holds at most 1000 characters').optional(),
});

const NOT_FOUND =
  'There is no approval here that you can see: it belongs to a workspace you cannot reach, or to a conversation you cannot read, or it was deleted.';

/** The approval a signed-in person may see (in a conversation they can read, as someone who may decide it, or as the agent's owner). */
async function visible(
  rt: EmailRuntime,
  personId: string,
  params: z.infer<typeof Params>,
): Promise<{ v: Viewer; a: Approval; agent: Agent | null } | null> {
  const { channels, approvals } = rt.core;
  const v = await channels.viewer(personId, params.workspace).catch((e: unknown) => {
    if (isSwitchboardError(e) && e.code === 'NOT_FOUND') return null;
    throw e;
  });
  const a = v && (await approvals.find(v.workspace.id, params.id));
  if (!v || !a) return null;
  const agent = await approvals.askingAgent(a);
  const sees =
    (a.conversationId && (await channels.visibleConversation(v, a.conversationId))) ||
    (await approvals.approversOf(a)).includes(v.person.id) ||
    agent?.ownerId === v.person.id;
  return sees ? { v, a, agent } : null;
}

/** The approval as the page shows it: who asks, what, all of its details, who may decide. */
function approvalHtml(a: Approval, agent: Agent | null, approvers: string[]): SafeHtml {
  const who = agent ? html`<strong>${agent.displayName}</strong> (<code>${qualifiedName(agent)}</code>)` : 'An agent';
  return html`<p>${who} asks for approval:</p>
<p class="approval-title"><strong>${a.title}</strong></p>
${a.details.trim() ? html`<div class="message-body">${trustedHtml(messageHtml(a.details))}</div>` : null}
<p class="hint">Who may decide: ${approvers.map((h) => `@${h}`).join(', ') || 'the owners of the workspace'}.${a.expiresAt ? ` It expires ${a.expiresAt.toISOString().slice(0, 16)} UTC.` : ''}</p>`;
}

const notice = (text: string, kind: 'error' | 'info') =>
  html`<p class="notice notice-${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</p>`;

/** The form that decides: the decision the mail's link offered comes first. */
function decisionForm(action: string, csrf: SafeHtml, first: MailDecision): SafeHtml {
  const button = (d: MailDecision, primary: boolean) =>
    html`<button type="submit" name="decision" value="${d}"${primary ? html` class="primary" autofocus` : null}>${d === 'approve' ? 'Approve' : 'Reject'}</button>`;
  const order: MailDecision[] = first === 'reject' ? ['reject', 'approve'] : ['approve', 'reject'];
  return html`<form method="post" action="${action}" class="stack">
${csrf}
<label for="reason">Reason (optional; the agent reads it)</label>
<textarea id="reason" name="reason" rows="3" maxlength="1000"></textarea>
${order.map((d, i) => button(d, i === 0))}
</form>`;
}

/** `GET` and `POST /email/approvals/:workspace/:id`, for people signed in. */
export function mountApprovalPage(web: Express, http: HttpKit, rt: EmailRuntime): void {
  const { approvals } = rt.core;
  const path = `${APPROVAL_PATH}/:workspace/:id`;
  const send = (res: Response, status: number, title: string, body: SafeHtml) => {
    http.securityHeaders(res);
    res.status(status).type('html').send(cardPage(title, body));
  };
  /** The approval of the request's path, or null once a 404 page was sent. */
  const load = async (req: Request, res: Response) => {
    const params = Params.safeParse(req.params);
    const found = params.success ? await visible(rt, http.authOf(res)!.person.id, params.data) : null;
    if (!found) send(res, 404, 'Approval not found', notice(NOT_FOUND, 'error'));
    return found;
  };

  web.get(path, http.requirePerson({ page: true }), async (req, res) => {
    const found = await load(req, res);
    if (!found) return;
    const { v, a, agent } = found;
    const shown = approvalHtml(a, agent, await approvals.approverHandles(a));
    if (a.status !== 'pending')
      return send(res, 200, 'Approval settled', html`${notice(`${await approvals.outcome(a)}.`, 'info')}${shown}`);
    const refusal = agent
      ? refusalToDecide(a, { personId: v.person.id, role: v.role }, agent.ownerId, await approvals.guestAsker(a))
      : 'The agent that asked is gone, so nobody can decide this approval.';
    if (refusal) return send(res, 403, 'Approval requested', html`${notice(refusal, 'error')}${shown}`);
    const first: MailDecision = req.query.decision === 'reject' ? 'reject' : 'approve';
    const form = decisionForm(req.originalUrl.split('?')[0]!, http.csrfField(req, res), first);
    send(res, 200, 'Approval requested', html`${shown}${form}`);
  });

  web.post(
    path,
    express.urlencoded({ extended: false, limit: '8kb' }),
    http.requirePerson({ page: true }),
    http.requireCsrf(),
    async (req, res) => {
      const found = await load(req, res);
      if (!found) return;
      const { v, a, agent } = found;
      const shown = () => approvals.approverHandles(a).then((handles) => approvalHtml(a, agent, handles));
      const form = Form.safeParse(req.body);
      if (!form.success)
        return send(
          res,
          400,
          'Approval requested',
          html`${notice(form.error.issues[0]!.message, 'error')}${await shown()}`,
        );
      try {
        const settled = await approvals.decide({
          approvalId: a.id,
          workspaceId: v.workspace.id,
          decision: form.data.decision === 'approve' ? 'approved' : 'rejected',
          decider: { personId: v.person.id, role: v.role },
          via: 'email',
          reason: form.data.reason,
        });
        rt.logger.info({ approvalId: a.id, person: v.person.handle, status: settled.status }, 'decided by mail');
        send(
          res,
          200,
          'Approval settled',
          html`${notice(`${await approvals.outcome(settled)}.`, 'info')}${await shown()}`,
        );
      } catch (e) {
        if (!isSwitchboardError(e) || !['CONFLICT', 'NOT_PERMITTED'].includes(e.code)) throw e;
        send(
          res,
          e.code === 'CONFLICT' ? 409 : 403,
          'Approval requested',
          html`${notice(e.message, 'error')}${await shown()}`,
        );
      }
    },
  );
}
