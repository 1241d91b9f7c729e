import { createHmac, randomUUID } from 'node:crypto';
import { isInitializeRequest, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import express, { type Request, type Response } from 'express';
import type { App } from '../app.ts';
import { tokenTopic } from '../core/agents/agent-service.ts';
import { isSwitchboardError } from '../core/errors.ts';
import { STATUS, type Mount } from '../http/http.ts';
import { bearerAgent, type AuthedLocals } from './auth.ts';
import { openToolContext, type ToolContext } from './context.ts';
import { ModernRequests } from './http-modern.ts';
import { answerWithFetch, isLegacy } from './node-fetch.ts';
import { buildMcpServer } from './server.ts';
import { DEFAULT_SESSION_OPTIONS, SessionRegistry, type Session, type SessionOptions } from './sessions.ts';

/** Largest JSON-RPC request body accepted (a message body is at most 16,000 characters). */
const MAX_BODY = '1mb';

/** The MCP sessions a running app holds (tests and the bench look at it); undefined until the MCP endpoint is mounted. */
export const mcpSessions = (app: App): SessionRegistry | undefined => app.mcpSessions ?? undefined;

/** A JSON-RPC error the way the SDK's transport answers (so clients treat ours alike). */
function rpcError(res: Response, status: number, message: string, code = -32000) {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}

const opensSession = (body: unknown) =>
  Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body);

/**
 * The key that signs what a call carries between its rounds: from the app's secret, which every process sharing a
 * database shares, so any of them can take the next round.
 */
const roundKey = (app: App) => createHmac('sha256', app.secret).update('switchboard mcp request state').digest();

/**
 * `/mcp/:workspace` (id or slug): MCP over Streamable HTTP, for clients of both protocol families at once. Every
 * request carries the agent's bearer token. A client before 2026-07-28 opens a stateful session with `initialize`,
 * served by a server built for that agent in that workspace; a 2026-07-28 client's requests each stand alone
 * (http-modern.ts), told apart by the protocol version every one of them carries.
 */
