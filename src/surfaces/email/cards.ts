// What an approval looks like by mail (Markdown, mailed as text and HTML like
// an answer): the request with its Approve and Reject links while it is
// pending, and the follow-up saying how it was settled. A link opens a page that
// asks to confirm (approval-page.ts), so a mail scanner following it decides nothing.
import type { Approval } from '../../core/approvals/approval.ts';
import { qualifiedName, type Agent } from '../../core/entities.ts';

/** Where an approval's page is: `/email/approvals/<workspace slug>/<approval id>`. */
export const APPROVAL_PATH = '/email/approvals';

export type MailDecision = 'approve' | 'reject';

/** The page a mail's link opens, with the decision it offers first. */
export const approvalUrl = (publicUrl: string, workspace: string, a: Pick<Approval, 'id'>, d: MailDecision) =>
  `${publicUrl}${APPROVAL_PATH}/${encodeURIComponent(workspace)}/${a.id}?decision=${d}`;

const expiry = (a: Approval) => (a.expiresAt ? `; it expires ${a.expiresAt.toISOString().slice(0, 16)} UTC` : '');

/** The request: title, all of its details, who asked, who may decide, and the two links. */
export function approvalMail(
  a: Approval,
  agent: Agent,
  o: { publicUrl: string; workspace: string; approvers: string[] },
): string {
  const who = o.approvers.length ? o.approvers.map((h) => `@${h}`).join(', ') : 'the owners of the workspace';
  return [
    `**Approval requested:** ${a.title}`,
    a.details.trim(),
    `Asked by ${agent.displayName} (\`${qualifiedName(agent)}\`)${expiry(a)}. Who may decide: ${who}.`,
    `[Approve](${approvalUrl(o.publicUrl, o.workspace, a, 'approve')}) · [Reject](${approvalUrl(o.publicUrl, o.workspace, a, 'reject')})`,
    'Each link opens the approval in Switchboard, where you sign in and confirm; opening it decides nothing.',
  ]
    .filter(Boolean)
    .join('\n\n');
}

/** The follow-up once settled: "Approval “Deploy #418”: Approved by @alice in the web chat at 14:02 UTC." */
export const settledMail = (a: Approval, outcome: string) => `**Approval “${a.title}”:** ${outcome}.`;
