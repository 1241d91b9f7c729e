import { storableCopy, storableJson } from '../../core/safe-text.ts';
import { desc, eq, sql } from 'drizzle-orm';
import type { AuditEntry, AuditRepo } from '../../core/ports.ts';
import { preparedOnce, type Db } from './client.ts';
import { audit } from './schema.ts';

export class DrizzleAuditRepo implements AuditRepo {
  constructor(private readonly db: Db) {}

  async record(e: AuditEntry) {
    // Every tool call writes one: prepared once (see preparedOnce).
    await preparedOnce(this.db, 'audit_record', () =>
      this.db.insert(audit).values({
        workspaceId: sql`${sql.placeholder('workspace')}::uuid`,
        agentId: sql`${sql.placeholder('agent')}::uuid`,
        onBehalfOf: sql`${sql.placeholder('onBehalfOf')}::uuid`,
        action: sql`${sql.placeholder('action')}::text`,
        target: sql`${sql.placeholder('target')}::text`,
        result: sql`${sql.placeholder('result')}::text`,
        details: sql`${sql.placeholder('details')}::jsonb`,
      }),
    ).execute({
      workspace: e.workspaceId ?? null,
      agent: e.agentId ?? null,
      onBehalfOf: e.onBehalfOf ?? null,
      action: e.action,
      target: e.target == null ? null : storableCopy(e.target),
      result: e.result,
      // An entry is never lost to text jsonb cannot hold: such characters are recorded as U+FFFD.
      details: e.details ? storableJson(e.details) : null,
    });
  }

  async list(workspaceId: string, limit: number) {
    const rows = await this.db
      .select()
      .from(audit)
      .where(eq(audit.workspaceId, workspaceId))
      .orderBy(desc(audit.createdAt))
      .limit(limit);
    return rows.map((r) => ({ ...r, details: r.details ?? undefined }));
  }
}
