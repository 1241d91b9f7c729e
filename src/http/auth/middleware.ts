import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { App } from '../../app.ts';
import { sessionsOf, type SignedIn } from './sessions.ts';

const loaded = new WeakSet<Response>();

/** The signed-in person of this request, once `loadSession` or `requirePerson` ran; null otherwise. */
export function authOf(res: Response): SignedIn | null {
  return (res.locals.webAuth as SignedIn | undefined) ?? null;
}

async function ensureLoaded(app: App, req: Request, res: Response) {
  if (loaded.has(res)) return;
  loaded.add(res);
  const auth = await sessionsOf(app).resolve(req);
  if (auth) res.locals.webAuth = auth;
}

/** Resolves the session cookie (if any) so later handlers can call `authOf`. */
export function loadSession(app: App): RequestHandler {
  return (req, res, next: NextFunction) => {
    ensureLoaded(app, req, res).then(() => next(), next);
  };
}

/**
 * Lets only signed-in people through. Pages (`page: true`) send others to
 * `/signin?next=…` and come back after; API calls get 401 with what to do.
 */
export function requirePerson(app: App, opts: { page?: boolean } = {}): RequestHandler {
  return (req, res, next) => {
    ensureLoaded(app, req, res).then(() => {
      if (authOf(res)) return next();
      if (opts.page) {
        res.redirect(303, `/signin?next=${encodeURIComponent(req.originalUrl)}`);
        return;
      }
      res.status(401).json({
        error: {
          code: 'UNAUTHENTICATED',
          message: 'You are not signed in, or your session ended; sign in again at /signin.',
        },
      });
    }, next);
  };
}
