import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/infra/db/client.ts';
import type { App } from '../../src/app.ts';
import { pgliteDb } from '../support/db.ts';
import { docsWorld, type DocsWorld } from '../support/mcp/documents-world.ts';
import { testApp, textOf } from '../support/world.ts';

let db: Database;
let app: App;
let w: DocsWorld;
let writer: Awaited<ReturnType<DocsWorld['connect']>>;
let viewer: Awaited<ReturnType<DocsWorld['connect']>>;

type Summary = {
  identifier: string;
  title: string;
  status: string;
  archived: boolean;
  updated_at: string;
  collection: string | null;
};
const docsOf = (r: { structuredContent?: unknown }) => (r.structuredContent as { documents: Summary[] }).documents;

beforeAll(async () => {
  db = await pgliteDb.open();
  app = await testApp(db);
  w = await docsWorld(app, 'structured');
  const owner = await w.connect('owner');
  await owner.call('create_collection', { type: 'specs' });
  await owner.call('create_collection', { type: 'notes' });
  await owner.close();
  writer = await w.connect('writer');
  viewer = await w.connect('viewer');
});
afterAll(async () => {
  await writer.close();
  await viewer.close();
  await app.close();
  await db.close();
});

const create = async (args: Record<string, unknown>) => {
  const r = await writer.call('create_document', { collection: 'specs', summary: '', ...args });
  expect(r.isError, textOf(r)).toBeFalsy();
  return r.structuredContent as Summary;
};

describe('reading documents over MCP', () => {
  it('creates documents with identifiers from the collection type and the first status by default', async () => {
    const a = await create({ title: 'Login flow', summary: 'How people sign in', content: '# Login\nSteps.' });
    expect(a).toMatchObject({
      identifier: expect.stringMatching(/^SPEC-\d+$/),
      status: 'draft',
      collection: 'specs',
      archived: false,
    });
    const note = await writer.call('create_document', { collection: 'notes', title: 'Standup', summary: 'Monday' });
    expect((note.structuredContent as Summary).identifier).toMatch(/^NOTE-\d+$/);
    const full = await viewer.call('get_document', { document: a.identifier.toLowerCase() });
    expect(full.structuredContent).toMatchObject({
      identifier: a.identifier,
      content: '# Login\nSteps.',
      updated_at: a.updated_at,
    });
    expect(textOf(full)).toContain('# Login');
  });

  it('refuses a status the collection does not have, naming the ones it has', async () => {
    const r = await writer.call('create_document', { collection: 'specs', title: 'X', summary: '', status: 'done' });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain('use one of: draft, in review, approved, implemented');
  });

  it('refuses an unknown collection with the ones that exist', async () => {
    const r = await viewer.call('list_documents', { collection: 'specz' });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain('Collections here: specs, notes');
  });

  it('lists title and summary, never content; filters by status', async () => {
    const d = await create({
      title: 'Billing export',
      summary: 'CSV of invoices',
      content: 'SECRET-CONTENT-TOKEN',
      status: 'approved',
    });
    const all = await viewer.call('list_documents', { collection: 'specs' });
    expect(JSON.stringify(all)).not.toContain('SECRET-CONTENT-TOKEN');
    expect(docsOf(all).map((x) => x.identifier)).toContain(d.identifier);
    const approved = await viewer.call('list_documents', { collection: 'specs', status: 'approved' });
    expect(docsOf(approved).map((x) => x.identifier)).toEqual([d.identifier]);
  });

  it('returns archived documents from get_document but lists them only when asked', async () => {
    const d = await create({ title: 'Old importer', summary: 'Replaced by the new one' });
    const archived = await writer.call('update_document', {
      document: d.identifier,
      updated_at: d.updated_at,
      archived: true,
    });
    expect(archived.isError, textOf(archived)).toBeFalsy();
    expect(textOf(archived)).toContain('Archived');

    expect(docsOf(await viewer.call('list_documents', { collection: 'specs' })).map((x) => x.identifier)).not.toContain(
      d.identifier,
    );
    const withArchived = docsOf(await viewer.call('list_documents', { collection: 'specs', include_archived: true }));
    expect(withArchived.find((x) => x.identifier === d.identifier)).toMatchObject({ archived: true });
    expect(docsOf(await viewer.call('search_documents', { query: 'importer' }))).toEqual([]);
    expect(
      docsOf(await viewer.call('search_documents', { query: 'importer', include_archived: true })).map(
        (x) => x.identifier,
      ),
    ).toEqual([d.identifier]);

    const got = await viewer.call('get_document', { document: d.identifier });
    expect(got.structuredContent).toMatchObject({ identifier: d.identifier, archived: true });

    const back = await writer.call('update_document', {
      document: d.identifier,
      updated_at: (archived.structuredContent as Summary).updated_at,
      archived: false,
    });
    expect((back.structuredContent as Summary).archived).toBe(false);
  });

  it('cuts a long list, says so, and gives the offset to read on', async () => {
    for (let i = 0; i < 7; i++)
      await writer.call('create_document', { collection: 'notes', title: `Note ${i}`, summary: '' });
    const first = await viewer.call('list_documents', { collection: 'notes', limit: 5 });
    const out = first.structuredContent as {
      total: number;
      truncated: boolean;
      next_offset: number | null;
      documents: Summary[];
    };
    expect(out).toMatchObject({ total: 8, truncated: true, next_offset: 5 });
    expect(out.documents).toHaveLength(5);
    expect(textOf(first)).toContain('The list was cut');
    const rest = (await viewer.call('list_documents', { collection: 'notes', limit: 5, offset: 5 }))
      .structuredContent as typeof out;
    expect(rest).toMatchObject({ truncated: false, next_offset: null });
    expect(new Set([...out.documents, ...rest.documents].map((d) => d.identifier)).size).toBe(8);
  });

  it('cuts at 50 by default', async () => {
    for (let i = 0; i < 51; i++)
      await writer.call('create_document', { collection: 'notes', title: `Bulk ${i}`, summary: '' });
    const r = (await viewer.call('list_documents', { collection: 'notes' })).structuredContent as {
      truncated: boolean;
      documents: unknown[];
      total: number;
    };
    expect(r).toMatchObject({ truncated: true, total: 59 });
    expect(r.documents).toHaveLength(50);
  });

  it('searches titles, summaries and identifiers, never content', async () => {
    const d = await create({
      title: 'Rate limiter',
      summary: 'Throttles noisy clients',
      content: 'Uses a zebracorn bucket algorithm.',
    });
    const ids = async (args: Record<string, unknown>) =>
      docsOf(await viewer.call('search_documents', args)).map((x) => x.identifier);
    expect(await ids({ query: 'limiter' })).toEqual([d.identifier]);
    expect(await ids({ query: 'throttles clients' })).toEqual([d.identifier]);
    expect(await ids({ query: d.identifier })).toEqual([d.identifier]);
    expect(await ids({ query: 'zebracorn' })).toEqual([]);
    expect(await ids({ query: 'limiter', collection: 'notes' })).toEqual([]);
    const none = await viewer.call('search_documents', { query: 'zebracorn' });
    expect(textOf(none)).toContain('content is not searched');
  });

  it('keeps documents of another workspace out of reach', async () => {
    const other = await docsWorld(app, 'structured');
    const d = await create({ title: 'Private plan', summary: 'Only here' });
    const c = await other.connect('viewer');
    const r = await c.call('get_document', { document: d.identifier });
    expect(r.isError).toBe(true);
    expect(docsOf(await c.call('search_documents', { query: 'Private plan' }))).toEqual([]);
    await c.close();
  });
});
