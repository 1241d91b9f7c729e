import { getRequestListener } from '@hono/node-server';
import { isLegacyRequest } from '@modelcontextprotocol/server';
import type { Request, Response } from 'express';

/**
 * Answers a Node request with a web-standard handler (the MCP SDK's transports and handler speak `Request` and
 * `Response`): the request is converted, and the response written back as it streams (SSE), ending the
 * exchange, and cancelling what it streams, when the client goes away. The body was already parsed (express.json);
 * the handler is given it as `parsed`, never the stream again. Resolves once the response is written.
 */
export function answerWithFetch(
  req: Request,
  res: Response,
  handle: (request: globalThis.Request, parsed: unknown) => Promise<globalThis.Response>,
): Promise<void> {
  const listener = getRequestListener((request) => handle(request, req.body), {
    // The app's own Request and Response stay the platform's (other code compares against them).
    overrideGlobalObjects: false,
  });
  return listener(req, res);
}

/**
 * Whether a request speaks a protocol revision before 2026-07-28 (it carries no protocol version of its own), by the
 * SDK's own test, from the parsed body and the headers.
 */
export function isLegacy(req: Request): Promise<boolean> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    for (const v of [value ?? []].flat()) headers.append(name, v);
  }
  const request = new globalThis.Request(`http://${req.headers.host ?? 'localhost'}${req.originalUrl}`, {
    method: req.method,
    headers,
  });
  return isLegacyRequest(request, req.body);
}
