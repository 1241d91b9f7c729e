import express, { type Request, type Response, type Router } from 'express';
import type { App } from '../../app.ts';
import { isSwitchboardError } from '../../core/errors.ts';
import { STATUS } from '../http.ts';
import { authOf, csrfField, requireCsrf, requirePerson, securityHeaders } from '../auth/index.ts';
import type { PageUser } from '../layout.ts';
import { actions, docsViewer, parse, schemas, seatsOf, type DocsViewer } from './actions.ts';
import { documentPage, unavailablePage, workspacePage, workspacesPage } from './views.ts';

const enc = encodeURIComponent;
const messages = (req: Request) => ({
  notice: typeof req.query.notice === 'string' ? req.query.notice : undefined,
  error: typeof req.query.error === 'string' ? req.query.error : undefined,
});
const withMessage = (to: string, key: 'notice' | 'error', text: string) => {
  const [path, hash] = to.split('#');
  return `${path}${path.includes('?') ? '&' : '?'}${key}=${enc(text)}${hash ? `#${hash}` : ''}`;
};

/**
 * The documents pages under /docs: server-rendered, no script. Forms post back
 * and redirect with a notice (or the refusal's sentence as an error).
 */
export function documentsPages(app: App): Router {
  const r = express.Router();
  r.use(express.urlencoded({ extended: false, limit: '16kb' }), requirePerson(app, { page: true }), requireCsrf(app));

  /** The signed-in person as the top bar shows them. */
  const userOf = (req: Request, res: Response, docsHref?: string): PageUser => {
    const { person } = authOf(res)!;
    return { displayName: person.displayName, handle: person.handle, csrfField: csrfField(app, req, res), docsHref };
  };

  const page =
    (fn: (req: Request, res: Response, v: DocsViewer, user: PageUser) => Promise<string>) =>
    async (req: Request, res: Response) => {
      securityHeaders(res);
      const user = userOf(req, res);
      try {
        const v = await docsViewer(app, authOf(res)!.person, String(req.params.workspace));
        res.type('html').send(await fn(req, res, v, { ...user, docsHref: `/docs/${enc(v.ws.slug)}` }));
      } catch (e) {
        if (!isSwitchboardError(e)) throw e;
        res.status(STATUS[e.code]).type('html').send(unavailablePage(user, e.message));
      }
    };

  /** Runs a form's action, then goes back to `back` with a notice or the refusal. */
  const form =
    (back: (req: Request) => string, fn: (req: Request, v: DocsViewer) => Promise<string>) =>
    async (req: Request, res: Response) => {
      let to = back(req);
      try {
        const v = await docsViewer(app, authOf(res)!.person, String(req.params.workspace));
        const notice = await fn(req, v);
        to = withMessage(back(req), 'notice', notice);
      } catch (e) {
        if (!isSwitchboardError(e)) throw e;
        to = withMessage(to, 'error', e.message);
      }
      res.redirect(303, to);
    };

  r.get('/', async (req, res) => {
    securityHeaders(res);
    const list = await app.store.workspaces.listForPerson(authOf(res)!.person.id);
    res.type('html').send(workspacesPage(userOf(req, res), list));
  });

  r.get(
    '/:workspace',
    page(async (req, res, v, user) => {
      const q = parse(schemas.list, req.query);
      const collections = v.ws.kind === 'structured' ? await app.documents.allCollections(v.ws) : [];
      const selected =
        v.ws.kind === 'structured'
          ? q.collection
            ? await app.documents.collection(v.ws, q.collection, { includeInactive: true })
            : (collections[0] ?? null)
          : await app.documents.hiddenCollection(v.ws);
      const hits = q.q
        ? await app.documents.search(v.ws, { text: q.q, includeArchived: q.archived, includeInactive: true })
        : null;
      const list =
        !hits && selected
          ? await app.documents.list(v.ws, {
              collection: selected.key,
              status: q.status,
              includeArchived: q.archived,
              offset: q.offset,
              includeInactive: true,
            })
          : null;
      return workspacePage(user, v, {
        csrf: csrfField(app, req, res),
        collections,
        selected,
        list,
        hits,
        q: q.q,
        status: q.status,
        archived: Boolean(q.archived),
        offset: q.offset,
        seats: v.isOrgAdmin ? await seatsOf(app, v.ws) : null,
        ...messages(req),
      });
    }),
  );

  r.get(
    '/:workspace/d/:document',
    page(async (req, res, v, user) => {
      const doc = await app.documents.get(v.ws, String(req.params.document), { includeInactive: true });
      const collections = v.ws.kind === 'structured' ? await app.documents.allCollections(v.ws) : [];
      return documentPage(user, v, doc, { csrf: csrfField(app, req, res), collections, ...messages(req) });
    }),
  );

  const wsPath = (req: Request) => `/docs/${enc(String(req.params.workspace))}`;

  r.post(
    '/:workspace/d/:document/move',
    form(
      (req) => `${wsPath(req)}/d/${enc(String(req.params.document))}`,
      async (req, v) => {
        const moved = await actions.move(app, v, String(req.params.document), req.body);
        return `Moved ${moved.identifier}; it is now "${moved.status}".`;
      },
    ),
  );

  r.post(
    '/:workspace/c/:collection',
    form(
      (req) => `${wsPath(req)}?collection=${enc(String(req.params.collection))}`,
      async (req, v) => {
        const c = await actions.updateCollection(app, v, String(req.params.collection), req.body);
        return `Saved "${c.name}"${c.active ? '' : ' (deactivated: agents no longer see it)'}.`;
      },
    ),
  );

  r.post(
    '/:workspace/c/:collection/delete',
    form(wsPath, async (req, v) => {
      await actions.deleteCollection(app, v, String(req.params.collection));
      return 'Deleted the collection.';
    }),
  );

  r.post(
    '/:workspace/seats/:handle',
    form(
      (req) => `${wsPath(req)}#seats`,
      async (req, v) => {
        const s = await actions.setSeat(app, v, String(req.params.handle), req.body);
        return s.hasSeat ? `@${s.person.handle} now has a seat.` : `@${s.person.handle} no longer has a seat.`;
      },
    ),
  );

  return r;
}
