import { existsSync } from 'node:fs';
import path from 'node:path';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type McpServer,
  PROTOCOL_VERSION_META_KEY,
  type Transport,
} from '@modelcontextprotocol/server';
import { serveStdio, type StdioServerHandle, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { App } from '../app.ts';
import type { Config } from '../config.ts';
import { isSwitchboardError } from '../core/errors.ts';
import type { ToolContext } from './context.ts';

/** A Switchboard server already running on this data directory; the CLI finds it (lock file, control socket). */
export interface LocalServer {
  /** The pid of a server holding the embedded database, or null when none does (or the database is PostgreSQL). */
  holder(): number | null;
  /** The pid of the server named by an error opening the app because it holds the embedded database; null for any other error. */
  holderOf(e: unknown): number | null;
  /** Where that server listens, and how that is known (said on stderr). */
  address(): Promise<{ base: string; how: string }>;
}

export interface StdioOptions {
  workspace: string;
  /** Opens the app on this configuration, logging quietly (stdout carries only the protocol). */
  openApp: () => Promise<App>;
  /** A running server to relay to when it holds the embedded database. */
  server: LocalServer;
  /** Whether DATA_DIR was set: a client such as Claude Desktop starts us in a directory that is not the checkout. */
  dataDirSet: boolean;
  /** The agent token (SWITCHBOARD_TOKEN). */
  token: string | undefined;
  /** Where sentences for the person go: stderr, since stdout carries only the protocol. */
  err: (line: string) => void;
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
}

/** Resolves when the input ends (the client went away) or the process is asked to stop. */
function untilClosed(stdin: NodeJS.ReadableStream): Promise<void> {
  return new Promise((resolve) => {
    stdin.once('end', resolve);
    stdin.once('close', resolve);
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
}

/**
 * `switchboard mcp-stdio --workspace W`: MCP on stdin/stdout for a local agent,
 * with the same server a Streamable HTTP session gets, for clients of both protocol
 * families (the first message tells which one the connection speaks). Logs go to stderr.
 * When a running `serve` holds the embedded database, messages are relayed to
 * its HTTP endpoint instead. Resolves to the exit code once the client leaves.
 */
export async function runMcpStdio(config: Config, o: StdioOptions): Promise<number> {
  const stdin = o.stdin ?? process.stdin;
  const stdout = o.stdout ?? process.stdout;
  if (!o.token) {
    o.err(
      "Set SWITCHBOARD_TOKEN to the agent's token (printed by `switchboard agent add`, or a new one from `switchboard agent rotate-token OWNER/NAME`).",
    );
    return 2;
  }
  const missing = missingDatabase(config, o.dataDirSet);
  if (missing) {
    o.err(missing);
    return 2;
  }
  const toServer = async (pid: number) => {
    const { base, how } = await o.server.address();
    const url = `${base}/mcp/${encodeURIComponent(o.workspace)}`;
    o.err(
      `The embedded database is held by a running Switchboard server (pid ${pid}); relaying MCP to it at ${url} (${how}).`,
    );
    return relay(url, o.token!, stdin, stdout, o.err);
  };
  // A running server holds the embedded database: relay without loading the app (a second or two sooner for the client).
  const holder = o.server.holder();
  if (holder) return toServer(holder);
  let app: App;
  try {
    app = await o.openApp();
  } catch (e) {
    const pid = o.server.holderOf(e);
    if (pid === null) throw e;
    return toServer(pid);
  }
  const [{ openToolContext }, { buildMcpServer }] = await Promise.all([import('./context.ts'), import('./server.ts')]);
  try {
    const agent = await app.agents.authenticate(o.token);
    if (!agent) {
      o.err(
        "SWITCHBOARD_TOKEN is not a valid agent token, or it was rotated; ask the agent's owner for its current token.",
      );
      return 1;
    }
    const ctx = await openToolContext(app, agent, o.workspace);
    // Nothing in front of stdio re-checks the token, so each call does, and a waiting subscribe does when a rotation wakes it.
    const token = o.token;
    ctx.stillAuthorized = async () => (await app.agents.authenticate(token))?.id === agent.id;
    ctx.checkEachCall = true;
    const served = serveConnection(
      ctx,
      new StdioServerTransport(stdin as NodeJS.ReadStream, stdout as NodeJS.WriteStream),
      buildMcpServer,
    );
    app.logger.info({ agentId: agent.id, workspaceId: ctx.workspace.id }, 'MCP on stdio ready');
    await untilClosed(stdin);
    await served.close();
    return 0;
  } catch (e) {
    if (isSwitchboardError(e)) {
      o.err(e.message);
      return 1;
    }
    throw e;
  } finally {
    await app.close();
  }
}

/**
 * Serves one lasting connection (stdio) for the caller: the first message tells which protocol family it speaks,
 * and one server is built for it; a 2026-07-28 client also gets inbox updates on its subscriptions/listen stream.
 */
export function serveConnection(
  ctx: ToolContext,
  transport: Transport,
  build: (ctx: ToolContext) => Promise<McpServer>,
): StdioServerHandle {
  return serveStdio(({ era }) => build({ ...ctx, era, pushInbox: era === 'modern' }), {
    transport,
    onerror: (err) => ctx.core.logger.debug({ err }, 'MCP on a connection: a message was refused or failed'),
  });
}

/**
 * Why this process cannot find the database it should serve, or null when it
 * can. Without DATABASE_URL or DATA_DIR, the default `./.switchboard` is relative
 * to wherever the MCP client started us (Claude Desktop: not the checkout), so
 * opening it would create an empty database there that no token matches.
 */
function missingDatabase(config: Config, dataDirSet: boolean): string | null {
  if (config.databaseUrl) return null;
  if (!dataDirSet) {
    return (
      `mcp-stdio does not know where your Switchboard keeps its data, and did not create an empty database in ${process.cwd()}. ` +
      'Set DATA_DIR to the absolute path of the data directory `switchboard serve` uses (by default the .switchboard folder of the checkout), ' +
      'or DATABASE_URL to its PostgreSQL, in the "env" of your MCP client\'s configuration.'
    );
  }
  if (!existsSync(path.join(config.dataDir, 'pglite'))) {
    return (
      `DATA_DIR is ${config.dataDir}, which holds no Switchboard database; mcp-stdio did not create an empty one. ` +
      'Set DATA_DIR to the data directory `switchboard serve` uses (an absolute path), or start `switchboard serve` with this DATA_DIR once first.'
    );
  }
  return null;
}

/**
 * Relays stdio to a server's Streamable HTTP endpoint with the SDK's client
 * transport: each message passes through unchanged (a 2026-07-28 message with the
 * headers that revision asks for), and a request the server refuses (401, 403…) is
 * answered with a JSON-RPC error that says why.
 */
async function relay(
  url: string,
  token: string,
  stdin: NodeJS.ReadableStream,
  stdout: NodeJS.WritableStream,
  err: (s: string) => void,
): Promise<number> {
  const upstream = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const local = new StdioServerTransport(stdin as NodeJS.ReadStream, stdout as NodeJS.WriteStream);
  let initializeId: string | number | null = null;
  // A session's messages go one after another: a send resolves once the server answered its headers, so the
  // session id from `initialize` is known before anything else goes out. A 2026-07-28 request stands alone and
  // may be answered only when it is done (a waiting subscribe), so it goes out at once.
  let sending = Promise.resolve();
  const refused = (m: JSONRPCMessage) => (e: Error) => {
    const why = unreachable(e)
      ? `could not reach Switchboard at ${url} (${causeOf(e)}); is \`switchboard serve\` running there? Set PORT (or DATA_DIR) to match the server`
      : `Switchboard at ${url} refused the request: ${e.message}`;
    err(why);
    if (isJSONRPCRequest(m)) void local.send({ jsonrpc: '2.0', id: m.id, error: { code: -32000, message: why } });
  };
  local.onmessage = (m: JSONRPCMessage) => {
    if (isJSONRPCRequest(m) && m.method === 'initialize') initializeId = m.id;
    if (standsAlone(m)) void upstream.send(m).catch(refused(m));
    else sending = sending.then(() => upstream.send(m)).catch(refused(m));
  };
  upstream.onmessage = (m: JSONRPCMessage) => {
    // Later requests carry the negotiated protocol version, as the SDK's own client does.
    if (isJSONRPCResultResponse(m) && m.id === initializeId && typeof m.result.protocolVersion === 'string')
      upstream.setProtocolVersion(m.result.protocolVersion);
    void local.send(m);
  };
  upstream.onerror = (e) => err(`Connection to Switchboard at ${url}: ${e.message}`);
  await upstream.start();
  await local.start();
  await untilClosed(stdin);
  await upstream.terminateSession().catch(() => {});
  await Promise.all([upstream.close(), local.close()]);
  return 0;
}

/** A 2026-07-28 request: it carries its protocol version in its own `_meta`. */
const standsAlone = (m: JSONRPCMessage) =>
  isJSONRPCRequest(m) && typeof m.params?._meta?.[PROTOCOL_VERSION_META_KEY] === 'string';

/** A network failure (nothing listening, name not found), as fetch reports it in `cause`. */
const causeOf = (e: Error) =>
  String((e.cause as { code?: string } | undefined)?.code ?? (e.cause as Error | undefined)?.message ?? e.message);
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'ECONNRESET', 'EHOSTUNREACH', 'ETIMEDOUT', 'EAI_AGAIN']);
/** fetch rejects with a TypeError when nothing answers; its `cause` (or the error itself) carries the system code. */
const unreachable = (e: Error) =>
  e instanceof TypeError ||
  [e, e.cause].some((x) => NETWORK_CODES.has(String((x as { code?: unknown } | undefined)?.code)));
