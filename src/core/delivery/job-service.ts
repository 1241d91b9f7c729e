import type { OutboxEntry, OutboxRepo } from '../ports.ts';

/**
 * The outbox as an operator sees it: jobs (inbound Slack and Teams requests, outbound posts, reminders) listed by
 * status and topic, and a job that failed for good put back to run again.
 */
export class JobService {
  constructor(
    private readonly outbox: Pick<OutboxRepo, 'list' | 'get' | 'requeue'>,
    /** Tells the queue there is work due now. */
    private readonly kick: () => void,
  ) {}

  /** The jobs with this status (and topic, when given). */
  list(filter: { status: OutboxEntry['status']; topic?: string }): Promise<OutboxEntry[]> {
    return this.outbox.list(filter);
  }

  /** The job; null when there is none with that id. */
  find(id: string): Promise<OutboxEntry | null> {
    return this.outbox.get(id);
  }

  /**
   * Makes a failed job pending again, due now with its attempts reset, and wakes the queue; null when there is no
   * such job or it has not failed (`find` tells which).
   */
  async retry(id: string): Promise<OutboxEntry | null> {
    const entry = await this.outbox.requeue(id);
    if (entry) this.kick();
    return entry;
  }
}
