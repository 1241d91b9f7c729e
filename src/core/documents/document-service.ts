import { slugify, isSlug } from '../actor.ts';
import { invalidInput, notFound, SwitchboardError } from '../errors.ts';
import type { OrgService } from '../organizations/org-service.ts';
import type { Clock, Store } from '../ports.ts';
import type { Workspace, WorkspaceRole } from '../entities.ts';
import { COLLECTION_TYPES, collectionType, SIMPLIFIED_KEY, SIMPLIFIED_TYPE, type CollectionType } from './catalogue.ts';
import {
  assertDocumentFields,
  assertMayShape,
  assertMayWrite,
  assertStatus,
  isEmptyPatch,
  LIMITS,
  normalizeStatuses,
  staleVersion,
} from './rules.ts';
import type { Collection, Document, DocumentAccess, DocumentPatch, DocumentSummary } from './document.ts';

const LIST_DEFAULT = 50;
export const LIST_MAX = 100;
const SEARCH_DEFAULT = 20;

export interface DocumentList {
  collection: Collection;
  items: DocumentSummary[];
  /** Every document matching the filters, of which `items` is one page. */
  total: number;
  /** True when more documents match than `items` holds. */
  truncated: boolean;
}

/** Collections and documents of a workspace, with the role, seat and version rules applied. */
export class DocumentService {
  constructor(
    private readonly store: Store,
    private readonly orgs: OrgService,
    private readonly clock: Clock,
  ) {}

  /**
   * What a person may do with documents here (null when they cannot reach the
   * workspace). `known` fixes role and seat, as an MCP session does when it opens.
   */
  async access(
    ws: Workspace,
    personId: string,
    agentId: string | null,
    known?: { role: WorkspaceRole; hasSeat: boolean },
  ): Promise<DocumentAccess | null> {
    const [org, person] = await Promise.all([this.orgs.org(ws.orgId), this.orgs.person(personId)]);
    const role = known?.role ?? (await this.orgs.roleIn(personId, ws));
    if (!role) return null;
    const hasSeat = known?.hasSeat ?? Boolean((await this.store.orgs.member(ws.orgId, personId))?.hasSeat);
    return { role, hasSeat, agentId, personHandle: person.handle, org: { name: org.name, slug: org.slug } };
  }

  /** The collections agents see: the active ones of a Structured workspace; none in a Simplified one. */
  async visibleCollections(ws: Workspace): Promise<Collection[]> {
    if (ws.kind === 'simplified') return [];
    return (await this.store.documents.listCollections(ws.id)).filter((c) => !c.hidden);
  }

  /** Every collection, deactivated ones too (the web app). */
  allCollections(ws: Workspace): Promise<Collection[]> {
    return this.store.documents.listCollections(ws.id, { includeInactive: true });
  }

  /** The one collection of a Simplified workspace, created on first use. */
  hiddenCollection(ws: Workspace): Promise<Collection> {
    const t = SIMPLIFIED_TYPE;
    return this.store.documents.ensureHiddenCollection({
      workspaceId: ws.id,
      key: SIMPLIFIED_KEY,
      type: t.type,
      name: t.name,
      statuses: t.defaultStatuses,
      instructions: '',
    });
  }

  /**
   * The collection an agent names (by identifier or id); in a Simplified workspace
   * always the hidden one. Deactivated ones only for the web app (`includeInactive`).
   */
  async collection(
    ws: Workspace,
    ref: string | undefined,
    opts: { includeInactive?: boolean } = {},
  ): Promise<Collection> {
    if (ws.kind === 'simplified') return this.hiddenCollection(ws);
    if (!ref?.trim())
      throw invalidInput(
        `Name a collection: this workspace keeps documents in collections (${await this.collectionKeys(ws)}).`,
      );
    const c = await this.store.documents.getCollection(ws.id, ref.trim());
    if (c && !c.hidden && (c.active || opts.includeInactive)) return c;
    if (c && !c.active)
      throw notFound(
        `The collection "${c.key}" is deactivated, so it`,
        'A workspace owner can reactivate it in the web app.',
      );
    throw notFound(
      `The collection "${ref}"`,
      `Collections here: ${await this.collectionKeys(ws)}. Call get_workspace_information to see them.`,
    );
  }

