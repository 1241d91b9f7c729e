// The outbox as the CLI's `jobs list` and `jobs retry` see it, over an in-memory outbox.
import { describe, expect, it } from 'vitest';
import { JobService } from '../../../src/core/delivery/job-service.ts';
import type { OutboxEntry, OutboxRepo } from '../../../src/core/ports.ts';

const entry = (id: string, status: OutboxEntry['status'], topic = 'inbound.slack'): OutboxEntry => ({
  id,
  topic,
  payload: {},
  orderingKey: null,
  status,
  attempts: status === 'failed' ? 5 : 0,
  runAt: new Date('2026-01-01T00:00:00Z'),
  lastError: status === 'failed' ? 'channel_not_found' : null,
  createdAt: new Date('2026-01-01T00:00:00Z'),
});

/** The three outbox calls JobService makes, over a map (requeue as the repository does it: failed entries only). */
function memoryOutbox(entries: OutboxEntry[]): Pick<OutboxRepo, 'list' | 'get' | 'requeue'> {
  const byId = new Map(entries.map((e) => [e.id, e]));
  return {
    list: async ({ status, topic }) =>
      [...byId.values()].filter((e) => (!status || e.status === status) && (!topic || e.topic === topic)),
    get: async (id) => byId.get(id) ?? null,
    requeue: async (id) => {
      const e = byId.get(id);
      if (e?.status !== 'failed') return null;
      const again = { ...e, status: 'pending' as const, attempts: 0 };
      byId.set(id, again);
      return again;
    },
  };
}

describe('the jobs an operator sees', () => {
  it('lists jobs by status and topic', async () => {
    const jobs = new JobService(
      memoryOutbox([entry('a', 'failed'), entry('b', 'failed', 'slack.post'), entry('c', 'pending')]),
      () => {},
    );
    expect((await jobs.list({ status: 'failed' })).map((e) => e.id)).toEqual(['a', 'b']);
    expect((await jobs.list({ status: 'failed', topic: 'slack.post' })).map((e) => e.id)).toEqual(['b']);
  });

  it('puts a failed job back to run now and wakes the queue', async () => {
    let kicks = 0;
    const jobs = new JobService(memoryOutbox([entry('a', 'failed')]), () => kicks++);
    expect(await jobs.retry('a')).toMatchObject({ id: 'a', status: 'pending', attempts: 0 });
    expect(kicks).toBe(1);
  });

  it('retries nothing that has not failed, nor an unknown job, and leaves the queue alone', async () => {
    let kicks = 0;
    const jobs = new JobService(memoryOutbox([entry('c', 'pending')]), () => kicks++);
    expect(await jobs.retry('c')).toBeNull();
    expect(await jobs.retry('nope')).toBeNull();
    expect(await jobs.find('c')).toMatchObject({ status: 'pending' });
    expect(await jobs.find('nope')).toBeNull();
    expect(kicks).toBe(0);
  });
});
