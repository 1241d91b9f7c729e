import type { WorkspaceRole } from '../entities.ts';

/**
 * A container of documents in a workspace. A Structured workspace has as many
 * as its owners open; a Simplified one has exactly one, `hidden`, that agents
 * never see by name.
 */
export interface Collection {
  id: string;
  workspaceId: string;
  /** The identifier agents use (a slug of the name, unique in the workspace). */
  key: string;
  /** A type from the catalogue (`specs`, `runbooks`…). */
  type: string;
  name: string;
  /** Allowed document statuses, in order; the first is the default. */
  statuses: string[];
  instructions: string;
  /** A deactivated collection and its documents are out of agents' sight until an owner reactivates it. */
  active: boolean;
  /** The one collection of a Simplified workspace. */
  hidden: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** What a list or a search shows of a document: never its content. */
export interface DocumentSummary {
  id: string;
  workspaceId: string;
  collectionId: string;
  /** Stable, human-readable, unique in the workspace (e.g. `SPEC-12`). */
  identifier: string;
  title: string;
  summary: string;
  status: string;
  archived: boolean;
  /** Changes on every write; a writer must present the value it read. */
  updatedAt: Date;
  createdAt: Date;
  /** Who wrote last (`alice/builder`, `@alice`); null when unknown. */
  updatedBy: string | null;
}

export interface Document extends DocumentSummary {
  /** Markdown. */
  content: string;
}

export interface NewDocument {
  workspaceId: string;
  collectionId: string;
  /** Prefix of the identifier; the number is allocated by the store. */
  prefix: string;
  title: string;
  summary: string;
  content: string;
  status: string;
  byAgentId: string | null;
  now: Date;
}

/** The fields a writer may change; absent ones stay as they are. */
export interface DocumentPatch {
  title?: string;
  summary?: string;
  content?: string;
  status?: string;
  archived?: boolean;
}

/**
 * What the caller may do with documents: the role and seat of the person an
 * agent works for (fixed when its session opened), or of a signed-in person.
 */
export interface DocumentAccess {
  role: WorkspaceRole;
  hasSeat: boolean;
  /** The agent that writes (recorded as the last writer); null for a person in the web app. */
  agentId: string | null;
  /** Handle of the person whose role and seat these are (named in refusals). */
  personHandle: string;
  /** Name and slug of the organization that assigns seats (named in refusals). */
  org: { name: string; slug: string };
}
