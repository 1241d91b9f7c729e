import { WEB_CHAT, type SurfaceName, type WorkspaceRole } from '../entities.ts';
import type { Approval } from './approval.ts';

/** Who is trying to decide, as the surface knows them. */
export interface Decider {
  /** The linked Switchboard person; null for a guest (unlinked chat user). */
  personId: string | null;
  /** Their role in the approval's workspace; null when they cannot reach it. */
  role: WorkspaceRole | null;
  /** True when the click came from an agent rather than a person. */
  isAgent?: boolean;
  /** The chat identity the click came from, when it came from a chat surface. */
  identityId?: string | null;
}

/** Who asked, as far as deciding is concerned: for a guest's request, the person their chat account is linked to now (if any). */
export interface GuestAsker {
  linkedPersonId: string | null;
}

/** Why a guest (an unlinked chat user) may not decide, and a way out any surface can give; a surface gives its own with `withHint`. */
export const NOT_LINKED = {
  reason: 'Link your chat account to Switchboard before deciding approvals.',
  hint: 'Use the link the app sent you in a direct message, or ask the app for a new one.',
} as const;

/**
 * Why this decider may not settle the approval, or null when they may.
 * Agents and guests never decide; listed approvers, or by default the agent's
 * owner and the workspace owners, do — and never for a request they made themselves as a guest.
 */
export function refusalToDecide(a: Approval, d: Decider, agentOwnerId: string, guest: GuestAsker): string | null {
  if (d.isAgent) return 'Agents cannot decide approvals; a person has to.';
  if (!d.personId) return `${NOT_LINKED.reason} ${NOT_LINKED.hint}`;
  if (!d.role) return 'You do not have access to the workspace this approval belongs to.';
  // What a guest asked for is capped at a guest's access: that same person may not approve it, even once linked,
  // from that chat account or from anywhere else their person decides (the web chat, another chat app, MCP).
  if (
    !a.askerPersonId &&
    a.askerIdentityId &&
    (d.identityId === a.askerIdentityId || (guest.linkedPersonId !== null && d.personId === guest.linkedPersonId))
  ) {
    return 'You asked for this as a guest, so someone else has to decide it.';
  }
  const allowed = a.approvers.length
    ? a.approvers.includes(d.personId)
    : d.personId === agentOwnerId || d.role === 'owner';
  if (!allowed) {
    return a.approvers.length
      ? 'Only the approvers this request names can decide it.'
      : "Only the agent's owner or an owner of the workspace can decide this approval.";
  }
  return null;
}

/** "Approved by @alice in Slack at 14:02 UTC" — what every view shows once settled; `where` names the surface it was decided on. */
export function outcomeLine(a: Approval, deciderHandle: string | null, where: (via: SurfaceName) => string): string {
  const at = a.decidedAt ? ` at ${a.decidedAt.toISOString().slice(11, 16)} UTC` : '';
  switch (a.status) {
    case 'approved':
    case 'rejected':
      return `${a.status === 'approved' ? 'Approved' : 'Rejected'} by @${deciderHandle ?? 'someone'} in ${where(a.decidedVia ?? WEB_CHAT)}${at}${a.reason ? ` — “${a.reason}”` : ''}`;
    case 'expired':
      return `Expired${at} without a decision`;
    case 'cancelled':
      return `Cancelled by the agent${at}`;
    default:
      return 'Waiting for a decision';
  }
}
