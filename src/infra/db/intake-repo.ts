import { and, asc, count, desc, eq, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import type {
  IntakeFilter,
  IntakeItem,
  IntakeNote,
  IntakeRepo,
  IntakeSource,
  IntakeStatus,
} from '../../core/intake/intake-item.ts';
import type { Db } from './client.ts';
import { isUuid } from './ids.ts';
import { intakeItems, intakeNotes, intakeOptOuts, intakeSources } from './schema.ts';

export class DrizzleIntakeRepo implements IntakeRepo {
  constructor(private readonly db: Db) {}

  async create(item: Omit<IntakeItem, 'id' | 'createdAt' | 'updatedAt' | 'status'>, at: Date): Promise<IntakeItem> {
    const [row] = await this.db
      .insert(intakeItems)
      .values({ ...item, createdAt: at, updatedAt: at })
      .returning();
    return row;
  }

  async get(workspaceId: string, id: string) {
    if (!isUuid(id)) return null;
    const [row] = await this.db
      .select()
      .from(intakeItems)
      .where(and(eq(intakeItems.workspaceId, workspaceId), eq(intakeItems.id, id)));
    return row ?? null;
  }

  list(workspaceId: string, f: IntakeFilter): Promise<IntakeItem[]> {
    const conds: SQL[] = [eq(intakeItems.workspaceId, workspaceId)];
    if (f.status) conds.push(eq(intakeItems.status, f.status));
    if (f.kind) conds.push(eq(intakeItems.kind, f.kind));
    if (f.surface)
      conds.push(
        sql`exists (select 1 from ${intakeSources} s where s.item_id = ${intakeItems.id} and s.surface = ${f.surface})`,
      );
    return this.db
      .select()
      .from(intakeItems)
      .where(and(...conds))
      .orderBy(desc(intakeItems.createdAt), desc(intakeItems.id))
      .limit(f.limit)
      .offset(f.offset ?? 0);
  }

  async addSources(sources: Array<Omit<IntakeSource, 'notifiedAt' | 'addedAt'>>) {
    if (!sources.length) return 0;
    const rows = await this.db
      .insert(intakeSources)
      .values(sources)
      .onConflictDoNothing()
      .returning({ m: intakeSources.messageId });
    return rows.length;
  }

  sources(itemIds: string[]): Promise<IntakeSource[]> {
    if (!itemIds.length) return Promise.resolve([]);
    return this.db
      .select()
      .from(intakeSources)
      .where(inArray(intakeSources.itemId, itemIds))
      .orderBy(asc(intakeSources.addedAt));
  }

  notes(itemIds: string[]): Promise<IntakeNote[]> {
    if (!itemIds.length) return Promise.resolve([]);
    return this.db
      .select()
      .from(intakeNotes)
      .where(inArray(intakeNotes.itemId, itemIds))
      .orderBy(asc(intakeNotes.createdAt));
  }

  async addNote(n: Omit<IntakeNote, 'id' | 'createdAt'>, at: Date) {
    const [row] = await this.db
      .insert(intakeNotes)
      .values({ ...n, createdAt: at })
      .returning();
    return row;
  }

  async setStatus(workspaceId: string, id: string, status: IntakeStatus, at: Date) {
    // The row lock orders concurrent changes, so exactly one of them sees the item become done.
    const [before] = await this.db
      .select({ status: intakeItems.status })
      .from(intakeItems)
      .where(and(eq(intakeItems.workspaceId, workspaceId), eq(intakeItems.id, id)))
      .for('update');
    if (!before) return null;
    await this.db.update(intakeItems).set({ status, updatedAt: at }).where(eq(intakeItems.id, id));
    return before.status;
  }

  async touch(id: string, at: Date) {
    await this.db.update(intakeItems).set({ updatedAt: at }).where(eq(intakeItems.id, id));
  }

  async claimNotice(itemId: string, messageId: string, at: Date) {
    const rows = await this.db
      .update(intakeSources)
      .set({ notifiedAt: at })
      .where(
        and(eq(intakeSources.itemId, itemId), eq(intakeSources.messageId, messageId), isNull(intakeSources.notifiedAt)),
      )
      .returning({ m: intakeSources.messageId });
    return rows.length === 1;
  }

  async reexcerpt(workspaceId: string, messageId: string, excerpt: string) {
    if (!isUuid(messageId)) return 0;
    const rows = await this.db
      .update(intakeSources)
      .set({ excerpt })
      .where(and(eq(intakeSources.workspaceId, workspaceId), eq(intakeSources.messageId, messageId)))
      .returning({ m: intakeSources.itemId });
    return rows.length;
  }

  async retitleAutomatic(
    workspaceId: string,
    messageId: string,
    summaryWas: string,
    next: { title: string; summary: string },
    at: Date,
  ) {
    if (!isUuid(messageId)) return 0;
    const cites = sql`exists (select 1 from ${intakeSources} s where s.item_id = ${intakeItems.id} and s.workspace_id = ${workspaceId} and s.message_id = ${messageId})`;
    const rows = await this.db
      .update(intakeItems)
      .set({ title: next.title, summary: next.summary, updatedAt: at })
      .where(
        and(
          eq(intakeItems.workspaceId, workspaceId),
          isNull(intakeItems.filedBy),
          eq(intakeItems.summary, summaryWas),
          cites,
        ),
      )
      .returning({ id: intakeItems.id });
    return rows.length;
  }

  async autoItemIn(workspaceId: string, conversationId: string) {
    const [row] = await this.db
      .select({ item: intakeItems })
      .from(intakeItems)
      .innerJoin(intakeSources, eq(intakeSources.itemId, intakeItems.id))
      .where(
        and(
          eq(intakeItems.workspaceId, workspaceId),
          isNull(intakeItems.filedBy),
          eq(intakeSources.conversationId, conversationId),
        ),
      )
      .orderBy(desc(intakeItems.createdAt))
      .limit(1);
    return row?.item ?? null;
  }

  async counts(workspaceId: string) {
    const [bySurface, byStatus] = await Promise.all([
      this.db
        .select({ k: intakeSources.surface, n: sql<number>`count(distinct ${intakeSources.itemId})` })
        .from(intakeSources)
        .where(eq(intakeSources.workspaceId, workspaceId))
        .groupBy(intakeSources.surface),
      this.db
        .select({ k: intakeItems.status, n: count() })
        .from(intakeItems)
        .where(eq(intakeItems.workspaceId, workspaceId))
        .groupBy(intakeItems.status),
    ]);
    const rec = (rows: Array<{ k: string; n: number }>) => Object.fromEntries(rows.map((r) => [r.k, Number(r.n)]));
    const status = rec(byStatus);
    return { bySurface: rec(bySurface), byStatus: status, total: Object.values(status).reduce((a, b) => a + b, 0) };
  }

  async optedOut(subjects: string[]) {
    if (!subjects.length) return false;
    const [row] = await this.db
      .select({ s: intakeOptOuts.subject })
      .from(intakeOptOuts)
      .where(inArray(intakeOptOuts.subject, subjects))
      .limit(1);
    return Boolean(row);
  }

  async setOptOut(subject: string, out: boolean) {
    if (out) await this.db.insert(intakeOptOuts).values({ subject }).onConflictDoNothing();
    else await this.db.delete(intakeOptOuts).where(eq(intakeOptOuts.subject, subject));
  }
}
