// Which intake items an agent may read. An item is as private as its most
// private source: its title and summary are often a source's own words (an
// automatic item's are the guest's message), so an agent that does not monitor
// the workspace sees an item only when it saw every message the item came from
// — the rule the web intake page applies to people. Intake never carries a DM
// or a restricted channel to a wider audience.
import type { IntakeFilter, IntakeItem, IntakeSource } from './intake-item.ts';

/** An agent reading intake in one workspace. */
export interface IntakeReader {
  agentId: string;
  /** Monitors read every item and every excerpt. */
  monitor: boolean;
  /** Whether the agent sent, received or overheard the message (asked once per message). */
  saw(messageId: string): Promise<boolean>;
  /** Asks about these messages at once (one statement), so the `saw` calls that follow need none. */
  see(messageIds: string[]): Promise<void>;
}

type WithSources = Pick<IntakeItem, 'filedBy'> & { sources: Array<Pick<IntakeSource, 'messageId'>> };

/** A reader that asks `involvedIn` about each message once, a batch at a time. */
export function intakeReader(
  agentId: string,
  monitor: boolean,
  involvedIn: (agentId: string, messageIds: string[]) => Promise<Set<string>>,
): IntakeReader {
  const asked = new Map<string, Promise<boolean>>();
  const see = (messageIds: string[]) => {
    const fresh = [...new Set(messageIds.filter((id) => !asked.has(id)))];
    if (!fresh.length) return Promise.resolve();
    const found = involvedIn(agentId, fresh);
    for (const id of fresh)
      asked.set(
        id,
        found.then((ids) => ids.has(id)),
      );
    return found.then(() => undefined);
  };
  return {
    agentId,
    monitor,
    see,
    async saw(messageId) {
      if (!asked.has(messageId)) await see([messageId]);
      return asked.get(messageId)!;
    },
  };
}

/**
 * Whether the reader may see the item at all: a monitor always; the agent
 * that filed it always (it cited only messages it saw, and keeps its item once
 * their history is purged); any other agent only when it saw every source.
 */
export async function seesItem(r: IntakeReader, item: WithSources): Promise<boolean> {
  if (r.monitor || item.filedBy === r.agentId) return true;
  if (!item.sources.length) return false;
  await r.see(item.sources.map((s) => s.messageId));
  return (await Promise.all(item.sources.map((s) => r.saw(s.messageId)))).every(Boolean);
}

/** Whether the reader may see a source's excerpt (its author's words). */
export function seesExcerpt(r: IntakeReader, s: Pick<IntakeSource, 'messageId'>): Promise<boolean> {
  return r.monitor ? Promise.resolve(true) : r.saw(s.messageId);
}

/** Whether an item passes a list filter (status, kind, a source's surface); the limit is the caller's. */
export function matchesFilter(
  i: Pick<IntakeItem, 'status' | 'kind'> & { sources: Array<Pick<IntakeSource, 'surface'>> },
  f: Omit<IntakeFilter, 'limit'>,
): boolean {
  return (
    (!f.status || i.status === f.status) &&
    (!f.kind || i.kind === f.kind) &&
    (!f.surface || i.sources.some((s) => s.surface === f.surface))
  );
}

/** Counts of these items per status and per source surface (an item with sources on two surfaces counts on both), as the repository counts a workspace. */
export function countItems(
  items: Array<Pick<IntakeItem, 'status'> & { sources: Array<Pick<IntakeSource, 'surface'>> }>,
) {
  const counts = {
    bySurface: {} as Record<string, number>,
    byStatus: {} as Record<string, number>,
    total: items.length,
  };
  for (const i of items) {
    counts.byStatus[i.status] = (counts.byStatus[i.status] ?? 0) + 1;
    for (const s of new Set(i.sources.map((x) => x.surface))) counts.bySurface[s] = (counts.bySurface[s] ?? 0) + 1;
  }
  return counts;
}
