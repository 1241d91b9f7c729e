import { and, asc, count, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { Collection, Document, DocumentPatch, NewDocument } from '../../core/documents/document.ts';
import type { DocumentRepo } from '../../core/ports.ts';
import type { Db } from './client.ts';
import { uniqueOr } from './errors.ts';
import { isUuid } from './ids.ts';
import { rowsOf } from './org-repo.ts';
import { collections, documents } from './schema.ts';

/** The last writer as agents name it: `@alice` for a person, `alice/builder` for an agent. */
const updatedBy = sql<
  string | null
>`(select case when a.kind = 'person' then '@' || p.handle else p.handle || '/' || a.name end
  from agents a join people p on p.id = a.owner_id where a.id = ${documents.updatedBy})`;

/** Everything a list or a search returns: never the content. */
const summaryColumns = {
  id: documents.id,
  workspaceId: documents.workspaceId,
  collectionId: documents.collectionId,
  identifier: documents.identifier,
  title: documents.title,
  summary: documents.summary,
  status: documents.status,
  archived: documents.archived,
  updatedAt: documents.updatedAt,
  createdAt: documents.createdAt,
  updatedBy,
};

const byRef = (workspaceId: string, ref: string): SQL =>
  and(
    eq(documents.workspaceId, workspaceId),
    isUuid(ref) ? eq(documents.id, ref) : sql`upper(${documents.identifier}) = upper(${ref})`,
  )!;

// Each lost attempt means another creation took the number, so this bounds how many may race at once.
const MAX_NUMBER_ATTEMPTS = 64;

export class DrizzleDocumentRepo implements DocumentRepo {
  constructor(private readonly db: Db) {}

  async listCollections(workspaceId: string, opts: { includeInactive?: boolean } = {}) {
    const where = opts.includeInactive
      ? eq(collections.workspaceId, workspaceId)
      : and(eq(collections.workspaceId, workspaceId), eq(collections.active, true));
    return this.db.select().from(collections).where(where).orderBy(asc(collections.createdAt), asc(collections.key));
  }

  async getCollection(workspaceId: string, idOrKey: string) {
    const match = isUuid(idOrKey) ? eq(collections.id, idOrKey) : eq(collections.key, idOrKey.toLowerCase());
    const [row] = await this.db
      .select()
      .from(collections)
      .where(and(eq(collections.workspaceId, workspaceId), match))
      .limit(1);
    return row ?? null;
  }

  async createCollection(c: Omit<Collection, 'id' | 'createdAt' | 'updatedAt'>) {
    const [row] = await uniqueOr(
      () => this.db.insert(collections).values(c).returning(),
      `This workspace already has a collection with the identifier "${c.key}"; choose another name.`,
    );
    return row;
  }

  async ensureHiddenCollection(c: Omit<Collection, 'id' | 'createdAt' | 'updatedAt' | 'hidden' | 'active'>) {
    // Read first: this runs on every session of a Simplified workspace, and it exists after the first.
    const existing = await this.getCollection(c.workspaceId, c.key);
    if (existing) return existing;
    const [created] = await this.db
      .insert(collections)
      .values({ ...c, hidden: true, active: true })
      .onConflictDoNothing()
      .returning();
    return created ?? (await this.getCollection(c.workspaceId, c.key))!;
  }

  async updateCollection(
    workspaceId: string,
    id: string,
    patch: Partial<Pick<Collection, 'name' | 'key' | 'instructions' | 'active'>>,
  ) {
    if (!isUuid(id)) return null;
    const [row] = await uniqueOr(
      () =>
        this.db
          .update(collections)
          .set({ ...patch, updatedAt: sql`now()` })
          .where(and(eq(collections.workspaceId, workspaceId), eq(collections.id, id)))
          .returning(),
      `This workspace already has a collection with the identifier "${patch.key}"; choose another name.`,
    );
    return row ?? null;
  }

  async deleteEmptyCollection(workspaceId: string, id: string) {
    if (!isUuid(id)) return false;
    const rows = await this.db
      .delete(collections)
      .where(
        and(
          eq(collections.workspaceId, workspaceId),
          eq(collections.id, id),
          sql`not exists (select 1 from ${documents} where ${documents.collectionId} = ${collections.id})`,
        ),
      )
      .returning({ id: collections.id });
    return rows.length === 1;
  }

  async countDocuments(workspaceId: string, collectionId: string) {
    const [row] = await this.db
      .select({ n: count() })
      .from(documents)
      .where(and(eq(documents.workspaceId, workspaceId), eq(documents.collectionId, collectionId)));
    return Number(row.n);
  }

  async createDocument(d: NewDocument): Promise<Document> {
    const now = d.now.toISOString();
    // The next number of the workspace; a concurrent insert that took it makes this one insert nothing, so try the next.
    for (let attempt = 0; attempt < MAX_NUMBER_ATTEMPTS; attempt++) {
      const result = await this.db.execute<{ id: string }>(sql`
        insert into ${documents} (workspace_id, collection_id, number, identifier, title, summary, content, status, created_by, updated_by, created_at, updated_at)
        select ${d.workspaceId}::uuid, ${d.collectionId}::uuid, n, ${d.prefix}::text || '-' || n::text, ${d.title}::text, ${d.summary}::text,
               ${d.content}::text, ${d.status}::text, ${d.byAgentId}::uuid, ${d.byAgentId}::uuid, ${now}::timestamptz, ${now}::timestamptz
        from (select coalesce(max(number), 0) + 1 as n from ${documents} where workspace_id = ${d.workspaceId}::uuid) next
        on conflict do nothing
        returning id`);
      const [row] = rowsOf<{ id: string }>(result);
      if (row) return (await this.getDocument(d.workspaceId, row.id, { includeInactive: true }))!;
    }
    throw new Error(
      `Could not allocate a document number in workspace ${d.workspaceId} after ${MAX_NUMBER_ATTEMPTS} attempts.`,
    );
  }

  async getDocument(workspaceId: string, ref: string, opts: { includeInactive?: boolean } = {}) {
    const conds = [byRef(workspaceId, ref)];
    if (!opts.includeInactive) conds.push(eq(collections.active, true));
    const [row] = await this.db
      .select({ ...summaryColumns, content: documents.content })
      .from(documents)
      .innerJoin(collections, eq(collections.id, documents.collectionId))
      .where(and(...conds))
      .limit(1);
    return row ?? null;
  }

  async listDocuments(q: Parameters<DocumentRepo['listDocuments']>[0]) {
    const conds = [eq(documents.workspaceId, q.workspaceId), eq(documents.collectionId, q.collectionId)];
    if (q.status) conds.push(eq(documents.status, q.status));
    if (!q.includeArchived) conds.push(eq(documents.archived, false));
    const [items, [total]] = await Promise.all([
      this.db
        .select(summaryColumns)
        .from(documents)
        .where(and(...conds))
        .orderBy(desc(documents.updatedAt), desc(documents.number))
        .limit(q.limit)
        .offset(q.offset),
      this.db
        .select({ n: count() })
        .from(documents)
        .where(and(...conds)),
    ]);
    return { items, total: Number(total.n) };
  }

  async searchDocuments(q: Parameters<DocumentRepo['searchDocuments']>[0]) {
    const tsq = sql`websearch_to_tsquery('english', ${q.text})`;
    const exactId = sql`upper(${documents.identifier}) = upper(${q.text.trim()})`;
    const conds = [eq(documents.workspaceId, q.workspaceId), sql`(${documents.search} @@ ${tsq} or ${exactId})`];
    if (!q.includeInactive) conds.push(eq(collections.active, true));
    if (q.collectionId) conds.push(eq(documents.collectionId, q.collectionId));
    if (!q.includeArchived) conds.push(eq(documents.archived, false));
    return this.db
      .select(summaryColumns)
      .from(documents)
      .innerJoin(collections, eq(collections.id, documents.collectionId))
      .where(and(...conds))
      .orderBy(desc(exactId), desc(sql`ts_rank(${documents.search}, ${tsq})`), desc(documents.updatedAt))
      .limit(q.limit);
  }

  async updateDocument(
    workspaceId: string,
    id: string,
    readUpdatedAt: Date | null,
    change: DocumentPatch & { collectionId?: string },
    byAgentId: string | null,
    now: Date,
  ) {
    if (!isUuid(id)) return null;
    const conds = [eq(documents.workspaceId, workspaceId), eq(documents.id, id)];
    // The version check and the write are one statement, so of two writers holding the same version only one can win.
    if (readUpdatedAt) conds.push(eq(documents.updatedAt, readUpdatedAt));
    const rows = await this.db
      .update(documents)
      .set({
        ...definedOnly(change),
        updatedBy: byAgentId,
        // Strictly later than the version replaced, even within one millisecond, so a stale copy never matches again.
        updatedAt: sql`greatest(${now.toISOString()}::timestamptz, ${documents.updatedAt} + interval '1 millisecond')`,
      })
      .where(and(...conds))
      .returning({ id: documents.id });
    return rows.length ? this.getDocument(workspaceId, id, { includeInactive: true }) : null;
  }
}

const definedOnly = <T extends object>(o: T) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
