import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { App } from '../../app.ts';
import { html, type SafeHtml } from '../html.ts';
import { cookieOptions, readCookie } from './cookies.ts';
import { authOf } from './middleware.ts';

const CSRF_HEADER = 'x-csrf-token';
const CSRF_FIELD = '_csrf';
/** Binds the sign-in form's token to a browser before there is a session. */
const PRE_SESSION_COOKIE = 'sb_pre';
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

const sign = (app: App, binding: string) =>
  createHmac('sha256', app.secret).update(`csrf:${binding}`).digest('base64url');

/** What the token is tied to: the session when signed in, else a random per-browser cookie. */
function binding(app: App, req: Request, res: Response, create: boolean): string | null {
  const auth = authOf(res);
  if (auth) return `session:${auth.session.id}`;
  let pre = readCookie(req, PRE_SESSION_COOKIE);
  if (!pre && create) {
    pre = randomBytes(18).toString('base64url');
    res.cookie(PRE_SESSION_COOKIE, pre, cookieOptions(app));
  }
  return pre ? `pre:${pre}` : null;
}

/**
 * The synchronizer token for forms and `fetch` calls of this request's browser:
 * an HMAC of the session id (or, before sign-in, of a per-browser cookie).
 */
export function csrfToken(app: App, req: Request, res: Response): string {
  return sign(app, binding(app, req, res, true)!);
}

/** A hidden form field carrying the CSRF token. */
export function csrfField(app: App, req: Request, res: Response): SafeHtml {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${csrfToken(app, req, res)}">`;
}

function valid(app: App, req: Request, res: Response): boolean {
  const origin = req.headers.origin;
  if (origin && origin !== 'null') {
    try {
      if (new URL(origin).host !== req.headers.host) return false;
    } catch {
      return false;
    }
  }
  const sent = (req.get(CSRF_HEADER) ?? (req.body as Record<string, unknown> | undefined)?.[CSRF_FIELD]) as unknown;
  const bound = binding(app, req, res, false);
  if (typeof sent !== 'string' || !bound) return false;
  const expected = Buffer.from(sign(app, bound));
  const given = Buffer.from(sent);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Refuses a state-changing request (anything but GET/HEAD/OPTIONS) whose CSRF
 * token is missing or wrong, or that comes from another site's page.
 * Put it after the body parser and after the session is loaded.
 */
export function requireCsrf(app: App): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (SAFE.has(req.method) || valid(app, req, res)) return next();
    const message =
      'This request did not carry a valid CSRF token, so it was refused to protect your account; reload the page and try again.';
    if (req.is('application/x-www-form-urlencoded')) {
      res
        .status(403)
        .type('html')
        .send(
          `<!doctype html><meta charset="utf-8"><title>Refused</title><p>${message}</p><p><a href="/">Back to Switchboard</a></p>`,
        );
      return;
    }
    res.status(403).json({ error: { code: 'NOT_PERMITTED', message } });
  };
}