  private async collectionKeys(ws: Workspace) {
    const keys = (await this.visibleCollections(ws)).map((c) => c.key);
    return keys.length ? keys.join(', ') : 'none yet; a workspace owner opens one with create_collection';
  }

  async list(
    ws: Workspace,
    q: {
      collection?: string;
      status?: string;
      includeArchived?: boolean;
      limit?: number;
      offset?: number;
      includeInactive?: boolean;
    },
  ): Promise<DocumentList> {
    const collection = await this.collection(ws, q.collection, { includeInactive: q.includeInactive });
    if (q.status) assertStatus(collection, q.status);
    const limit = Math.min(Math.max(q.limit ?? LIST_DEFAULT, 1), LIST_MAX);
    const offset = Math.max(q.offset ?? 0, 0);
    const { items, total } = await this.store.documents.listDocuments({
      workspaceId: ws.id,
      collectionId: collection.id,
      status: q.status,
      includeArchived: Boolean(q.includeArchived),
      limit,
      offset,
    });
    return { collection, items, total, truncated: offset + items.length < total };
  }

  /** Matches by title, summary or identifier; deactivated collections only with `includeInactive` (the web app, not agents). */
  async search(
    ws: Workspace,
    q: { text: string; collection?: string; includeArchived?: boolean; includeInactive?: boolean; limit?: number },
  ): Promise<DocumentSummary[]> {
    const text = q.text.trim();
    if (!text)
      throw invalidInput(
        'The search text is empty; give a few words from a title or summary, or an identifier such as SPEC-12.',
      );
    const collection =
      ws.kind === 'structured' && q.collection
        ? await this.collection(ws, q.collection, { includeInactive: q.includeInactive })
        : null;
    return this.store.documents.searchDocuments({
      workspaceId: ws.id,
      text,
      collectionId: collection?.id,
      includeArchived: Boolean(q.includeArchived),
      includeInactive: Boolean(q.includeInactive),
      limit: Math.min(Math.max(q.limit ?? SEARCH_DEFAULT, 1), LIST_MAX),
    });
  }

  /** One document in full, archived or not. */
  async get(ws: Workspace, ref: string, opts: { includeInactive?: boolean } = {}): Promise<Document> {
    const doc = await this.store.documents.getDocument(ws.id, ref.trim(), opts);
    if (!doc)
      throw notFound(
        `The document "${ref}"`,
        'Use an identifier such as SPEC-12 from list_documents or search_documents.',
      );
    return doc;
  }

  async create(
    ws: Workspace,
    access: DocumentAccess,
    input: { collection?: string; title: string; summary?: string; content?: string; status?: string },
  ): Promise<Document> {
    assertMayWrite(access);
    const collection = await this.collection(ws, input.collection);
    const fields = { title: input.title.trim(), summary: input.summary ?? '', content: input.content ?? '' };
    assertDocumentFields(fields);
    const status = input.status ?? collection.statuses[0];
    assertStatus(collection, status);
    const prefix = collectionType(collection.type)?.prefix ?? 'DOC';
    return this.store.documents.createDocument({
      workspaceId: ws.id,
      collectionId: collection.id,
      prefix,
      ...fields,
      status,
      byAgentId: access.agentId,
      now: this.clock.now(),
    });
  }

