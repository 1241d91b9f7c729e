import { createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import type { Request, Response } from 'express';
import type { App } from '../app.ts';
import { tokenTopic } from '../core/agents/agent-service.ts';
import { inboxTopic } from '../core/messaging/messaging-service.ts';
import type { ToolContext } from './context.ts';
import { INBOX_URI } from './resources.ts';
import { tokenRotated } from './revocation.ts';
import { answerWithFetch } from './node-fetch.ts';
import { buildMcpServer } from './server.ts';

const isListen = (body: unknown) => (body as { method?: unknown } | null)?.method === 'subscriptions/listen';

/**
 * The requests of 2026-07-28 clients: each one stands alone, answered by a server built for it from the caller's
 * context, so any process sharing the database can answer any of them. A `subscriptions/listen` stream stays with
 * the process that opened it and carries `notifications/resources/updated` for the inbox, woken through the
 * notifier (so also by messages sent through other processes); it ends gracefully when the token is rotated or
 * the server stops.
 */
export class ModernRequests {
  /** The handlers of requests being answered now (a listen stream's lasts as long as the stream). */
  private readonly open = new Set<McpHttpHandler>();
  private closing = false;

  constructor(private readonly app: App) {}

  async serve(req: Request, res: Response, ctx: ToolContext): Promise<void> {
    const { app } = this;
    if (this.closing) {
      res.status(503).json({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Switchboard is stopping; send the request again in a moment.' },
        id: null,
      });
      return;
    }
    const handler = createMcpHandler(() => buildMcpServer(ctx), {
      legacy: 'reject',
      onerror: (err) => app.logger.debug({ err, agentId: ctx.agent.id }, 'MCP request refused or failed'),
    });
    const stops: Array<Promise<() => Promise<void>>> = [];
    const revoked = async () => !((await ctx.stillAuthorized?.().catch(() => true)) ?? true);
    try {
      if (isListen(req.body)) {
        // Listening before the stream opens, so nothing that lands once the client has its acknowledgement is missed.
        stops.push(
          app.notifier.subscribe(inboxTopic(ctx.agent.id), () => handler.notify.resourceUpdated(INBOX_URI)),
          app.notifier.subscribe(tokenTopic(ctx.agent.id), () => {
            void revoked().then(async (gone) => {
              if (gone) await handler.close();
            });
          }),
        );
        await Promise.all(stops);
        // Rotated between the request's own check and listening: refused like any request with that token.
        if (await revoked()) {
          res.status(401).json({
            jsonrpc: '2.0',
            error: { code: -32001, message: tokenRotated().message },
            id: null,
          });
          return;
        }
      }
      this.open.add(handler);
      await answerWithFetch(req, res, (request, parsedBody) => handler.fetch(request, { parsedBody }));
    } finally {
      this.open.delete(handler);
      await handler.close();
      await Promise.all(stops.map(async (stop) => (await stop)()));
    }
  }

  /** Ends every listen stream gracefully (the client is told the subscription ended) and answers nothing more. */
  async closeAll(): Promise<void> {
    this.closing = true;
    await Promise.all([...this.open].map((h) => h.close()));
  }
}
