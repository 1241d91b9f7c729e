// The outbox as the metrics see it: a job is counted by the process that ran it, and with BullMQ that may be another
// process than the one that claimed the entry and handed it to Redis.
import { describe, expect, it } from 'vitest';
import type { OutboxEntry, OutboxRepo } from '../../../src/core/ports.ts';
import { createMetrics } from '../../../src/infra/metrics/metrics.ts';

const LEASE_MS = 30_000;

/** Two processes' metrics over one outbox holding one entry, with a clock the test moves. */
function twoProcesses() {
  let t = Date.UTC(2025, 0, 1);
  const entry = (): OutboxEntry => ({
    id: '00000000-0000-4000-8000-000000000001',
    topic: 'inbound.slack',
    payload: {},
    orderingKey: null,
    status: 'queued',
    attempts: 1,
    runAt: new Date(t + LEASE_MS),
    lastError: null,
    createdAt: new Date(t),
    inbound: null,
  });
  const outbox = {
    claimDue: async (limit: number) => (limit > 0 ? [entry()] : []),
    renewLease: async () => entry(),
    markDone: async () => {},
  } as unknown as OutboxRepo;
  const processes = [0, 1].map(() => {
    const metrics = createMetrics({ db: () => ({}) as never, now: () => new Date(t), defaultMetrics: false });
    const delivered = async () => {
      const { values } = await metrics.registry.getSingleMetric('switchboard_delivery_latency_seconds')!.get();
      const counts = values as Array<{ metricName?: string; labels: { topic?: string }; value: number }>;
      return (
        counts.find(
          (v) => v.metricName === 'switchboard_delivery_latency_seconds_count' && v.labels.topic === 'inbound.slack',
        )?.value ?? 0
      );
    };
    return { outbox: metrics.meterOutbox(outbox), delivered };
  });
  return { processes, id: entry().id, advance: (ms: number) => (t += ms) };
}

describe('the metered outbox', () => {
  it('counts a job in the process whose worker ran it, not in the one that claimed it', async () => {
    const {
      processes: [relay, worker],
      id,
    } = twoProcesses();
    await relay.outbox.claimDue(1, new Date(), LEASE_MS);
    // The BullMQ worker takes the lease afresh, then records the outcome.
    await worker.outbox.renewLease(id, 1, new Date());
    await worker.outbox.markDone(id, 1);
    expect(await worker.delivered()).toBe(1);
    expect(await relay.delivered()).toBe(0);
  });

  it('forgets, once its lease is long over, an entry it claimed and another process ran', async () => {
    const {
      processes: [relay],
      id,
      advance,
    } = twoProcesses();
    await relay.outbox.claimDue(1, new Date(), LEASE_MS);
    advance(LEASE_MS + 2 * 60_000);
    await relay.outbox.claimDue(0, new Date(), LEASE_MS, [{ id: 'other', attempt: 1, status: 'done' }]);
    // Had the claim been kept, this outcome would be counted here.
    await relay.outbox.markDone(id, 1);
    expect(await relay.delivered()).toBe(0);
  });

  it('keeps an entry it runs as long as it renews the lease', async () => {
    const {
      processes: [one],
      id,
      advance,
    } = twoProcesses();
    await one.outbox.claimDue(1, new Date(), LEASE_MS);
    for (let i = 0; i < 10; i++) {
      advance(LEASE_MS / 3);
      await one.outbox.renewLease(id, 1, new Date());
      await one.outbox.claimDue(0, new Date(), LEASE_MS, [{ id: 'other', attempt: 1, status: 'done' }]);
    }
    await one.outbox.markDone(id, 1);
    expect(await one.delivered()).toBe(1);
  });
});
