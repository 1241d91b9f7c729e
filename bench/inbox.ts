// Counting what reached an agent's inbox while a bench runs: it waits on the inbox's wake-ups (one per message stored)
// rather than polling, which would cost CPU and statements that count against the load; each wait ends by counting
// the deliveries (`polls` says how many counts were made, so a bench can leave their statements out).
import { count } from 'drizzle-orm';
import type { App } from '../src/app.ts';
import { inboxTopic } from '../src/core/messaging/messaging-service.ts';
import type { Database } from '../src/infra/db/client.ts';
import { deliveries } from '../src/infra/db/schema.ts';

export interface InboxCounter {
  /** Deliveries stored so far, to any agent. */
  delivered(): Promise<number>;
  /** Resolves once `n` deliveries are stored. */
  drained(n: number): Promise<void>;
  /** How many counts were made so far. */
  polls(): number;
  close(): Promise<void>;
}

export async function inboxCounter(app: App, db: Database, agentId: string): Promise<InboxCounter> {
  let polls = 0;
  let woken = 0;
  let wake = () => {};
  const unsubscribe = await app.notifier.subscribe(inboxTopic(agentId), () => {
    woken += 1;
    wake();
  });
  const delivered = async () => {
    polls += 1;
    return Number((await db.db.select({ n: count() }).from(deliveries))[0].n);
  };
  return {
    delivered,
    async drained(n) {
      for (;;) {
        const before = woken;
        const missing = n - (await delivered());
        if (missing <= 0) return;
        // Ends early (a recount) when a wake-up was for a message already counted; never ends with one missing.
        await new Promise<void>((r) => {
          wake = () => {
            if (woken >= before + missing) r();
          };
          setTimeout(r, 250);
        });
      }
    },
    polls: () => polls,
    close: unsubscribe,
  };
}
