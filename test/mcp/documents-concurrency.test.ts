import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/infra/db/client.ts';
import type { App } from '../../src/app.ts';
import { ERROR_META_KEY } from '../../src/mcp/errors.ts';
import { databases } from '../support/db.ts';
import { docsWorld, type DocsWorld } from '../support/mcp/documents-world.ts';
import { connectInProcess, testApp, textOf } from '../support/world.ts';

type Written = { identifier: string; updated_at: string };

describe.each(databases())('no silent overwrites ($kind)', (kind) => {
  let db: Database;
  let app: App;
  let w: DocsWorld;

  beforeAll(async () => {
    db = await kind.open();
    app = await testApp(db);
    w = await docsWorld(app, 'structured');
    const owner = await w.connect('owner');
    await owner.call('create_collection', { type: 'runbooks' });
    await owner.close();
  });
  afterAll(async () => {
    await app.close();
    await db.close();
  });

  it('refuses the second of two agents that read the same version, with the newer updated_at; nothing is lost', async () => {
    const a = await w.connect('writer');
    const b = await w.connect('owner');
    const created = (
      await a.call('create_document', {
        collection: 'runbooks',
        title: 'Restart the API',
        summary: 'When it hangs',
        content: '1. Page on-call.',
      })
    ).structuredContent as Written;

    const readByA = (await a.call('get_document', { document: created.identifier })).structuredContent as Written & {
      content: string;
    };
    const readByB = (await b.call('get_document', { document: created.identifier })).structuredContent as Written & {
      content: string;
    };
    expect(readByB.updated_at).toBe(readByA.updated_at);

    const first = await a.call('update_document', {
      document: created.identifier,
      updated_at: readByA.updated_at,
      content: `${readByA.content}\n2. Drain the node.`,
    });
    expect(first.isError, textOf(first)).toBeFalsy();
    const newer = (first.structuredContent as Written).updated_at;
    expect(newer > readByA.updated_at).toBe(true);

    const second = await b.call('update_document', {
      document: created.identifier,
      updated_at: readByB.updated_at,
      content: `${readByB.content}\n2. Restart the pod.`,
    });
    expect(second.isError).toBe(true);
    expect(second._meta?.[ERROR_META_KEY]).toMatchObject({
      code: 'STALE_VERSION',
      current_updated_at: newer,
      updated_by: `${w.people.writer}/writer-bot`,
    });
    expect(textOf(second)).toContain(`it is now at updated_at ${newer}`);
    expect(textOf(second)).toContain('Read it again with get_document and redo your change');

    // The first edit survived; B redoes its change on the current version and both are kept.
    const reread = (await b.call('get_document', { document: created.identifier })).structuredContent as Written & {
      content: string;
    };
    expect(reread.content).toBe('1. Page on-call.\n2. Drain the node.');
    const redo = await b.call('update_document', {
      document: created.identifier,
      updated_at: reread.updated_at,
      content: `${reread.content}\n3. Restart the pod.`,
    });
    expect(redo.isError, textOf(redo)).toBeFalsy();
    const final = (await a.call('get_document', { document: created.identifier })).structuredContent as {
      content: string;
    };
    expect(final.content).toBe('1. Page on-call.\n2. Drain the node.\n3. Restart the pod.');
    await a.close();
    await b.close();
  });

  it('moves a document against the version it read: a status set meanwhile is kept, not overwritten', async () => {
    const a = await w.connect('writer');
    const owner = await w.connect('owner');
    await owner.call('create_collection', { type: 'runbooks', name: 'Old runbooks' });
    const created = (
      await a.call('create_document', { collection: 'runbooks', title: 'Rotate keys', summary: 'Yearly' })
    ).structuredContent as Written;
    const documents = app.store.documents;
    const update = documents.updateDocument;
    let raced = false;
    // Someone sets a status just after the move read the document.
    documents.updateDocument = (async (...args: Parameters<typeof update>) => {
      if (!raced) {
        raced = true;
        await update.call(documents, args[0], args[1], null, { status: 'verified' }, null, new Date());
      }
      return update.apply(documents, args);
    }) as typeof update;
    try {
      const access = (await app.documents.access(w.ws, w.agents.writer.ownerId, w.agents.writer.id))!;
      const moved = await app.documentAdmin.move(w.ws, access, created.identifier, 'old-runbooks');
      expect(moved).toMatchObject({ status: 'verified' });
    } finally {
      Reflect.deleteProperty(documents, 'updateDocument');
    }
    await a.close();
    await owner.close();
  });

  it('lets exactly one of several simultaneous updates of one version win', async () => {
    const sessions = await Promise.all(
      (['writer', 'owner', 'writer', 'owner', 'writer'] as const).map((who) => w.connect(who)),
    );
    const created = (
      await sessions[0].call('create_document', { collection: 'runbooks', title: 'Rotate keys', summary: '' })
    ).structuredContent as Written;
    for (let round = 0; round < 5; round++) {
      const current = (await sessions[0].call('get_document', { document: created.identifier }))
        .structuredContent as Written;
      const results = await Promise.all(
        sessions.map((s, i) =>
          s.call('update_document', {
            document: created.identifier,
            updated_at: current.updated_at,
            summary: `round ${round} by session ${i}`,
          }),
        ),
      );
      const winners = results.filter((r) => !r.isError);
      expect(winners, `round ${round}`).toHaveLength(1);
      for (const r of results.filter((x) => x.isError))
        expect((r._meta?.[ERROR_META_KEY] as { code: string }).code).toBe('STALE_VERSION');
      const after = (await sessions[0].call('get_document', { document: created.identifier }))
        .structuredContent as Written & { summary: string };
      expect(after.updated_at).toBe((winners[0].structuredContent as Written).updated_at);
      expect(after.summary).toBe(`round ${round} by session ${results.indexOf(winners[0])}`);
    }
    await Promise.all(sessions.map((s) => s.close()));
  });

  it('gives simultaneous new documents distinct identifiers', async () => {
    const sessions = await Promise.all((['writer', 'owner', 'writer', 'owner'] as const).map((who) => w.connect(who)));
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        sessions[i % sessions.length].call('create_document', {
          collection: 'runbooks',
          title: `Parallel ${i}`,
          summary: '',
        }),
      ),
    );
    for (const r of results) expect(r.isError, textOf(r)).toBeFalsy();
    const identifiers = results.map((r) => (r.structuredContent as Written).identifier);
    expect(new Set(identifiers).size).toBe(12);
    await Promise.all(sessions.map((s) => s.close()));
  });

  it('moves updated_at forward on every write even within one millisecond, so an old version never matches again', async () => {
    const frozen = new Date('2031-01-01T00:00:00.000Z');
    const still = await testApp(db, { clock: { now: () => frozen } });
    const c = await connectInProcess(still, w.agents.writer, w.ws.slug);
    const created = (await c.call('create_document', { collection: 'runbooks', title: 'Frozen', summary: '' }))
      .structuredContent as Written;
    expect(created.updated_at).toBe('2031-01-01T00:00:00.000Z');
    const one = (
      await c.call('update_document', {
        document: created.identifier,
        updated_at: created.updated_at,
        title: 'Frozen 1',
      })
    ).structuredContent as Written;
    const two = (
      await c.call('update_document', { document: created.identifier, updated_at: one.updated_at, title: 'Frozen 2' })
    ).structuredContent as Written;
    expect([one.updated_at, two.updated_at]).toEqual(['2031-01-01T00:00:00.001Z', '2031-01-01T00:00:00.002Z']);
    const replay = await c.call('update_document', {
      document: created.identifier,
      updated_at: one.updated_at,
      title: 'Lost?',
    });
    expect(replay.isError).toBe(true);
    expect(textOf(replay)).toContain('2031-01-01T00:00:00.002Z');
    await c.close();
    await still.close();
  });
});
