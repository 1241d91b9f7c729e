import { and, asc, eq } from 'drizzle-orm';
import type { Approval, ApprovalView } from '../../core/approvals/approval.ts';
import type { ApprovalRepo } from '../../core/ports.ts';
import type { SurfaceName } from '../../core/entities.ts';
import type { Db } from './client.ts';
import { isUuid } from './ids.ts';
import { approvals, approvalViews } from './schema.ts';

export class DrizzleApprovalRepo implements ApprovalRepo {
  constructor(private readonly db: Db) {}

  async create(a: Parameters<ApprovalRepo['create']>[0]): Promise<Approval> {
    const [row] = await this.db.insert(approvals).values(a).returning();
    return row;
  }

  async get(workspaceId: string, id: string) {
    if (!isUuid(id)) return null;
    const [row] = await this.db
      .select()
      .from(approvals)
      .where(and(eq(approvals.workspaceId, workspaceId), eq(approvals.id, id)));
    return row ?? null;
  }

  async settle(id: string, change: Parameters<ApprovalRepo['settle']>[1]) {
    // The compare-and-set: of concurrent decisions only the first finds it pending.
    const [row] = await this.db
      .update(approvals)
      .set(change)
      .where(and(eq(approvals.id, id), eq(approvals.status, 'pending')))
      .returning();
    return row ?? null;
  }

  async listForConversation(workspaceId: string, conversationId: string) {
    return this.db
      .select()
      .from(approvals)
      .where(and(eq(approvals.workspaceId, workspaceId), eq(approvals.conversationId, conversationId)))
      .orderBy(asc(approvals.createdAt));
  }

  async listPending(workspaceId: string) {
    return this.db
      .select()
      .from(approvals)
      .where(and(eq(approvals.workspaceId, workspaceId), eq(approvals.status, 'pending')))
      .orderBy(asc(approvals.createdAt));
  }

  async addView(v: ApprovalView) {
    const key = Object.values(v.ref).join(':');
    await this.db
      .insert(approvalViews)
      .values({ approvalId: v.approvalId, surface: v.surface, key, ref: v.ref })
      .onConflictDoNothing();
  }

  async views(approvalId: string, surface?: SurfaceName) {
    const rows = await this.db
      .select()
      .from(approvalViews)
      .where(
        surface
          ? and(eq(approvalViews.approvalId, approvalId), eq(approvalViews.surface, surface))
          : eq(approvalViews.approvalId, approvalId),
      );
    return rows.map((r) => ({ approvalId: r.approvalId, surface: r.surface, ref: r.ref }));
  }
}
