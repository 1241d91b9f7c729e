import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import type { App } from '../../app.ts';
import { hashSecret } from '../../core/agents/tokens.ts';
import { chatPersonTopic, SESSIONS_CHANGED } from '../../core/channels/changes.ts';
import type { SignedIn, WebSession } from '../../core/organizations/sessions.ts';
import { cookieOptions, readCookie } from './cookies.ts';

const SESSION_COOKIE = 'sb_session';
/** A session ends after this long without use… */
export const SESSION_IDLE_MS = 7 * 86_400_000;
/** …and after this long in any case. */
export const SESSION_MAX_MS = 30 * 86_400_000;
/** Activity is written at most this often, so reading pages does not write on every request. */
const TOUCH_EVERY_MS = 60_000;

export type { SignedIn };

/** Server-side sessions: the cookie holds 256 random bits, the database only their hash. */
export class Sessions {
  constructor(private readonly app: App) {}

  /** Starts a session for the person and sets its cookie. */
  async start(res: Response, personId: string): Promise<WebSession> {
    const token = randomBytes(32).toString('base64url');
    const now = this.app.clock.now();
    const session = await this.app.store.sessions.create({
      tokenHash: hashSecret(token),
      personId,
      now,
      expiresAt: new Date(now.getTime() + SESSION_MAX_MS),
    });
    res.cookie(SESSION_COOKIE, token, cookieOptions(this.app, SESSION_MAX_MS));
    return session;
  }

  /**
   * The signed-in person behind the request's cookie; null when there is none or it expired (an expired one is deleted).
   * A request counts as use of the session; `touch: false` checks it without that (an open event stream's own checks).
   */
  async resolve(req: Request, opts: { touch?: boolean } = {}): Promise<SignedIn | null> {
    const token = readCookie(req, SESSION_COOKIE);
    if (!token) return null;
    const session = await this.app.store.sessions.byTokenHash(hashSecret(token));
    if (!session) return null;
    const now = this.app.clock.now().getTime();
    if (sessionEndsAt(session) <= now) {
      await this.app.store.sessions.delete(session.id);
      return null;
    }
    const person = await this.app.store.people.get(session.personId);
    if (!person) return null;
    if (opts.touch === false || now - session.lastSeenAt.getTime() <= TOUCH_EVERY_MS) return { session, person };
    await this.app.store.sessions.touch(session.id, new Date(now));
    return { session: { ...session, lastSeenAt: new Date(now) }, person };
  }

  /** Ends the session in the database and clears the cookie. */
  async end(req: Request, res: Response): Promise<void> {
    const token = readCookie(req, SESSION_COOKIE);
    if (!token) return;
    const session = await this.app.store.sessions.byTokenHash(hashSecret(token));
    if (session) {
      await this.app.store.sessions.delete(session.id);
      await sessionsChanged(this.app, session.personId);
    }
    res.clearCookie(SESSION_COOKIE, cookieOptions(this.app));
  }
}

/** When the session ends unless used again (ms since the epoch): after its idle time, or at its maximum age if that comes first. */
export const sessionEndsAt = (s: WebSession): number =>
  Math.min(s.expiresAt.getTime(), s.lastSeenAt.getTime() + SESSION_IDLE_MS);

/** Tells the person's open event streams (in any process) that sessions of theirs ended, so each checks its own. */
export async function sessionsChanged(app: App, personId: string): Promise<void> {
  await app.notifier.publish(chatPersonTopic(personId), SESSIONS_CHANGED).catch((err: unknown) => {
    app.logger.warn(
      { err },
      'could not tell open event streams that sessions ended; a stream that missed it stays open until its session would have expired',
    );
  });
}

/** The session manager over an app's store (it keeps no state of its own, so every mount may make one). */
export const sessionsOf = (app: App): Sessions => new Sessions(app);
