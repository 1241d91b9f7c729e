// A streamed message kept in Switchboard's store while it grows, so that it
// outlives the process writing it. Each stream is one outbox entry of topic
// LIVE_RESCUE, due a while after the stream would have ended by itself: its
// payload is rewritten with the text (and the live post) at each live update,
// and the entry is closed once the message is stored or given up. When the
// process stops without doing either, the entry comes due and any process
// finishes the stream from it (LiveService.rescue), with the outbox's leases
// and retries.
import { z } from 'zod';
import type { OutboxRepo } from '../ports.ts';

/** The job that finishes a streamed message its process left open. */
export const LIVE_RESCUE = 'live.rescue';

/** A stream as it is kept: who writes it where, what it says so far, and the post it made on a chat platform. */
export const SavedDraft = z.object({
  id: z.string().uuid(),
  workspaceId: z.string().min(1),
  senderId: z.string().min(1),
  /** The conversation the stream was resolved to when it started. */
  conversationId: z.string().min(1),
  /** Where the agent asked it to go, as start_message took it: stored the same way. */
  target: z.object({
    to: z.array(z.string()).optional(),
    conversationId: z.string().optional(),
    replyTo: z.string().optional(),
  }),
  surface: z.string().optional(),
  text: z.string(),
  post: z
    .object({ kind: z.enum(['stream', 'post']), externalId: z.string().min(1), permalink: z.string().nullable() })
    .nullable(),
});
export type SavedDraft = z.infer<typeof SavedDraft>;

/** Where streams are kept while they grow. */
export interface LiveDrafts {
  /** Keeps the draft (again), to be finished by any process once `dueAt` passes unless dropped before. */
  keep(draft: SavedDraft, dueAt: Date): Promise<void>;
  /** Forgets a draft whose message is stored or given up. */
  drop(id: string): Promise<void>;
  /** Whether a draft of this id is kept and not yet finished (by its process or a rescue). */
  isOpen(id: string): Promise<boolean>;
}

/** Drafts kept as LIVE_RESCUE entries of the outbox, one per stream, under the stream's id. */
export function outboxDrafts(outbox: Pick<OutboxRepo, 'addOnce' | 'reschedule' | 'markDone' | 'get'>): LiveDrafts {
  const added = new Set<string>();
  return {
    async keep(draft, dueAt) {
      const payload = { ...draft };
      // Once claimed (a rescue is finishing it: this process was thought gone), it is left alone; the message id
      // settles which of the two stores it.
      if (added.has(draft.id)) return void (await outbox.reschedule(draft.id, payload, dueAt));
      added.add(draft.id);
      if (!(await outbox.addOnce({ id: draft.id, topic: LIVE_RESCUE, payload, runAt: dueAt })))
        await outbox.reschedule(draft.id, payload, dueAt);
    },
    async drop(id) {
      added.delete(id);
      await outbox.markDone(id);
    },
    async isOpen(id) {
      const entry = await outbox.get(id);
      return entry?.topic === LIVE_RESCUE && (entry.status === 'pending' || entry.status === 'queued');
    },
  };
}
