import type { SurfaceName } from '../entities.ts';

export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'expired' | 'cancelled';
export type Decision = 'approved' | 'rejected';

export interface Approval {
  id: string;
  workspaceId: string;
  /** The agent that asked. */
  agentId: string;
  /** The thread it was asked in; null when it goes to approvers' DMs. */
  conversationId: string | null;
  title: string;
  details: string;
  /** Person ids allowed to decide; empty means the agent's owner and the workspace's owners. */
  approvers: string[];
  status: ApprovalStatus;
  decidedBy: string | null;
  decidedVia: SurfaceName | null;
  decidedAt: Date | null;
  reason: string | null;
  /** The human on whose behalf the agent asked (caps who may approve). */
  askerPersonId: string | null;
  askerIdentityId: string | null;
  expiresAt: Date | null;
  createdAt: Date;
}

/** Where an approval is shown on a surface, so every view can be updated when it settles. */
export interface ApprovalView {
  approvalId: string;
  surface: SurfaceName;
  /** Surface address of the shown card (e.g. Slack channel and ts; Teams conversation and activity id). */
  ref: Record<string, string>;
}
