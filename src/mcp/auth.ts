import type { NextFunction, Request, Response } from 'express';
import type { Core } from '../app-types.ts';
import type { Agent } from '../core/entities.ts';

/** Set on the response locals by `bearerAgent` for the handlers after it. */
export interface AuthedLocals {
  agent: Agent;
  /** The bearer token as sent; kept only in memory to re-check a session, never logged. */
  token: string;
}

const MISSING =
  'This endpoint needs an agent token: send the header Authorization: Bearer <token>. ' +
  'An agent gets its token when it is created (switchboard agent add) and a new one with switchboard agent rotate-token OWNER/NAME.';
const INVALID =
  'That agent token is not valid, or it was rotated and no longer works; ' +
  "ask the agent's owner for its current token (switchboard agent rotate-token OWNER/NAME prints a new one).";

/** RFC 6750: no error code when no credentials were sent, `invalid_token` when they were wrong. */
function unauthorized(res: Response, message: string, presented: boolean) {
  const challenge = presented
    ? `Bearer realm="switchboard", error="invalid_token", error_description="${message}"`
    : 'Bearer realm="switchboard"';
  res.status(401).set('WWW-Authenticate', challenge).json({ error: 'invalid_token', error_description: message });
}

/**
 * Authenticates every request by its bearer token (`agents.authenticate`),
 * so a rotated token stops working at once, even in the middle of a session.
 */
export function bearerAgent(core: Pick<Core, 'agents'>) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const header = req.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) return unauthorized(res, MISSING, header !== '');
    try {
      const agent = await core.agents.authenticate(match[1]);
      if (!agent) return unauthorized(res, INVALID, true);
      res.locals.auth = { agent, token: match[1] } satisfies AuthedLocals;
      next();
    } catch (err) {
      next(err);
    }
  };
}
