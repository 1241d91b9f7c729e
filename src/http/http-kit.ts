// The sign-in a surface's routes may use (src/surfaces/contract.ts: HttpKit),
// built over the running app's sessions and secret by the surface mount.
import type { App } from '../app-types.ts';
import type { HttpKit } from '../surfaces/contract.ts';
import { authOf, authRouter, csrfField, csrfToken, requireCsrf, requirePerson, securityHeaders } from './auth/index.ts';
import { sessionEndsAt, sessionsOf } from './auth/sessions.ts';

/** The sign-in of one running app, for the routes surfaces add. */
export function httpKitOf(app: App): HttpKit {
  const sessions = sessionsOf(app);
  return {
    requirePerson: (opts) => requirePerson(app, opts),
    requireCsrf: () => requireCsrf(app),
    authOf,
    csrfToken: (req, res) => csrfToken(app, req, res),
    csrfField: (req, res) => csrfField(app, req, res),
    securityHeaders: (res) => securityHeaders(res),
    recheckSession: (req) => sessions.resolve(req, { touch: false }),
    sessionEndsAt,
    signinRoutes: (limits) => authRouter(app, limits),
  };
}
