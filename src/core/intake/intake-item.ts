// Intake: what people asked for (complaints, bugs, feature requests,
// questions), filed by agents from the messages they received or overheard,
// or by Switchboard from unlinked people's requests. Each item keeps links to
// the messages it came from; when it is done their authors are told, once.
import type { SurfaceName } from '../entities.ts';

export const INTAKE_KINDS = ['complaint', 'bug', 'feature request', 'question'] as const;
export type IntakeKind = (typeof INTAKE_KINDS)[number];
export const INTAKE_STATUSES = ['new', 'triaged', 'in progress', 'done', "won't do"] as const;
export type IntakeStatus = (typeof INTAKE_STATUSES)[number];

export interface IntakeItem {
  id: string;
  workspaceId: string;
  title: string;
  kind: IntakeKind;
  summary: string;
  status: IntakeStatus;
  /** The agent that filed it; null when Switchboard filed it from a request. */
  filedBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A message an item came from, with what is needed to link to it and to tell its author (kept past the message's history). */
export interface IntakeSource {
  itemId: string;
  messageId: string;
  workspaceId: string;
  conversationId: string;
  surface: SurfaceName;
  /** Slack permalink, Teams deep link, or the web chat's link; null when the platform gave none. */
  permalink: string | null;
  excerpt: string;
  authorAgentId: string | null;
  authorPersonId: string | null;
  authorIdentityId: string | null;
  notifiedAt: Date | null;
  addedAt: Date;
}

export interface IntakeNote {
  id: string;
  itemId: string;
  authorAgentId: string | null;
  body: string;
  createdAt: Date;
}

export interface IntakeFilter {
  status?: IntakeStatus;
  kind?: IntakeKind;
  /** Items with at least one source from this surface. */
  surface?: SurfaceName;
  limit: number;
  /** Skip this many of the newest matching items (to page through a long list). */
  offset?: number;
}

export interface IntakeRepo {
  create(item: Omit<IntakeItem, 'id' | 'createdAt' | 'updatedAt' | 'status'>, at: Date): Promise<IntakeItem>;
  /** Null when absent or in another workspace. */
  get(workspaceId: string, id: string): Promise<IntakeItem | null>;
  /** Newest first. */
  list(workspaceId: string, f: IntakeFilter): Promise<IntakeItem[]>;
  /** Adds sources; those already on the item are left as they are. Returns how many were new. */
  addSources(sources: Array<Omit<IntakeSource, 'notifiedAt' | 'addedAt'>>): Promise<number>;
  /** The sources of these items, oldest first. */
  sources(itemIds: string[]): Promise<IntakeSource[]>;
  /** The notes of these items, oldest first. */
  notes(itemIds: string[]): Promise<IntakeNote[]>;
  addNote(n: Omit<IntakeNote, 'id' | 'createdAt'>, at: Date): Promise<IntakeNote>;
  /** Sets the status; returns the status it had (null when the item is absent). */
  setStatus(workspaceId: string, id: string, status: IntakeStatus, at: Date): Promise<IntakeStatus | null>;
  touch(id: string, at: Date): Promise<void>;
  /** Marks the source notified if it was not; true only the first time. */
  claimNotice(itemId: string, messageId: string, at: Date): Promise<boolean>;
  /** Sets the excerpt of every source citing this message (edited or deleted on its platform); returns how many. */
  reexcerpt(workspaceId: string, messageId: string, excerpt: string): Promise<number>;
  /**
   * Gives a new title and summary to the items filed automatically from this message whose summary is still
   * `summaryWas` (its old text, as filed); returns how many.
   */
  retitleAutomatic(
    workspaceId: string,
    messageId: string,
    summaryWas: string,
    next: { title: string; summary: string },
    at: Date,
  ): Promise<number>;
  /** The items filed automatically that already have a source in this conversation. */
  autoItemIn(workspaceId: string, conversationId: string): Promise<IntakeItem | null>;
  /** Items per surface of their sources (an item with sources on two surfaces counts on both), and per status. */
  counts(
    workspaceId: string,
  ): Promise<{ bySurface: Record<string, number>; byStatus: Record<string, number>; total: number }>;
  /** Whether any of these subjects (`person:<id>`, `identity:<id>`) opted out of done notices. */
  optedOut(subjects: string[]): Promise<boolean>;
  /** Opts a subject out of done notices, or back in. */
  setOptOut(subject: string, out: boolean): Promise<void>;
}
