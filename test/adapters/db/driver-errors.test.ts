// What the Store says when the driver refuses a statement: one too large to send
// (more than 65,535 values) is the caller's to split, not an outage, and the
// connection works on.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/adapters/db/client.ts';
import { createStore } from '../../../src/adapters/db/store.ts';
import type { Store } from '../../../src/domain/ports.ts';
import { databases } from '../../support/db.ts';

describe.each(databases())('driver errors through the Store ($kind)', (source) => {
  let db: Database;
  let store: Store;
  beforeAll(async () => {
    db = await source.open();
    store = createStore(db.db);
  });
  afterAll(async () => { await db?.close(); });

  it('answers a statement with too many values as INVALID_INPUT with what to do, and goes on working', async () => {
    const ids = Array.from({ length: 70_000 }, (_, i) => `C${i}`);
    await expect(store.listening.removeChannels(randomUUID(), 'slack', ids))
      .rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('ask about fewer at a time') });
    // The same connection (PGlite has one) answers the next statement.
    await store.listening.removeChannels(randomUUID(), 'slack', ['C1']);
    expect(await db.ping()).toBeUndefined();
  });
});
