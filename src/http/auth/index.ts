/**
 * Web sign-in for every page of Switchboard: sessions, CSRF and the sign-in pages.
 *
 * Other mounts reuse it, e.g. a page only signed-in people may see that posts a form:
 *
 *   web.get('/link/:nonce', requirePerson(app, { page: true }), (req, res) => …csrfField(app, req, res)…);
 *   web.post('/link/:nonce', express.urlencoded({ extended: false }), requirePerson(app, { page: true }), requireCsrf(app), …);
 *
 * `requirePerson` must run before `requireCsrf` (the token is tied to the session).
 */
export { authOf, loadSession, requirePerson } from './middleware.ts';
export { csrfField, csrfToken, requireCsrf } from './csrf.ts';
export { SESSION_IDLE_MS, SESSION_MAX_MS } from './sessions.ts';
export { notice, securityHeaders } from './pages.ts';
export { authRouter } from './routes.ts';
export type { SigninLimits } from './rate-limit.ts';
export { hashPassword } from './passwords.ts';
