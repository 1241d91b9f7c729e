import { invalidInput, notPermitted, SwitchboardError } from '../errors.ts';
import { atLeast } from '../organizations/access.ts';
import type { WorkspaceKind, WorkspaceRole } from '../entities.ts';
import type { Collection, DocumentAccess, DocumentPatch, DocumentSummary } from './document.ts';

const READING_TOOLS = ['get_workspace_information', 'list_documents', 'search_documents', 'get_document'] as const;
export const WRITING_TOOLS = ['create_document', 'update_document'] as const;
const COLLECTION_TOOLS = [
  'get_available_collection_types',
  'create_collection',
  'update_collection_instructions',
] as const;
const SIMPLIFIED_OWNER_TOOLS = ['update_workspace_instructions'] as const;

export type DocumentToolName =
  | (typeof READING_TOOLS)[number]
  | (typeof WRITING_TOOLS)[number]
  | (typeof COLLECTION_TOOLS)[number]
  | (typeof SIMPLIFIED_OWNER_TOOLS)[number];

export const LIMITS = {
  title: 200,
  summary: 1_000,
  content: 200_000,
  instructions: 8_000,
  collectionName: 80,
  statuses: 12,
  status: 40,
} as const;

/** The document tools a role gives when its holder has a seat. */
function toolsOfRole(kind: WorkspaceKind, role: WorkspaceRole): DocumentToolName[] {
  const tools: DocumentToolName[] = [...READING_TOOLS];
  if (atLeast(role, 'editor')) tools.push(...WRITING_TOOLS);
  if (role === 'owner') tools.push(...(kind === 'structured' ? COLLECTION_TOOLS : SIMPLIFIED_OWNER_TOOLS));
  return tools;
}

export interface DocumentToolset {
  /** The tools the session lists. */
  granted: DocumentToolName[];
  /** Tools the role would give but the missing seat withholds (a call to one is refused about the seat). */
  withheldForSeat: DocumentToolName[];
}

/**
 * The document tools of a session: every role reads; writing (documents,
 * collections, instructions) needs the role and a seat. Without a seat a
 * would-be writer keeps the reading tools only.
 */
export function documentToolset(kind: WorkspaceKind, role: WorkspaceRole, hasSeat: boolean): DocumentToolset {
  const all = toolsOfRole(kind, role);
  if (hasSeat) return { granted: all, withheldForSeat: [] };
  return {
    granted: [...READING_TOOLS],
    withheldForSeat: all.filter((t) => !(READING_TOOLS as readonly string[]).includes(t)),
  };
}

/** The refusal for someone whose role could write but who holds no seat: it names the seat and who assigns one. */
export function seatRefusal(access: Pick<DocumentAccess, 'personHandle' | 'org'>): SwitchboardError {
  return new SwitchboardError(
    'NEEDS_SEAT',
    `Writing documents needs a seat in the organization ${access.org.name}, and @${access.personHandle} holds none. ` +
      `An admin of ${access.org.name} can assign one in the web app or with \`switchboard seat grant ${access.personHandle} --org ${access.org.slug}\`; ` +
      'reading needs no seat, so the reading tools keep working meanwhile.',
    { seat_org: access.org.slug, person: access.personHandle },
  );
}

/** Owners and editors with a seat write documents. */
export function assertMayWrite(access: DocumentAccess): void {
  if (!atLeast(access.role, 'editor')) {
    throw notPermitted(
      `@${access.personHandle} is a viewer of this workspace, so documents can be read but not written; a workspace owner can make them an editor.`,
    );
  }
  if (!access.hasSeat) throw seatRefusal(access);
}

/** Owners with a seat shape the workspace: collections and their instructions. */
export function assertMayShape(access: DocumentAccess, what: string): void {
  if (access.role !== 'owner')
    throw notPermitted(
      `Only a workspace owner can ${what}; @${access.personHandle} is ${access.role === 'editor' ? 'an editor' : 'a viewer'} here.`,
    );
  if (!access.hasSeat) throw seatRefusal(access);
}

/** Owners manage collections in the web app (rename, deactivate, delete); that is administration, not writing. */
export function assertOwner(role: WorkspaceRole | null, what: string): void {
  if (role !== 'owner') throw notPermitted(`Only a workspace owner (or an organization admin) can ${what}.`);
}

/**
 * The optimistic-concurrency rule: a write must present the `updated_at` it
 * read. When the document moved on, the refusal carries the current value so
 * the writer reads again and redoes its change on top of the other edit.
 */
export function staleVersion(
  current: Pick<DocumentSummary, 'identifier' | 'updatedAt' | 'updatedBy'>,
  read: Date,
): SwitchboardError {
  const now = current.updatedAt.toISOString();
  return new SwitchboardError(
    'STALE_VERSION',
    `${current.identifier} was changed since the version you read (updated_at ${read.toISOString()}); it is now at updated_at ${now}` +
      `${current.updatedBy ? `, written by ${current.updatedBy}` : ''}. Read it again with get_document and redo your change on that version, passing updated_at ${now}.`,
    { current_updated_at: now, updated_by: current.updatedBy },
  );
}

/** A status must be one of the collection's statuses. */
export function assertStatus(collection: Pick<Collection, 'statuses' | 'name' | 'hidden'>, status: string): void {
  if (collection.statuses.includes(status)) return;
  const where = collection.hidden ? 'this workspace' : `the collection "${collection.name}"`;
  throw invalidInput(`"${status}" is not a status of ${where}; use one of: ${collection.statuses.join(', ')}.`, {
    statuses: collection.statuses,
  });
}

/** Statuses for a new collection: trimmed, lowercase, distinct, 1–12 of them. */
export function normalizeStatuses(statuses: string[]): string[] {
  const out = [...new Set(statuses.map((s) => s.trim().toLowerCase()).filter(Boolean))];
  if (!out.length) throw invalidInput('A collection needs at least one status, e.g. ["draft", "final"].');
  if (out.length > LIMITS.statuses)
    throw invalidInput(`A collection can have at most ${LIMITS.statuses} statuses; you gave ${out.length}.`);
  const long = out.find((s) => s.length > LIMITS.status);
  if (long)
    throw invalidInput(
      `The status "${long.slice(0, 50)}…" is longer than ${LIMITS.status} characters; use a short word.`,
    );
  return out;
}

/** Checks the sizes of what a writer sends; the MCP and web adapters validate shapes, this guards the rule. */
export function assertDocumentFields(fields: DocumentPatch): void {
  const check = (name: 'title' | 'summary' | 'content', value: string | undefined) => {
    if (value === undefined) return;
    if (name === 'title' && !value.trim()) throw invalidInput('The title is empty; give the document a short title.');
    if (value.length > LIMITS[name])
      throw invalidInput(`The ${name} is ${value.length} characters; the limit is ${LIMITS[name]}.`);
  };
  check('title', fields.title);
  check('summary', fields.summary);
  check('content', fields.content);
}

/** Whether a patch changes anything (an empty update is refused rather than bumping `updated_at`). */
export const isEmptyPatch = (p: DocumentPatch) =>
  p.title === undefined &&
  p.summary === undefined &&
  p.content === undefined &&
  p.status === undefined &&
  p.archived === undefined;
