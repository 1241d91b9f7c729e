import { desc, eq } from 'drizzle-orm';
import type { AuditEntry, AuditRepo } from '../../domain/ports.ts';
import type { Db } from './client.ts';
import { audit } from './schema.ts';

export class DrizzleAuditRepo implements AuditRepo {
  constructor(private readonly db: Db) {}

  async record(e: AuditEntry) {
    await this.db.insert(audit).values({
      workspaceId: e.workspaceId ?? null, agentId: e.agentId ?? null, onBehalfOf: e.onBehalfOf ?? null,
      action: e.action, target: e.target ?? null, result: e.result, details: e.details ?? null,
    });
  }

  async list(workspaceId: string, limit: number) {
    const rows = await this.db.select().from(audit).where(eq(audit.workspaceId, workspaceId))
      .orderBy(desc(audit.createdAt)).limit(limit);
    return rows.map((r) => ({ ...r, details: r.details ?? undefined }));
  }
}
