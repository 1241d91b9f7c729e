import express, { type Request, type Response, type Router } from 'express';
import type { App } from '../../app.ts';
import type { Collection, Document, DocumentSummary } from '../../core/documents/document.ts';
import { authOf, requireCsrf, requirePerson } from '../auth/index.ts';
import { actions, docsViewer, parse, schemas, seatsOf, type DocsViewer } from './actions.ts';

const viewerOf = (res: Response) => res.locals.docsViewer as DocsViewer;

const collectionJson = (c: Collection, documents?: number) => ({
  id: c.id,
  key: c.key,
  name: c.name,
  type: c.type,
  statuses: c.statuses,
  instructions: c.instructions,
  active: c.active,
  ...(documents === undefined ? {} : { documents }),
});

const summaryJson = (d: DocumentSummary) => ({
  id: d.id,
  identifier: d.identifier,
  collectionId: d.collectionId,
  title: d.title,
  summary: d.summary,
  status: d.status,
  archived: d.archived,
  updatedAt: d.updatedAt.toISOString(),
  updatedBy: d.updatedBy,
});

const documentJson = (d: Document) => ({ ...summaryJson(d), content: d.content, createdAt: d.createdAt.toISOString() });

/**
 * The documents JSON API under /api/docs: browse and read (every role), move a
 * document (editors and owners with a seat), rename, deactivate or delete a
 * collection (owners), assign seats (organization admins). Every route needs a
 * session; every change needs the CSRF token.
 */
export function documentsApi(app: App): Router {
  const api = express.Router();
  api.use(express.json({ limit: '16kb' }), requirePerson(app), requireCsrf(app));

  const ws = express.Router({ mergeParams: true });
  api.use('/w/:workspace', ws);
  ws.use(async (req: Request, res, next) => {
    res.locals.docsViewer = await docsViewer(app, authOf(res)!.person, String(req.params.workspace));
    next();
  });

  ws.get('/', async (_req, res) => {
    const v = viewerOf(res);
    const collections =
      v.ws.kind === 'structured'
        ? await app.documents.allCollections(v.ws)
        : [await app.documents.hiddenCollection(v.ws)];
    const counts = await Promise.all(collections.map((c) => app.store.documents.countDocuments(v.ws.id, c.id)));
    res.json({
      workspace: {
        slug: v.ws.slug,
        name: v.ws.name,
        kind: v.ws.kind,
        description: v.ws.description,
        instructions: v.ws.instructions,
      },
      you: { handle: v.person.handle, role: v.role, hasSeat: v.access.hasSeat, orgAdmin: v.isOrgAdmin },
      collections: collections.map((c, i) => collectionJson(c, counts[i])),
      ...(v.isOrgAdmin ? { people: await seatsOf(app, v.ws) } : {}),
    });
  });

  ws.get('/documents', async (req, res) => {
    const v = viewerOf(res);
    const q = parse(schemas.list, req.query);
    if (q.q) {
      const hits = await app.documents.search(v.ws, {
        text: q.q,
        collection: q.collection,
        includeArchived: q.archived,
        includeInactive: true,
      });
      res.json({ documents: hits.map(summaryJson), total: hits.length, truncated: false });
      return;
    }
    const list = await app.documents.list(v.ws, {
      collection: q.collection,
      status: q.status,
      includeArchived: q.archived,
      offset: q.offset,
      includeInactive: true,
    });
    res.json({
      collection: collectionJson(list.collection),
      documents: list.items.map(summaryJson),
      total: list.total,
      truncated: list.truncated,
    });
  });

  ws.get('/documents/:document', async (req, res) => {
    res.json({
      document: documentJson(
        await app.documents.get(viewerOf(res).ws, String(req.params.document), { includeInactive: true }),
      ),
    });
  });

  ws.post('/documents/:document/move', async (req, res) => {
    const moved = await actions.move(app, viewerOf(res), String(req.params.document), req.body);
    res.json({ document: summaryJson(moved) });
  });

  ws.patch('/collections/:collection', async (req, res) => {
    res.json({
      collection: collectionJson(
        await actions.updateCollection(app, viewerOf(res), String(req.params.collection), req.body),
      ),
    });
  });

  ws.delete('/collections/:collection', async (req, res) => {
    await actions.deleteCollection(app, viewerOf(res), String(req.params.collection));
    res.status(204).end();
  });

  ws.put('/seats/:handle', async (req, res) => {
    const r = await actions.setSeat(app, viewerOf(res), String(req.params.handle), req.body);
    res.json({ handle: r.person.handle, hasSeat: r.hasSeat, org: r.org.slug });
  });

  return api;
}
