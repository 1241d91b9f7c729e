import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { App } from '../app-types.ts';
import { translateDriverError } from '../infra/db/errors.ts';
import { ConfigError } from '../config.ts';
import { isSwitchboardError, type ErrorCode } from '../core/errors.ts';
import { countRequests, metricsRoute } from './metrics-route.ts';
import { NUL_REFUSAL } from '../core/safe-text.ts';
import { requestErrorOf } from './input.ts';

export const STATUS: Record<ErrorCode, number> = {
  NOT_FOUND: 404,
  CONFLICT: 409,
  NOT_PERMITTED: 403,
  NEEDS_SEAT: 403,
  PLAN_LIMIT: 402,
  INVALID_INPUT: 400,
  STALE_VERSION: 409,
  RATE_LIMITED: 429,
  UNAUTHENTICATED: 401,
  UNAVAILABLE: 503,
};

/** A piece of the HTTP surface (Slack, Teams, MCP, web chat) mounted on the one express app. */
export type Mount = (web: Express, app: App) => void | Promise<void>;

/** The express app: health routes first, then every mount in order, then one error handler. */
export async function createHttpApp(app: App, mounts: Mount[] = []): Promise<Express> {
  const web = express();
  web.disable('x-powered-by');
  // Off unless TRUST_PROXY says which proxies to believe, so a client cannot pick its own address (and its own sign-in limit) with X-Forwarded-For.
  web.set('trust proxy', app.config.trustProxy);
  web.use(countRequests(app.metrics));
  web.get('/metrics', metricsRoute(app));
  web.use((req, res, next) => {
    // A NUL in the address (path or query) reaches lookups that PostgreSQL cannot run.
    if (/%00/.test(req.url)) {
      res.status(400).json({ error: { code: 'INVALID_INPUT', message: `The address: ${NUL_REFUSAL}` } });
      return;
    }
    next();
  });
  web.get('/healthz', (_req, res) => {
    res.json({ ok: true });
  });
  web.get('/readyz', async (_req, res) => {
    // Anyone who reaches the server may ask: the driver's words (host names, addresses, login failures) go to the log only.
    const failed = (what: string) => (err: Error) => {
      app.logger.warn({ err }, `readiness check: ${what} unreachable`);
      return `${what} unreachable (the server's log says why)`;
    };
    const checks = await Promise.all([
      app.database.ping().then(() => null, failed('database')),
      app.queue.ping().then(() => null, failed('queue')),
    ]);
    const problems = checks.filter((c): c is string => c !== null);
    res.status(problems.length ? 503 : 200).json(problems.length ? { ok: false, problems } : { ok: true });
  });
  for (const mount of mounts) await mount(web, app);
  web.use((raw: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(raw);
    // Repositories outside the Store (Slack, Teams) reach here with the driver's own error.
    const err = translateDriverError(raw);
    const refused = requestErrorOf(err);
    if (refused) {
      res.status(refused.status).json({ error: { code: 'INVALID_INPUT', message: refused.message } });
      return;
    }
    if (isSwitchboardError(err)) {
      if (err.code === 'UNAVAILABLE') res.set('retry-after', '5');
      res.status(STATUS[err.code]).json({ error: { code: err.code, message: err.message, ...err.details } });
      return;
    }
    app.logger.error({ err }, 'unhandled request error');
    res
      .status(500)
      .json({ error: { code: 'INTERNAL', message: 'Something went wrong on our side; the error was logged.' } });
  });
  return web;
}

export interface RunningServer {
  server: http.Server;
  url: string;
  /** Stops taking connections, waits for in-flight requests (up to `graceMs`), then closes them. */
  close(graceMs?: number): Promise<void>;
}

/** Listening failed because another program holds the port; the message says which variable to change. */
class PortInUseError extends ConfigError {
  constructor(readonly port: number) {
    super(
      `Switchboard cannot listen on port ${port}: another program (perhaps another Switchboard) is using it. Stop that program, or set PORT to a free port, e.g. \`PORT=${port === 3000 ? 3001 : port + 1} npm start\`.`,
    );
  }
}

export async function listen(web: Express, port: number, host = '0.0.0.0'): Promise<RunningServer> {
  const server = http.createServer(web);
  // Idle keep-alive connections outlive a proxy's or client's own idle timeout (60 s is common),
  // so a client never reuses a socket at the moment the server closes it (an ECONNRESET).
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => reject(e.code === 'EADDRINUSE' ? new PortInUseError(port) : e));
    server.listen(port, host, () => resolve());
  });
  const { port: actual } = server.address() as AddressInfo;
  return {
    server,
    url: `http://127.0.0.1:${actual}`,
    close: (graceMs = 10_000) =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), graceMs);
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