  /**
   * Changes, archives or unarchives a document, only if nobody wrote since the
   * version the caller read; otherwise STALE_VERSION with the current `updated_at`.
   */
  async update(
    ws: Workspace,
    access: DocumentAccess,
    input: { document: string; readUpdatedAt: Date; patch: DocumentPatch },
  ): Promise<Document> {
    assertMayWrite(access);
    const { patch } = input;
    if (isEmptyPatch(patch))
      throw invalidInput('Nothing to change: pass at least one of title, summary, content, status or archived.');
    if (patch.title !== undefined) patch.title = patch.title.trim();
    assertDocumentFields(patch);
    const current = await this.get(ws, input.document);
    if (patch.status !== undefined) {
      const collection = await this.store.documents.getCollection(ws.id, current.collectionId);
      assertStatus(collection!, patch.status);
    }
    const written = await this.store.documents.updateDocument(
      ws.id,
      current.id,
      input.readUpdatedAt,
      patch,
      access.agentId,
      this.clock.now(),
    );
    if (written) return written;
    throw staleVersion(
      (await this.store.documents.getDocument(ws.id, current.id, { includeInactive: true })) ?? current,
      input.readUpdatedAt,
    );
  }

  /** The catalogue, each type with the collections of this workspace that already use it. */
  async availableTypes(ws: Workspace): Promise<Array<CollectionType & { existing: string[] }>> {
    const have = await this.visibleCollections(ws);
    return COLLECTION_TYPES.map((t) => ({ ...t, existing: have.filter((c) => c.type === t.type).map((c) => c.key) }));
  }

  async createCollection(
    ws: Workspace,
    access: DocumentAccess,
    input: { type: string; name?: string; statuses?: string[]; instructions?: string },
  ): Promise<Collection> {
    this.assertStructured(ws, 'collections');
    assertMayShape(access, 'open a collection');
    const type = COLLECTION_TYPES.find((t) => t.type === input.type);
    if (!type)
      throw invalidInput(
        `"${input.type}" is not a collection type; use one of: ${COLLECTION_TYPES.map((t) => t.type).join(', ')}.`,
      );
    const name = (input.name ?? type.name).trim();
    const key = this.keyFor(name);
    const instructions = input.instructions ?? type.defaultInstructions;
    this.assertInstructions(instructions);
    const statuses = normalizeStatuses(input.statuses ?? type.defaultStatuses);
    return this.store.documents.createCollection({
      workspaceId: ws.id,
      key,
      type: type.type,
      name,
      statuses,
      instructions,
      active: true,
      hidden: false,
    });
  }

  async setCollectionInstructions(
    ws: Workspace,
    access: DocumentAccess,
    ref: string,
    instructions: string,
  ): Promise<Collection> {
    this.assertStructured(ws, 'collection instructions');
    assertMayShape(access, 'write collection instructions');
    this.assertInstructions(instructions);
    const c = await this.collection(ws, ref);
    return (await this.store.documents.updateCollection(ws.id, c.id, { instructions }))!;
  }

  async setWorkspaceInstructions(ws: Workspace, access: DocumentAccess, instructions: string): Promise<Workspace> {
    assertMayShape(access, 'write the workspace instructions');
    this.assertInstructions(instructions);
    await this.store.workspaces.update(ws.id, { instructions });
    return { ...ws, instructions };
  }

  /** A collection identifier from its name: "Product Specs" → `product-specs`. */
  keyFor(name: string): string {
    if (!name) throw invalidInput('The collection name is empty; give it a short name such as "Specs".');
    if (name.length > LIMITS.collectionName)
      throw invalidInput(`The collection name is longer than ${LIMITS.collectionName} characters; shorten it.`);
    const key = slugify(name);
    if (!isSlug(key))
      throw invalidInput(`"${name}" does not make a usable collection identifier; use letters, digits and spaces.`);
    return key;
  }

  private assertStructured(ws: Workspace, what: string) {
    if (ws.kind !== 'structured') {
      throw new SwitchboardError(
        'INVALID_INPUT',
        `The workspace "${ws.slug}" is Simplified: it has no ${what}. Use update_workspace_instructions for its instructions.`,
      );
    }
  }

  private assertInstructions(instructions: string) {
    if (instructions.length > LIMITS.instructions)
      throw invalidInput(
        `The instructions are ${instructions.length} characters; the limit is ${LIMITS.instructions}.`,
      );
  }
}
