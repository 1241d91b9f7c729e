// `/link/:nonce`: the page a chat app's "Link your account" button opens. If
// you are not signed in you sign in and come back; the page shows which chat
// account becomes whose; a POST with the CSRF token confirms. Also the linked
// accounts settings (`/account/links`) and their JSON API (`/api/links`).
import express, { type Request, type Response } from 'express';
import { z } from 'zod';
import type { App } from '../../app.ts';
import { isSwitchboardError } from '../../core/errors.ts';
import { authOf, csrfField, loadSession, requireCsrf, requirePerson, securityHeaders } from '../auth/index.ts';
import type { SafeHtml } from '../html.ts';
import { cardPage } from '../layout.ts';
import type { Mount } from '../http.ts';
import { alreadyLinkedPage, confirmPage, linkedAccountsPage, linkedPage, refusedPage } from './pages.ts';

const nonceParam = z.string().max(200);
const idParam = z.string().uuid({ message: 'must be the id of one of your linked accounts' });

function page(res: Response, status: number, title: string, body: SafeHtml) {
  // The URL holds a secret: no referrer leaves this page, and nothing is cached.
  securityHeaders(res, { noReferrer: true });
  res.status(status).type('html').send(cardPage(title, body));
}

/** A chat identity as the JSON API shows it (never the nonce or anything secret). */
const linkOut = (i: {
  id: string;
  surface: string;
  tenantId: string;
  externalUserId: string;
  displayName: string;
  email: string | null;
  linkedAt: Date | null;
}) => ({
  id: i.id,
  surface: i.surface,
  tenant: i.tenantId,
  user: i.externalUserId,
  name: i.displayName,
  email: i.email,
  linked_at: i.linkedAt?.toISOString() ?? null,
});

/** `/link/:nonce` (GET shows, POST confirms), `/account/links` and `/api/links`. */
export const mountLink: Mount = (web, app: App) => {
  const form = express.urlencoded({ extended: false, limit: '4kb' });
  const wording = (surface: string) => app.links.wording(surface);

  web.get('/link/:nonce', loadSession(app), async (req: Request, res: Response) => {
    const nonce = nonceParam.safeParse(req.params.nonce);
    const check = await app.links.check(nonce.success ? nonce.data : '');
    if (check.state !== 'valid') return page(res, 410, 'This link cannot be used', refusedPage(check.refusal));
    const auth = authOf(res);
    // Sign in first, then come back here (the sign-in page sends people to `next`).
    if (!auth) return res.redirect(303, `/signin?next=${encodeURIComponent(req.originalUrl)}`);
    if (check.linkedTo) return page(res, 409, 'Already linked', alreadyLinkedPage(check, wording, auth.person));
    page(
      res,
      200,
      'Link your chat account',
      confirmPage(
        check,
        wording,
        auth.person,
        csrfField(app, req, res),
        `/link/${encodeURIComponent(req.params.nonce as string)}`,
      ),
    );
  });

  web.post(
    '/link/:nonce',
    form,
    requirePerson(app, { page: true }),
    requireCsrf(app),
    async (req: Request, res: Response) => {
      const { person } = authOf(res)!;
      const nonce = nonceParam.safeParse(req.params.nonce);
      try {
        const { identity } = await app.links.confirm(nonce.success ? nonce.data : '', person.id);
        app.logger.info(
          { person: person.handle, surface: identity.surface, identityId: identity.id },
          'linked a chat account',
        );
        page(res, 200, 'Account linked', linkedPage(identity, wording, person));
      } catch (e) {
        if (!isSwitchboardError(e)) throw e;
        const status = e.details.link === 'linked' ? 409 : 410;
        page(res, status, status === 409 ? 'Already linked' : 'This link cannot be used', refusedPage(e.message));
      }
    },
  );

  web.get('/account/links', requirePerson(app, { page: true }), async (req: Request, res: Response) => {
    const { person } = authOf(res)!;
    const info =
      req.query.unlinked !== undefined ? 'The account was unlinked. Agents now see it as a guest.' : undefined;
    page(
      res,
      200,
      'Linked accounts',
      linkedAccountsPage(
        await app.links.linked(person.id),
        wording,
        app.links.wordings().map((w) => w.ask),
        csrfField(app, req, res),
        info,
      ),
    );
  });

  web.post(
    '/account/links/:id/unlink',
    form,
    requirePerson(app, { page: true }),
    requireCsrf(app),
    async (req: Request, res: Response) => {
      const { person } = authOf(res)!;
      const id = idParam.safeParse(req.params.id);
      const gone = (sentence: string) => page(res, 404, 'Linked accounts', refusedPage(sentence));
      if (!id.success) return gone('That is not one of your linked accounts.');
      try {
        await app.links.unlink(person.id, id.data);
      } catch (e) {
        if (!isSwitchboardError(e)) throw e;
        return gone(e.message);
      }
      res.redirect(303, '/account/links?unlinked=1');
    },
  );

  // The JSON API the web chat's settings use: the same list and unlink, with the CSRF header.
  const api = express.Router();
  api.use(express.json({ limit: '4kb' }), requirePerson(app), requireCsrf(app));
  api.get('/', async (_req, res) => {
    res.json({ links: (await app.links.linked(authOf(res)!.person.id)).map(linkOut) });
  });
  api.delete('/:id', async (req, res) => {
    const id = idParam.safeParse(req.params.id);
    if (!id.success) {
      res.status(400).json({ error: { code: 'INVALID_INPUT', message: `id: ${id.error.issues[0]?.message}` } });
      return;
    }
    res.json({ unlinked: linkOut(await app.links.unlink(authOf(res)!.person.id, id.data)) });
  });
  web.use('/api/links', api);
};
