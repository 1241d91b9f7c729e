// The approval card: Adaptive Card 1.5 with Action.Execute buttons (verbs
// approve and reject, each with an Action.Submit fallback) and, while it is
// pending, a `refresh` for the approvers (at most 60 Teams user ids) so each
// sees it up to date. Once settled it says who decided, how and where.
import type { Approval } from '../../core/approvals/approval.ts';
import type { Agent } from '../../core/entities.ts';
import { adaptiveCard, agentHeader, executeAction, type Card } from './cards.ts';

/** The data every approval action carries. */
export const APPROVAL = 'approval';
/** Teams refreshes automatically for at most this many users. */
export const MAX_REFRESH_USERS = 60;

export interface ApprovalCardInput {
  approval: Approval;
  agent: Agent;
  /** "Approved by @alice in Slack at 14:02 UTC", or "Waiting for a decision". */
  outcome: string;
  /** Whether to show the buttons (pending, and for a user-specific view: this user may decide). */
  buttons: boolean;
  /** Teams user ids (`29:…`) of the approvers, for the automatic refresh. */
  approverUserIds: string[];
  /** A sentence for the one person looking (a refusal, a late click). */
  notice?: string;
}

export function approvalData(a: Pick<Approval, 'id' | 'workspaceId'>): Record<string, string> {
  return { sb: APPROVAL, approvalId: a.id, workspaceId: a.workspaceId };
}

export function approvalCard(input: ApprovalCardInput): Card {
  const { approval: a, agent } = input;
  const pending = a.status === 'pending';
  const data = approvalData(a);
  const color =
    a.status === 'approved' ? 'Good' : a.status === 'rejected' ? 'Attention' : pending ? 'Accent' : 'Default';
  const body: Card[] = [
    agentHeader(agent, 'asks for approval'),
    { type: 'TextBlock', text: a.title, weight: 'Bolder', size: 'Medium', wrap: true, spacing: 'Medium' },
    ...(a.details ? [{ type: 'TextBlock', text: a.details, wrap: true }] : []),
    ...(a.expiresAt && pending
      ? [
          {
            type: 'TextBlock',
            text: `Expires ${a.expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
            isSubtle: true,
            size: 'Small',
            wrap: true,
          },
        ]
      : []),
    {
      type: 'TextBlock',
      text: input.outcome,
      color,
      weight: pending ? 'Default' : 'Bolder',
      wrap: true,
      spacing: 'Medium',
    },
    ...(input.notice ? [{ type: 'TextBlock', text: input.notice, color: 'Attention', wrap: true }] : []),
  ];
  const extra: Card = {
    fallbackText: `${agent.displayName} asks for approval: ${a.title}. ${input.outcome}.`,
    ...(pending
      ? {
          refresh: {
            action: { type: 'Action.Execute', title: 'Refresh', verb: 'refresh', data },
            userIds: input.approverUserIds.slice(0, MAX_REFRESH_USERS),
          },
        }
      : {}),
    ...(pending && input.buttons
      ? {
          actions: [
            executeAction('Approve', 'approve', data, { style: 'positive' }),
            executeAction('Reject', 'reject', data, { style: 'destructive' }),
          ],
        }
      : {}),
  };
  return adaptiveCard(body, extra);
}
