import express, { type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import type { App } from '../../app.ts';
import { hashSecret } from '../../core/agents/tokens.ts';
import { csrfField, requireCsrf } from './csrf.ts';
import { authOf, loadSession, requirePerson } from './middleware.ts';
import { html, type SafeHtml } from '../html.ts';
import { cardPage } from '../layout.ts';
import { accountForm, linkForm, notice, passwordForm, securityHeaders } from './pages.ts';
import { dummyHash, hashPassword, passwordProblem, verifyPassword } from './passwords.ts';
import { DEFAULT_SIGNIN_LIMITS, signinLimiters, type SigninLimits } from './rate-limit.ts';
import { sessionsChanged, sessionsOf } from './sessions.ts';

/** Only a path on this site, so `next` can never send someone elsewhere. */
function safeNext(raw: unknown): string {
  const s = typeof raw === 'string' ? raw : '';
  return s.startsWith('/') && !s.startsWith('//') && !s.includes('\\') && !s.startsWith('/signin') ? s : '/';
}

const passwordSignin = z.object({
  handle: z.string().trim().min(1).max(64),
  password: z.string().min(1).max(1024),
  next: z.string().optional(),
});
const linkSignin = z.object({ token: z.string().min(10).max(200), next: z.string().optional() });
const passwordChange = z.object({
  current: z.string().max(1024).optional(),
  password: z.string().max(1024),
  confirm: z.string().max(1024),
});

function send(res: Response, status: number, title: string, body: SafeHtml, noReferrer = false) {
  securityHeaders(res, { noReferrer });
  res.status(status).type('html').send(cardPage(title, body));
}

/** `/signin` (password or one-time link), `/signout`, `/account` (set or change the password). */
export function authRouter(app: App, limits: SigninLimits = DEFAULT_SIGNIN_LIMITS): Router {
  const r = express.Router();
  const sessions = sessionsOf(app);
  r.use(
    ['/signin', '/signout', '/account'],
    express.urlencoded({ extended: false, limit: '16kb' }),
    loadSession(app),
    requireCsrf(app),
  );

  r.get('/signin', async (req, res) => {
    const next = safeNext(req.query.next);
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    if (token) {
      const t = await app.store.tokens.peek(hashSecret(token), 'signin');
      const person =
        t?.personId && !t.usedAt && t.expiresAt > app.clock.now() ? await app.store.people.get(t.personId) : null;
      if (person) {
        return send(
          res,
          200,
          'Sign in',
          linkForm({
            csrf: csrfField(app, req, res),
            next,
            token,
            displayName: person.displayName,
            handle: person.handle,
          }),
          true,
        );
      }
      return send(
        res,
        410,
        'Sign in',
        passwordForm({
          csrf: csrfField(app, req, res),
          next,
          error:
            'This sign-in link was already used or has expired. Sign in with your password, or ask an admin for a new link (`switchboard person add --invite` prints one).',
        }),
        true,
      );
    }
    if (authOf(res)) return res.redirect(303, next);
    const info = req.query.signed_out !== undefined ? 'You are signed out.' : undefined;
    send(res, 200, 'Sign in', passwordForm({ csrf: csrfField(app, req, res), next, info }));
  });

  const limited = (req: Request, res: Response, minutes: number) =>
    send(
      res,
      429,
      'Sign in',
      passwordForm({
        csrf: csrfField(app, req, res),
        next: safeNext(req.body?.next),
        handle: String(req.body?.handle ?? ''),
        error: `Too many failed sign-in attempts. Wait ${minutes} minutes and try again, or use a one-time sign-in link.`,
      }),
    );

  r.post('/signin', ...signinLimiters(limits, limited), async (req, res) => {
    const parsed = passwordSignin.safeParse(req.body);
    const next = safeNext(req.body?.next);
    const fail = (handle: string) =>
      send(
        res,
        401,
        'Sign in',
        passwordForm({
          csrf: csrfField(app, req, res),
          next,
          handle,
          error: 'That handle and password do not match. Check both, or sign in with a one-time link.',
        }),
      );
    if (!parsed.success) return fail(String(req.body?.handle ?? ''));
    const handle = parsed.data.handle.replace(/^@/, '').toLowerCase();
    const person = await app.store.people.get(handle);
    const stored = person ? await app.store.people.passwordHash(person.id) : null;
    // Unknown handles cost the same scrypt work, so timing does not tell which handles exist.
    const ok = await verifyPassword(parsed.data.password, stored ?? (await dummyHash()));
    if (!person || !stored || !ok) {
      app.logger.info({ handle, ip: req.ip }, 'failed web sign-in');
      return fail(handle);
    }
    await sessions.end(req, res);
    await sessions.start(res, person.id);
    app.logger.info({ person: person.handle }, 'signed in with a password');
    res.redirect(303, next);
  });

  r.post('/signin/link', async (req, res) => {
    const parsed = linkSignin.safeParse(req.body);
    const t = parsed.success
      ? await app.store.tokens.consume(hashSecret(parsed.data.token), 'signin', app.clock.now())
      : null;
    if (!t?.personId) {
      return send(
        res,
        410,
        'Sign in',
        passwordForm({
          csrf: csrfField(app, req, res),
          next: '/',
          error:
            'This sign-in link was already used or has expired. Sign in with your password, or ask an admin for a new link.',
        }),
      );
    }
    await sessions.end(req, res);
    await sessions.start(res, t.personId);
    app.logger.info({ personId: t.personId }, 'signed in with a one-time link');
    const hasPassword = Boolean(await app.store.people.passwordHash(t.personId));
    res.redirect(303, hasPassword ? safeNext(parsed.data?.next) : '/account?welcome=1');
  });

  r.post('/signout', async (req, res) => {
    await sessions.end(req, res);
    res.redirect(303, '/signin?signed_out=1');
  });

  r.get('/account', requirePerson(app, { page: true }), async (req, res) => {
    const { person } = authOf(res)!;
    const hasPassword = Boolean(await app.store.people.passwordHash(person.id));
    const info =
      req.query.welcome !== undefined && !hasPassword
        ? `Welcome, ${person.displayName}. Set a password so you can sign in again without a link, or go straight to the chat.`
        : undefined;
    send(
      res,
      200,
      hasPassword ? 'Change your password' : 'Set a password',
      accountForm({ csrf: csrfField(app, req, res), hasPassword, handle: person.handle, info }),
    );
  });

  r.post('/account/password', requirePerson(app, { page: true }), async (req, res) => {
    const { person, session } = authOf(res)!;
    const stored = await app.store.people.passwordHash(person.id);
    const again = (error: string, status = 400) =>
      send(
        res,
        status,
        stored ? 'Change your password' : 'Set a password',
        accountForm({ csrf: csrfField(app, req, res), hasPassword: Boolean(stored), handle: person.handle, error }),
      );
    const parsed = passwordChange.safeParse(req.body);
    if (!parsed.success) return again('Fill in every field.');
    const { current, password, confirm } = parsed.data;
    if (stored && !(current && (await verifyPassword(current, stored))))
      return again('Your current password is not right; try again.', 401);
    const problem = passwordProblem(password, person.handle);
    if (problem) return again(problem);
    if (password !== confirm) return again('The two new passwords differ; type the same one twice.');
    await app.store.people.setPasswordHash(person.id, await hashPassword(password));
    const ended = await app.store.sessions.deleteForPerson(person.id, session.id);
    await sessionsChanged(app, person.id);
    app.logger.info({ person: person.handle, endedSessions: ended }, 'password set');
    send(
      res,
      200,
      'Password saved',
      html`${notice('Your password is saved. Other browsers signed in as you were signed out.', 'info')}<p><a class="button primary" href="/">Go to the chat</a></p>`,
    );
  });

  return r;
}
