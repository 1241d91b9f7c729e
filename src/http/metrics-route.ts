import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Metrics } from '../infra/metrics/metrics.ts';
import type { App } from '../app-types.ts';

/**
 * Counts every request once it is answered, labelled with the route pattern
 * that matched (`/mcp/:workspace`), never the path itself: paths carry
 * sign-in and link nonces, and raw paths would make labels without end.
 */
export function countRequests(metrics: Metrics): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const pattern = req.route?.path;
      const route = typeof pattern === 'string' ? `${req.baseUrl}${pattern}` : '(unmatched)';
      metrics.observeRequest(req.method, route, res.statusCode, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * GET /metrics for Prometheus. Off (404) unless METRICS_TOKEN is set; then
 * only a request with `Authorization: Bearer <METRICS_TOKEN>` gets them.
 * Loopback is not trusted on its own, because a reverse proxy on the same
 * host would make every visitor look local.
 */
export function metricsRoute(app: App): RequestHandler {
  const token = app.config.metricsToken;
  const expected = token ? digest(token) : null;
  return async (req, res, next) => {
    if (!expected) {
      res.status(404).json({
        error: {
          code: 'NOT_FOUND',
          message:
            'Metrics are off on this server; set METRICS_TOKEN to serve them at /metrics to a scraper that sends it as a bearer token.',
        },
      });
      return;
    }
    const given = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1];
    // Compared as digests so the comparison takes the same time whatever was sent.
    if (!given || !timingSafeEqual(digest(given), expected)) {
      res
        .status(401)
        .set('www-authenticate', 'Bearer realm="metrics"')
        .json({
          error: {
            code: 'UNAUTHENTICATED',
            message: 'Send METRICS_TOKEN as `Authorization: Bearer <token>` to read the metrics.',
          },
        });
      return;
    }
    try {
      const { contentType, body } = await app.metrics.render();
      res.set('content-type', contentType).set('cache-control', 'no-store').send(body);
    } catch (e) {
      next(e);
    }
  };
}
