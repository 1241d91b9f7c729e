import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYSTEM } from '../../../src/core/actor.ts';
import { OrgService } from '../../../src/core/organizations/org-service.ts';
import { type Store, systemClock } from '../../../src/core/ports.ts';
import type { Database } from '../../../src/infra/db/client.ts';
import { createStore } from '../../../src/infra/db/store.ts';
import { databases } from '../../support/db.ts';

describe.each(databases())('the audit trail on $kind', (kind) => {
  let database: Database;
  let store: Store;
  let workspaceId: string;

  beforeAll(async () => {
    database = await kind.open();
    store = createStore(database.db);
    const orgs = new OrgService(store, systemClock);
    await orgs.init({ org: 'Acme', admin: 'alice' });
    workspaceId = (await orgs.addWorkspace(SYSTEM, { name: 'Audit', org: 'acme' })).id;
  });
  afterAll(() => database.close());

  it('records an entry whose text jsonb cannot hold (a NUL, a lone surrogate), with U+FFFD in its place', async () => {
    await store.audit.record({
      workspaceId,
      agentId: null,
      onBehalfOf: null,
      action: 'send_message',
      target: 'to \ud800',
      result: 'refused: INVALID_INPUT',
      details: { reason: 'half \udc00 a character', nested: ['a\u0000b', 'ok \u{1F600}'] },
    });
    const [entry] = await store.audit.list(workspaceId, 1);
    expect(entry).toMatchObject({
      action: 'send_message',
      target: 'to \uFFFD',
      details: { reason: 'half \uFFFD a character', nested: ['a\uFFFDb', 'ok \u{1F600}'] },
    });
  });
});
