// What an approval looks like in Slack (Block Kit): the request with Approve
// and Reject buttons while it is pending, the same request with the outcome
// line instead of the buttons once settled, and the modal asking for a reason.
import type { types } from '@slack/bolt';
import type { Approval } from '../../core/approvals/approval.ts';
import { qualifiedName, type Agent } from '../../core/entities.ts';
import { escapeSlack as escape, markdownToSlack } from './format/out.ts';

export const APPROVE_ACTION = 'switchboard_approval_approve';
export const REJECT_ACTION = 'switchboard_approval_reject';
/** The callback id of the reject-reason modal. */
export const REASON_VIEW = 'switchboard_approval_reason';
export const REASON_BLOCK = 'reason';
export const REASON_INPUT = 'reason_input';
/** Metadata event type of approval cards, so the app never takes its own card for a message to answer. */
export const APPROVAL_EVENT_TYPE = 'switchboard_approval';

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** The plain-text fallback (notifications, screen readers). */
export function approvalText(a: Approval, agent: Agent, outcome: string | null): string {
  return `${agent.displayName} asks for approval: ${a.title}${outcome ? ` — ${outcome}` : ''}`;
}

/** The card: buttons while `outcome` is null, else the outcome line where the buttons were. */
export function approvalBlocks(a: Approval, agent: Agent, outcome: string | null): types.KnownBlock[] {
  const expires =
    a.expiresAt && !outcome
      ? ` · expires <!date^${Math.floor(a.expiresAt.getTime() / 1000)}^{date_short_pretty} at {time}|${a.expiresAt.toISOString()}>`
      : '';
  const blocks: types.KnownBlock[] = [
    { type: 'section', text: { type: 'mrkdwn', text: clip(`*Approval requested:* ${escape(a.title)}`, 3000) } },
  ];
  if (a.details.trim()) {
    // All of it, in as many sections as it takes: an approver must see everything they approve.
    const details = markdownToSlack(a.details);
    blocks.push(...(details.blocks ?? [{ type: 'section', text: { type: 'mrkdwn', text: details.text } }]));
  }
  blocks.push({
    type: 'context',
    elements: [
      { type: 'mrkdwn', text: `Asked by *${escape(agent.displayName)}* (\`${qualifiedName(agent)}\`)${expires}` },
    ],
  });
  if (outcome === null) {
    blocks.push({
      type: 'actions',
      block_id: `approval:${a.id}`,
      elements: [
        {
          type: 'button',
          action_id: APPROVE_ACTION,
          style: 'primary',
          value: a.id,
          text: { type: 'plain_text', text: 'Approve' },
        },
        {
          type: 'button',
          action_id: REJECT_ACTION,
          style: 'danger',
          value: a.id,
          text: { type: 'plain_text', text: 'Reject' },
        },
      ],
    });
  } else {
    const icon =
      a.status === 'approved' ? ':white_check_mark:' : a.status === 'rejected' ? ':no_entry:' : ':hourglass:';
    blocks.push({
      type: 'section',
      block_id: `outcome:${a.id}`,
      text: { type: 'mrkdwn', text: `${icon} *${escape(outcome)}*` },
    });
  }
  return blocks;
}

/** Where a reject reason goes once submitted: the approval and the place the click came from. */
export interface ReasonContext {
  approvalId: string;
  teamId: string;
  channel: string;
  threadTs?: string;
}

/** The modal asking why (optional), opened from the Reject button. */
export function reasonModal(a: Approval, where: ReasonContext): types.ModalView {
  return {
    type: 'modal',
    callback_id: REASON_VIEW,
    private_metadata: JSON.stringify(where),
    title: { type: 'plain_text', text: 'Reject' },
    submit: { type: 'plain_text', text: 'Reject' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: clip(`Reject *${escape(a.title)}*?`, 3000) } },
      {
        type: 'input',
        block_id: REASON_BLOCK,
        optional: true,
        label: { type: 'plain_text', text: 'Reason (the agent will read it)' },
        element: { type: 'plain_text_input', action_id: REASON_INPUT, multiline: true, max_length: 1000 },
      },
    ],
  };
}

/** "already approved by @alice in Slack at 14:02 UTC": a late click's answer, from the outcome line. */
export function lateClickText(outcome: string): string {
  return `This approval was already ${outcome.charAt(0).toLowerCase()}${outcome.slice(1)}; your click changed nothing.`;
}
