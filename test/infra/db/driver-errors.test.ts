// What the Store says when the driver refuses a statement: one too large to send
// (more than 65,535 values) is the caller's to split, not an outage, and the
// connection works on.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { isConnectionLost, translateDriverError } from '../../../src/infra/db/errors.ts';
import { createStore } from '../../../src/infra/db/store.ts';
import type { Store } from '../../../src/core/ports.ts';
import { databases } from '../../support/db.ts';

describe.each(databases())('driver errors through the Store ($kind)', (source) => {
  let db: Database;
  let store: Store;
  beforeAll(async () => {
    db = await source.open();
    store = createStore(db.db);
  });
  afterAll(async () => {
    await db?.close();
  });

  it('answers a statement with too many values as INVALID_INPUT with what to do, and goes on working', async () => {
    const ids = Array.from({ length: 70_000 }, (_, i) => `C${i}`);
    await expect(store.listening.removeChannels(randomUUID(), 'slack', ids)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('ask about fewer at a time'),
    });
    // The same connection (PGlite has one) answers the next statement.
    await store.listening.removeChannels(randomUUID(), 'slack', ['C1']);
    expect(await db.ping()).toBeUndefined();
  });
});

describe('a protocol violation (08P01) that is not about a statement too large', () => {
  it('is the database away, as PgBouncer says its own failures with that code before it closes the connection', () => {
    // What node-postgres makes of PgBouncer's answer when no server connection frees up in time.
    const pooler = Object.assign(new Error('query_wait_timeout'), { code: '08P01', severity: 'FATAL' });
    expect(isConnectionLost(pooler)).toBe(true);
    expect(translateDriverError(new Error('Failed query', { cause: pooler }))).toMatchObject({ code: 'UNAVAILABLE' });
    // The server's own answer to too many values stays the caller's to split.
    const tooMany = Object.assign(new Error('bind message has 4464 parameter formats but 0 parameters'), {
      code: '08P01',
      severity: 'ERROR',
    });
    expect(isConnectionLost(tooMany)).toBe(false);
    expect(translateDriverError(tooMany)).toMatchObject({ code: 'INVALID_INPUT' });
  });
});
