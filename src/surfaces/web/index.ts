import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import type { App } from '../../app.ts';
import {
  authOf,
  authRouter,
  csrfField,
  csrfToken,
  requirePerson,
  securityHeaders,
  type SigninLimits,
} from '../../http/auth/index.ts';
import type { Mount } from '../../http/http.ts';
import { chatApi } from './api.ts';
import { serveClientBundle } from './bundle.ts';
import { chatShell } from './shell.ts';

export { chatOf } from './api.ts';

const PUBLIC_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'public');
const SESSION_SWEEP_MS = 3600_000;

/** The web chat with its own sign-in limits and event stream keepalive (tests lower them). */
export function createWebChatMount(opts: { signinLimits?: SigninLimits; keepaliveMs?: number } = {}): Mount {
  return (web, app: App) => {
    web.get('/assets/app.js', serveClientBundle(app.logger));
    web.use(
      '/assets',
      express.static(PUBLIC_DIR, {
        index: false,
        setHeaders: (res) => {
          res.setHeader('cache-control', 'no-cache');
          res.setHeader('x-content-type-options', 'nosniff');
        },
      }),
      (_req, res) => {
        res.status(404).type('text').send('No such file.');
      },
    );
    web.use(authRouter(app, opts.signinLimits));
    // Under /api/chat so it never shadows other /api routes (Teams posts to /api/messages).
    web.use('/api/chat', chatApi(app, opts.keepaliveMs));
    web.get('/', requirePerson(app, { page: true }), async (req, res) => {
      const { person } = authOf(res)!;
      const workspaces = await app.store.workspaces.listForPerson(person.id);
      securityHeaders(res);
      const user = { displayName: person.displayName, handle: person.handle, csrfField: csrfField(app, req, res) };
      res.type('html').send(chatShell({ csrf: csrfToken(app, req, res), user, workspaces }));
    });

    // Expired sessions are refused when used; this only keeps the table small.
    const sweep = setInterval(() => {
      app.store.sessions
        .deleteExpired(app.clock.now())
        .catch((err) => app.logger.warn({ err }, 'could not delete expired web sessions'));
    }, SESSION_SWEEP_MS);
    sweep.unref();
    app.onClose.push(() => clearInterval(sweep));
  };
}

/** `/` (the chat), `/signin`, `/signout`, `/account`, `/api/chat/…` (the chat's JSON API and event stream) and `/assets/…`. */
export const mountWebChat: Mount = createWebChatMount();
