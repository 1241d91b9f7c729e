// People signed in to Switchboard's web pages: the session a browser's cookie
// stands for (src/http/auth keeps the cookie; this is what is stored).
import type { Person } from '../entities.ts';

/** A signed-in browser. The cookie holds a random token; only its hash is stored. */
export interface WebSession {
  id: string;
  personId: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
}

export interface SessionRepo {
  create(s: { tokenHash: string; personId: string; now: Date; expiresAt: Date }): Promise<WebSession>;
  /** Null when no session has that hash (never created, signed out, or swept). */
  byTokenHash(tokenHash: string): Promise<WebSession | null>;
  /** Records activity (which slides the idle timeout). */
  touch(id: string, at: Date): Promise<void>;
  delete(id: string): Promise<void>;
  /** Ends every session of a person (after a password change); returns how many. */
  deleteForPerson(personId: string, exceptId?: string): Promise<number>;
  /** Deletes sessions whose expiry has passed; returns how many. */
  deleteExpired(now: Date): Promise<number>;
}

/** A request's signed-in person, with the session its cookie stands for. */
export interface SignedIn {
  session: WebSession;
  person: Person;
}