export function createMcpMount(options: Partial<SessionOptions> = {}): Mount {
  return (web, app) => {
    const registry = new SessionRegistry({ ...DEFAULT_SESSION_OPTIONS, ...options }, app.logger);
    const modern = new ModernRequests(app);
    const key = roundKey(app);
    app.mcpSessions = registry;
    // Streams and waiting `subscribe` calls end as soon as the server starts stopping, so it
    // need not wait for them; closing the app waits for that work to finish.
    const closeAll = async () => {
      await Promise.all([registry.closeAll(), modern.closeAll()]);
    };
    app.onDrain.push(closeAll);
    app.onClose.push(closeAll);

    /** Who is calling into which workspace, or null once the refusal (403, 404) is written. */
    async function contextFor(req: Request, res: Response, auth: AuthedLocals): Promise<ToolContext | null> {
      try {
        const ctx = await openToolContext(app, auth.agent, String(req.params.workspace));
        ctx.roundKey = key;
        return ctx;
      } catch (e) {
        if (isSwitchboardError(e)) {
          rpcError(res, STATUS[e.code], e.message);
          return null;
        }
        throw e;
      }
    }

    async function resume(req: Request, res: Response, session: Session, auth: AuthedLocals) {
      const ref = String(req.params.workspace);
      if (session.agentId !== auth.agent.id) {
        return rpcError(
          res,
          403,
          'This session was opened by another agent; open your own session (initialize) with your own token.',
        );
      }
      if (ref !== session.workspaceId && ref !== session.workspaceSlug) {
        return rpcError(
          res,
          404,
          `This session belongs to another workspace; use /mcp/${session.workspaceSlug}, or initialize a new session here.`,
          -32001,
        );
      }
      // The latest token that worked for this agent is the one a notification stream is checked against.
      session.stillAuthorized = async () => (await app.agents.authenticate(auth.token))?.id === session.agentId;
      registry.track(session, (done) => res.once('close', done));
      cancelOnHangUp(req, res, session.transport);
      await answerWithFetch(req, res, (request, parsedBody) =>
        session.transport.handleRequest(request, { parsedBody }),
      );
    }

    async function open(req: Request, res: Response, auth: AuthedLocals) {
      const ctx = await contextFor(req, res, auth);
      if (!ctx) return;
      let session: Session | null = null;
      const opener = async () => (await app.agents.authenticate(auth.token))?.id === ctx.agent.id;
      // Tools re-check the token the session presents now (a client may go on with a new token of the same agent).
      ctx.stillAuthorized = () => (session ? session.stillAuthorized() : opener());
      const server = await buildMcpServer(ctx);
      let watching: Promise<() => Promise<void>> | null = null;
      const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          session = {
            id,
            agentId: ctx.agent.id,
            workspaceId: ctx.workspace.id,
            workspaceSlug: ctx.workspace.slug,
            server,
            transport,
            inFlight: 0,
            lastSeen: 0,
            stillAuthorized: opener,
          };
          registry.add(session);
          // A rotation (from any process) ends the session's stream at once rather than at the next sweep.
          const watched = session;
          watching = app.notifier.subscribe(tokenTopic(ctx.agent.id), () => {
            void watched.stillAuthorized().then(
              (ok) => {
                if (!ok) registry.revoke(id);
              },
              () => {},
            );
          });
          app.logger.info(
            { sessionId: id, agentId: ctx.agent.id, workspaceId: ctx.workspace.id },
            'MCP session opened',
          );
        },
        onsessionclosed: (id) => registry.forget(id),
      });
      const previous = server.server.onclose;
      server.server.onclose = () => {
        previous?.();
        if (transport.sessionId) registry.forget(transport.sessionId);
        void watching?.then((stop) => stop());
      };
      await server.connect(transport);
      await answerWithFetch(req, res, (request, parsedBody) => transport.handleRequest(request, { parsedBody }));
      // An initialize the transport refused (e.g. malformed) opened nothing to keep.
      if (!transport.sessionId || !registry.get(transport.sessionId)) await server.close();
    }

    async function answerModern(req: Request, res: Response, auth: AuthedLocals) {
      const ctx = await contextFor(req, res, auth);
      if (!ctx) return;
      ctx.era = 'modern';
      ctx.stillAuthorized = async () => (await app.agents.authenticate(auth.token))?.id === ctx.agent.id;
      await modern.serve(req, res, ctx);
    }

    web.all('/mcp/:workspace', bearerAgent(app), express.json({ limit: MAX_BODY }), async (req, res, next) => {
      try {
        const auth = res.locals.auth as AuthedLocals;
        if (!(await isLegacy(req))) return await answerModern(req, res, auth);
        const sessionId = req.header('mcp-session-id');
        if (sessionId) {
          const session = registry.get(sessionId);
          if (!session)
            return rpcError(
              res,
              404,
              'Session not found: it expired or was closed. Start a new session by sending initialize again.',
              -32001,
            );
          return await resume(req, res, session, auth);
        }
        if (req.method === 'POST' && opensSession(req.body)) return await open(req, res, auth);
        rpcError(
          res,
          400,
          'Bad Request: no Mcp-Session-Id header. Open a session first by POSTing an initialize request.',
        );
      } catch (e) {
        next(e);
      }
    });
    // A body that is not JSON, or too large, is the client's mistake: a JSON-RPC error, not a 500.
    web.use('/mcp/:workspace', (err: { type?: string }, _req: Request, res: Response, next: (e?: unknown) => void) => {
      if (err?.type === 'entity.parse.failed')
        return rpcError(res, 400, 'Parse error: the request body is not valid JSON.', -32700);
      if (err?.type === 'entity.too.large')
        return rpcError(res, 413, `The request body is larger than ${MAX_BODY}; send smaller messages.`);
      next(err);
    });
  };
}

/** The default MCP mount (30 minutes of idle time closes a session). */
export const mountMcp: Mount = createMcpMount();

/**
 * A client that closes the connection its requests were posted on before their answers were written gets no answer,
 * so those requests are cancelled, as if it had sent notifications/cancelled: a waiting subscribe stops taking, and
 * what a take already marked read goes back unread (tools/messaging.ts) instead of being written to a closed socket.
 */
function cancelOnHangUp(req: Request, res: Response, transport: WebStandardStreamableHTTPServerTransport) {
  if (req.method !== 'POST') return;
  const ids = ([] as unknown[]).concat(req.body ?? []).flatMap((m) => {
    const r = m as { method?: unknown; id?: unknown };
    return typeof r?.method === 'string' && (typeof r.id === 'string' || typeof r.id === 'number') ? [r.id] : [];
  });
  if (!ids.length) return;
  res.once('close', () => {
    if (res.writableFinished) return;
    for (const requestId of ids) {
      transport.onmessage?.({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId, reason: 'The client closed the connection.' },
      });
    }
  });
}
