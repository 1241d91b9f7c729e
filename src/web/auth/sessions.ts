import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import type { App } from '../../app.ts';
import { hashSecret } from '../../domain/agents/tokens.ts';
import { chatPersonTopic, SESSIONS_CHANGED } from '../../domain/chat/chat-service.ts';
import type { WebSession } from '../../domain/chat/ports.ts';
import type { Person } from '../../domain/types.ts';
import { cookieOptions, readCookie } from './cookies.ts';

export const SESSION_COOKIE = 'sb_session';
/** A session ends after this long without use… */
export const SESSION_IDLE_MS = 7 * 86_400_000;
/** …and after this long in any case. */
export const SESSION_MAX_MS = 30 * 86_400_000;
/** Activity is written at most this often, so reading pages does not write on every request. */
const TOUCH_EVERY_MS = 60_000;

export interface SignedIn {
  session: WebSession;
  person: Person;
}

/** Server-side sessions: the cookie holds 256 random bits, the database only their hash. */
export class Sessions {
  constructor(private readonly app: App) {}

  /** Starts a session for the person and sets its cookie. */
  async start(res: Response, personId: string): Promise<WebSession> {
    const token = randomBytes(32).toString('base64url');
    const now = this.app.clock.now();
    const session = await this.app.store.sessions.create({
      tokenHash: hashSecret(token), personId, now, expiresAt: new Date(now.getTime() + SESSION_MAX_MS),
    });
    res.cookie(SESSION_COOKIE, token, cookieOptions(this.app, SESSION_MAX_MS));
    return session;
  }

  /** The signed-in person behind the request's cookie; null when there is none or it expired (an expired one is deleted). */
  async resolve(req: Request): Promise<SignedIn | null> {
    const token = readCookie(req, SESSION_COOKIE);
    if (!token) return null;
    const session = await this.app.store.sessions.byTokenHash(hashSecret(token));
    if (!session) return null;
    const now = this.app.clock.now().getTime();
    if (session.expiresAt.getTime() <= now || now - session.lastSeenAt.getTime() > SESSION_IDLE_MS) {
      await this.app.store.sessions.delete(session.id);
      return null;
    }
    const person = await this.app.store.people.get(session.personId);
    if (!person) return null;
    if (now - session.lastSeenAt.getTime() > TOUCH_EVERY_MS) await this.app.store.sessions.touch(session.id, new Date(now));
    return { session, person };
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

/** Tells the person's open event streams (in any process) that sessions of theirs ended, so each checks its own. */
export async function sessionsChanged(app: App, personId: string): Promise<void> {
  await app.notifier.publish(chatPersonTopic(personId), SESSIONS_CHANGED).catch((err: unknown) => {
    app.logger.warn({ err }, 'could not tell open event streams that sessions ended; they check again at their next keepalive');
  });
}

/** The session manager over an app's store (it keeps no state of its own, so every mount may make one). */
export const sessionsOf = (app: App): Sessions => new Sessions(app);
