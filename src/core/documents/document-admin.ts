import { invalidInput, notFound, SwitchboardError } from '../errors.ts';
import type { Clock, Store } from '../ports.ts';
import type { Workspace, WorkspaceRole } from '../entities.ts';
import type { DocumentService } from './document-service.ts';
import { assertMayWrite, assertOwner, assertStatus } from './rules.ts';
import type { Collection, Document, DocumentAccess } from './document.ts';

/** How often a move is tried against a fresh read when the document changes under it. */
const MOVE_ATTEMPTS = 3;

/**
 * What people do in the web app and agents never can: move a document to
 * another collection, and rename, deactivate or delete a collection.
 */
export class DocumentAdmin {
  constructor(
    private readonly store: Store,
    private readonly docs: DocumentService,
    private readonly clock: Clock,
  ) {}

  /** Any collection of a Structured workspace, deactivated ones included. */
  private async anyCollection(ws: Workspace, ref: string): Promise<Collection> {
    if (ws.kind === 'simplified')
      throw invalidInput(
        `The workspace "${ws.slug}" is Simplified: its documents live in one collection, which cannot be changed.`,
      );
    const c = await this.store.documents.getCollection(ws.id, ref);
    if (!c || c.hidden) throw notFound(`The collection "${ref}"`);
    return c;
  }

  /**
   * Moves a document (its identifier stays). Its status is kept when the target
   * collection has it; otherwise `status` or the target's first status is used.
   */
  async move(ws: Workspace, access: DocumentAccess, ref: string, to: string, status?: string): Promise<Document> {
    assertMayWrite(access);
    const target = await this.anyCollection(ws, to);
    // Written against the version read, like every other write: a status someone set meanwhile is kept, not overwritten.
    for (let attempt = 1; ; attempt++) {
      const doc = await this.docs.get(ws, ref, { includeInactive: true });
      if (target.id === doc.collectionId) throw invalidInput(`${doc.identifier} is already in "${target.name}".`);
      const nextStatus = status ?? (target.statuses.includes(doc.status) ? doc.status : target.statuses[0]);
      assertStatus(target, nextStatus);
      const moved = await this.store.documents.updateDocument(
        ws.id,
        doc.id,
        doc.updatedAt,
        { collectionId: target.id, status: nextStatus },
        access.agentId,
        this.clock.now(),
      );
      if (moved) return moved;
      if (attempt === MOVE_ATTEMPTS)
        throw new SwitchboardError(
          'CONFLICT',
          `${doc.identifier} kept changing while it was being moved, so it was left where it is; try the move again.`,
        );
    }
  }

  /** Renames a collection; its identifier stays, so agents' references keep working. */
  async renameCollection(ws: Workspace, role: WorkspaceRole | null, ref: string, name: string): Promise<Collection> {
    assertOwner(role, 'rename a collection');
    const c = await this.anyCollection(ws, ref);
    const trimmed = name.trim();
    this.docs.keyFor(trimmed); // the same rules as a new name
    return (await this.store.documents.updateCollection(ws.id, c.id, { name: trimmed }))!;
  }

  /** A deactivated collection and its documents leave agents' sight (and the next sessions' instructions) until reactivated. */
  async setCollectionActive(
    ws: Workspace,
    role: WorkspaceRole | null,
    ref: string,
    active: boolean,
  ): Promise<Collection> {
    assertOwner(role, active ? 'reactivate a collection' : 'deactivate a collection');
    const c = await this.anyCollection(ws, ref);
    return (await this.store.documents.updateCollection(ws.id, c.id, { active }))!;
  }

  /** Deletes an empty collection; documents are never deleted, so a collection holding some is refused. */
  async deleteCollection(ws: Workspace, role: WorkspaceRole | null, ref: string): Promise<void> {
    assertOwner(role, 'delete a collection');
    const c = await this.anyCollection(ws, ref);
    if (await this.store.documents.deleteEmptyCollection(ws.id, c.id)) return;
    const n = await this.store.documents.countDocuments(ws.id, c.id);
    throw new SwitchboardError(
      'CONFLICT',
      `"${c.name}" still holds ${n} document${n === 1 ? '' : 's'} (archived ones included), and documents are never deleted. ` +
        'Move them to another collection first, or deactivate the collection instead.',
      { documents: n },
    );
  }
}
