/** A kind of collection an owner can open, with the statuses it starts with. */
export interface CollectionType {
  type: string;
  name: string;
  description: string;
  /** Prefix of the identifiers of documents created in it (`SPEC-12`). */
  prefix: string;
  defaultStatuses: string[];
  /** Starting instructions for agents writing in a new collection of this type. */
  defaultInstructions: string;
}

/** The catalogue of collection types. Order is the order agents see. */
export const COLLECTION_TYPES: readonly CollectionType[] = [
  {
    type: 'specs',
    name: 'Specs',
    description: 'What to build and why: requirements, designs, acceptance criteria.',
    prefix: 'SPEC',
    defaultStatuses: ['draft', 'in review', 'approved', 'implemented'],
    defaultInstructions: 'Keep the summary to what the spec decides. Move to "approved" only after a person agreed.',
  },
  {
    type: 'runbooks',
    name: 'Runbooks',
    description: 'How to operate something: step-by-step procedures, checks and recoveries.',
    prefix: 'RUN',
    defaultStatuses: ['draft', 'verified', 'outdated'],
    defaultInstructions:
      'Write numbered steps a person can follow under pressure. Mark a runbook "outdated" rather than rewriting history.',
  },
  {
    type: 'decisions',
    name: 'Decisions',
    description: 'Decision records: the context, the options weighed, what was decided.',
    prefix: 'DEC',
    defaultStatuses: ['proposed', 'accepted', 'superseded', 'rejected'],
    defaultInstructions:
      'One decision per document. Never rewrite an accepted decision: write a new one and mark the old "superseded".',
  },
  {
    type: 'notes',
    name: 'Notes',
    description: 'Anything else worth keeping: meeting notes, research, references.',
    prefix: 'NOTE',
    defaultStatuses: ['draft', 'final'],
    defaultInstructions: '',
  },
];

/** The type of the one hidden collection of a Simplified workspace (not offered to owners). */
export const SIMPLIFIED_TYPE: CollectionType = {
  type: 'documents',
  name: 'Documents',
  description: 'The documents of a Simplified workspace.',
  prefix: 'DOC',
  defaultStatuses: ['draft', 'published'],
  defaultInstructions: '',
};

/** Key of the hidden collection of a Simplified workspace. */
export const SIMPLIFIED_KEY = 'documents';

/** The catalogue entry for `type`; null when the catalogue has none. */
export function collectionType(type: string): CollectionType | null {
  if (type === SIMPLIFIED_TYPE.type) return SIMPLIFIED_TYPE;
  return COLLECTION_TYPES.find((t) => t.type === type) ?? null;
}
