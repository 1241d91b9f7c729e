// Wake-ups sent while the LISTEN connection is down never arrive; once it is
// back, whoever waits must look at the database again instead of sleeping
// until their wait times out.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { PgListener } from '../../../src/infra/db/pg-listener.ts';
import { PgNotifier } from '../../../src/infra/db/pg-notifier.ts';
import { waitForWake } from '../../../src/core/messaging/inbox-wait.ts';
import { freshPostgresDatabase } from '../../support/db.ts';
import { serviceUrl } from '../../support/services.ts';

const url = serviceUrl('postgres');

describe.runIf(url)('wake-ups across a lost LISTEN connection (PostgreSQL)', () => {
  let fresh: Awaited<ReturnType<typeof freshPostgresDatabase>>;
  let sender: pg.Client;
  let listener: PgListener;
  let notifier: PgNotifier;
  /** Another process's notifier on the same database: it publishes by NOTIFY only (it listens to nothing). */
  let elsewhere: PgNotifier;
  /** While true, the listener's new connections go to a port nobody listens on (the database is unreachable). */
  let unreachable = false;

  beforeAll(async () => {
    fresh = await freshPostgresDatabase(url!);
    sender = new pg.Client({ connectionString: fresh.url });
    sender.on('error', () => {});
    await sender.connect();
    listener = new PgListener(
      () =>
        new pg.Client({
          connectionString: unreachable ? 'postgres://postgres@127.0.0.1:1/nowhere' : fresh.url,
          connectionTimeoutMillis: 5_000,
        }),
    );
    const database = {
      listen: (channel: string, onPayload: (p: string) => void, onResume?: () => void) =>
        listener.listen(channel, onPayload, onResume),
      notify: async (channel: string, payload: string) => {
        await sender.query('select pg_notify($1, $2)', [channel, payload]);
      },
    } as unknown as Database;
    notifier = new PgNotifier(database);
    elsewhere = new PgNotifier({ notify: database.notify, listen: async () => async () => {} } as unknown as Database);
  });

  afterAll(async () => {
    await notifier?.close();
    await elsewhere?.close();
    await listener?.close();
    await sender?.end().catch(() => {});
    await fresh?.drop();
  });

  it('wakes a waiter to look again once listening works again, so a change made during the gap is returned at once', async () => {
    let stored: string | null = null;
    let takes = 0;
    const waiting = waitForWake({
      notifier,
      topic: 'inbox:agent-1',
      timeoutMs: 60_000,
      take: async () => {
        takes += 1;
        return stored;
      },
      found: (v) => v !== null,
    });
    await vi.waitFor(() => expect(listener.connected && takes === 1).toBe(true));

    unreachable = true;
    await sender.query(
      'select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    await vi.waitFor(() => expect(listener.connected).toBe(false));
    // The change and its wake-up happen in another process while nobody here listens: the NOTIFY is lost.
    stored = 'hello';
    await elsewhere.publish('inbox:agent-1', 'message-1');
    const started = Date.now();
    unreachable = false;

    const result = await waiting;
    expect(result).toEqual({ value: 'hello', timedOut: false });
    expect(takes).toBe(2);
    // Woken by the reconnect (backoff at most 5 s), not by the 60-second timeout.
    expect(Date.now() - started).toBeLessThan(45_000);
  }, 90_000);

  it('wakes a subscriber in the publishing process at once and once only, and one in another process by NOTIFY', async () => {
    const here: string[] = [];
    const there: string[] = [];
    await vi.waitFor(() => expect(listener.connected).toBe(true));
    const stopHere = await notifier.subscribe('inbox:agent-2', (p) => here.push(p));
    // `elsewhere` stands for another process: what `notifier` publishes reaches it through the database.
    const theirs = new PgNotifier({
      notify: async () => {},
      listen: (c: string, f: (p: string) => void) => listener.listen(c, f),
    } as unknown as Database);
    const stopThere = await theirs.subscribe('inbox:agent-2', (p) => there.push(p));

    await notifier.publish('inbox:agent-2', 'message-2\nwith a second line');
    // Delivered before publish returned, without the round trip through PostgreSQL.
    expect(here).toEqual(['message-2\nwith a second line']);
    await vi.waitFor(() => expect(there).toEqual(['message-2\nwith a second line']));
    // A later publish from elsewhere is heard here; by then our own NOTIFY's echo would have arrived, and was not delivered again.
    await elsewhere.publish('inbox:agent-2', 'message-3');
    await vi.waitFor(() => expect(here).toEqual(['message-2\nwith a second line', 'message-3']));
    await Promise.all([stopHere(), stopThere(), theirs.close()]);
  }, 60_000);

  it('sends a wake-up for several topics as one NOTIFY, split only past the payload limit, and wakes each topic once in another process', async () => {
    await vi.waitFor(() => expect(listener.connected).toBe(true));
    const sent: string[] = [];
    const counting = new PgNotifier({
      notify: async (c: string, p: string) => {
        sent.push(p);
        await sender.query('select pg_notify($1, $2)', [c, p]);
      },
      listen: async () => async () => {},
    } as unknown as Database);
    const theirs = new PgNotifier({
      notify: async () => {},
      listen: (c: string, f: (p: string) => void) => listener.listen(c, f),
    } as unknown as Database);
    const heard: string[] = [];
    const topics = Array.from(
      { length: 300 },
      (_, i) => `inbox:00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    );
    const stops = await Promise.all(
      [...topics, 'conversation:c-1'].map((t) => theirs.subscribe(t, (p) => heard.push(`${t}=${p}`))),
    );

    await counting.publish([topics[0], 'conversation:c-1', topics[0]], 'm-1\nsecond line');
    expect(sent).toHaveLength(1);
    await vi.waitFor(() =>
      expect(heard.sort()).toEqual(['conversation:c-1=m-1\nsecond line', `${topics[0]}=m-1\nsecond line`]),
    );

    heard.length = 0;
    sent.length = 0;
    await counting.publish(topics, 'm-2');
    // 300 topics of 42 bytes do not fit one NOTIFY payload (under 8000 bytes).
    expect(sent.length).toBeGreaterThan(1);
    expect(sent.every((p) => Buffer.byteLength(p) < 8_000)).toBe(true);
    await vi.waitFor(() => expect(heard.length).toBe(300));
    expect(new Set(heard)).toEqual(new Set(topics.map((t) => `${t}=m-2`)));
    await Promise.all([...stops.map((s) => s()), theirs.close(), counting.close()]);
  }, 60_000);
});
