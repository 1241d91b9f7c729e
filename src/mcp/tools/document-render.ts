import type { Collection, Document, DocumentSummary } from '../../core/documents/document.ts';
import type { DocumentToolset } from '../../core/documents/rules.ts';
import type { Workspace } from '../../core/entities.ts';

/** Collection keys by id, for showing which collection a document is in (null for the hidden one). */
export type CollectionKeys = Map<string, string | null>;

export const keysOf = (collections: Collection[]): CollectionKeys =>
  new Map(collections.map((c) => [c.id, c.hidden ? null : c.key]));

/** A document as list and search show it: never the content. */
export function summaryOut(d: DocumentSummary, keys: CollectionKeys) {
  return {
    id: d.id,
    identifier: d.identifier,
    collection: keys.get(d.collectionId) ?? null,
    title: d.title,
    summary: d.summary,
    status: d.status,
    archived: d.archived,
    updated_at: d.updatedAt.toISOString(),
    updated_by: d.updatedBy,
  };
}

export function documentOut(d: Document, keys: CollectionKeys) {
  return { ...summaryOut(d, keys), content: d.content, created_at: d.createdAt.toISOString() };
}

export function collectionOut(c: Collection) {
  return { identifier: c.key, name: c.name, type: c.type, statuses: c.statuses, instructions: c.instructions };
}

const line = (d: ReturnType<typeof summaryOut>) =>
  `- ${d.identifier} "${d.title}" [${d.status}${d.archived ? ', archived' : ''}] updated_at ${d.updated_at}${d.summary ? `\n  ${d.summary}` : ''}`;

export function summariesText(docs: ReturnType<typeof summaryOut>[], empty: string): string {
  return docs.length ? docs.map(line).join('\n') : empty;
}

export function documentText(d: ReturnType<typeof documentOut>): string {
  const where = d.collection ? ` in ${d.collection}` : '';
  return [
    `${d.identifier} "${d.title}"${where} [${d.status}${d.archived ? ', archived' : ''}] updated_at ${d.updated_at}${d.updated_by ? ` by ${d.updated_by}` : ''}`,
    d.summary ? `Summary: ${d.summary}` : '',
    '',
    d.content,
  ]
    .filter((l, i) => i > 0 || l)
    .join('\n');
}

/**
 * The instructions an agent receives on connect (and in get_workspace_information):
 * the workspace's and each collection's instructions, and what this session may do.
 */
export function instructionsText(
  ws: Workspace,
  collections: Collection[],
  statuses: string[] | null,
  tools: DocumentToolset,
  seatNote: string | null,
): string {
  const parts = [`Documents of the workspace "${ws.name}"${ws.description ? `: ${ws.description}` : '.'}`];
  if (ws.instructions.trim()) parts.push(`Workspace instructions:\n${ws.instructions.trim()}`);
  if (ws.kind === 'structured') {
    parts.push(
      collections.length
        ? [
            'Collections (pass the identifier as `collection`):',
            ...collections.map(
              (c) =>
                `- ${c.key}: "${c.name}" (${c.type}; statuses: ${c.statuses.join(', ')})${c.instructions.trim() ? `\n  Instructions: ${c.instructions.trim().replace(/\n/g, '\n  ')}` : ''}`,
            ),
          ].join('\n')
        : 'There are no collections yet.',
    );
  } else if (statuses) {
    parts.push(`Document statuses: ${statuses.join(', ')}.`);
  }
  parts.push(`Your document tools: ${tools.granted.join(', ')}.`);
  if (tools.granted.includes('update_document')) {
    parts.push(
      'Before update_document, read the document (get_document) and pass its updated_at; if the update is refused because someone wrote since, read it again and redo your change on the new version.',
    );
  }
  if (seatNote) parts.push(seatNote);
  return parts.join('\n\n');
}
