import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../src/infra/db/client.ts';
import { PermanentFailure } from '../../src/core/errors.ts';
import type { Server } from '../../src/server.ts';
import { createHttpApp, listen } from '../../src/http/http.ts';
import { startServerForTest } from '../support/server.ts';
import { pgliteDb } from '../support/db.ts';

const TOKEN = 'metrics-token-0123456789abcdef';

describe('GET /metrics', () => {
  let database: Database;
  let server: Server;
  const scrape = (authorization: string | null = `Bearer ${TOKEN}`) =>
    fetch(`${server.url}/metrics`, { headers: authorization ? { authorization } : {} });
  const metrics = async () => {
    const res = await scrape();
    expect(res.status).toBe(200);
    return res.text();
  };

  beforeAll(async () => {
    database = await pgliteDb.open();
    server = await startServerForTest({
      name: 'metrics',
      database,
      env: { METRICS_TOKEN: TOKEN },
      mounts: [],
      queue: { pollMs: 25, backoff: () => 20, maxAttempts: 3 },
    });
  });
  afterAll(async () => {
    await server.stop();
    await database.close();
  });

  it('refuses a scrape without the token, or with a wrong one, with how to send it', async () => {
    const none = await scrape(null);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await none.json()).error.message).toContain('Authorization: Bearer');
    expect((await scrape('Bearer not-the-token-at-all-000')).status).toBe(401);
  });

  it('counts HTTP requests by matched route and status, never by raw path', async () => {
    await fetch(`${server.url}/readyz`);
    await fetch(`${server.url}/link/SECRET-NONCE-abc123`);
    const text = await metrics();
    expect(text).toMatch(/switchboard_http_requests_total\{method="GET",route="\/readyz",status="200"\} [1-9]/);
    expect(text).toMatch(/switchboard_http_request_duration_seconds_count\{method="GET",route="\/readyz"\} [1-9]/);
    expect(text).toMatch(/switchboard_http_requests_total\{method="GET",route="\(unmatched\)",status="404"\} [1-9]/);
    expect(text).not.toContain('SECRET-NONCE');
  });

  it('samples queue depth and inbound lag per surface from the outbox when scraped', async () => {
    const later = new Date(Date.now() + 24 * 3600_000);
    const { outbox } = server.app.store;
    await outbox.add({ topic: 'inbound.slack.event', payload: {}, runAt: later });
    await outbox.add({ topic: 'inbound.slack.event', payload: {}, runAt: later });
    await outbox.add({ topic: 'inbound.teams.activity', payload: {}, runAt: later });
    await database.db.execute(
      sql`update outbox set created_at = now() - interval '90 seconds' where topic = 'inbound.teams.activity'`,
    );
    const text = await metrics();
    expect(text).toContain('switchboard_queue_depth{topic="inbound.slack.event",status="pending"} 2');
    expect(text).toContain('switchboard_queue_depth{topic="inbound.teams.activity",status="pending"} 1');
    const lag = (surface: string) =>
      Number(new RegExp(`switchboard_inbound_lag_seconds\\{surface="${surface}"\\} ([\\d.e+-]+)`).exec(text)?.[1]);
    expect(lag('teams')).toBeGreaterThanOrEqual(90);
    expect(lag('slack')).toBeLessThan(90);
  });

  it('counts deliveries with their latency, retries and dead letters as the queue records them', async () => {
    const { app } = server;
    let flakyCalls = 0;
    app.queue.register('test.flaky', async () => {
      flakyCalls += 1;
      if (flakyCalls === 1) throw new Error('platform hiccup');
    });
    app.queue.register('test.doomed', async () => {
      throw new PermanentFailure('the channel is gone');
    });
    await app.store.outbox.add({ topic: 'test.flaky', payload: {} });
    await app.store.outbox.add({ topic: 'test.doomed', payload: {} });
    app.queue.kick();
    const text = await vi.waitFor(
      async () => {
        const t = await metrics();
        if (!/switchboard_delivery_latency_seconds_count\{topic="test.flaky"\} 1/.test(t))
          throw new Error('not delivered yet');
        if (!/switchboard_dead_letters_total\{topic="test.doomed"\} 1/.test(t)) throw new Error('not dead yet');
        return t;
      },
      { timeout: 60_000, interval: 100 },
    );
    expect(text).toContain('switchboard_delivery_retries_total{topic="test.flaky"} 1');
    expect(text).toContain('switchboard_queue_depth{topic="test.doomed",status="failed"} 1');
    expect(text).not.toMatch(/switchboard_queue_depth\{topic="test.flaky"/);
  });

  it('is off, with a sentence saying how to turn it on, when METRICS_TOKEN is not set', async () => {
    const { app } = server;
    const web = await createHttpApp({ ...app, config: { ...app.config, metricsToken: undefined } }, []);
    const http = await listen(web, 0, '127.0.0.1');
    try {
      const res = await fetch(`${http.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.status).toBe(404);
      expect((await res.json()).error.message).toContain('set METRICS_TOKEN');
    } finally {
      await http.close();
    }
  });
});
