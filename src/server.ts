import express, { type Express } from 'express';
import type { Logger } from 'pino';
import { createApp, type App, type AppOptions } from './app.ts';
import { schedulePeriodicWork } from './app-periodic.ts';
import { startControlServer } from './cli/control.ts';
import type { Config } from './config.ts';
import { settlesWithin } from './infra/time.ts';
import { createHttpApp, listen, type Mount, type RunningServer } from './http/http.ts';

export interface Server {
  app: App;
  http: RunningServer;
  url: string;
  /** Graceful stop: no new requests, in-flight ones finish, then queue, database and Redis close. */
  stop(): Promise<void>;
}

/** How long a failed start waits for what it started to close before giving up on it. */
const CLOSE_AFTER_FAILED_START_MS = 10_000;

/**
 * The mounts every server has, in order: MCP, documents, account links, then the chat surfaces. The surfaces come
 * last because the web chat owns `/` and answers 404 itself for any other `/assets/…` path, and its sign-in routes
 * handle everything under `/account` that `/account/links` (account links) has not.
 */
export async function defaultMounts(): Promise<Mount[]> {
  const [{ mountMcp }, { mountSurfaces }, { mountDocuments }, { mountLink }] = await Promise.all([
    import('./mcp/http.ts'),
    import('./http/surface-mount.ts'),
    import('./http/documents/index.ts'),
    import('./http/link/index.ts'),
  ]);
  return [mountMcp, mountDocuments, mountLink, mountSurfaces];
}

export async function startServer(
  config: Config,
  opts: AppOptions & {
    mounts?: Mount[];
    host?: string;
    control?: boolean;
    onListening?: (url: string) => void | Promise<void>;
  } = {},
): Promise<Server> {
  // Listen first: /healthz says the process is up while the database opens
  // (a fresh PGlite takes seconds); everything else answers 503 until ready.
  const shell = express();
  shell.disable('x-powered-by');
  let web: Express | null = null;
  shell.get('/healthz', (_req, res) => {
    res.json({ ok: true });
  });
  shell.use((req, res, next) => {
    if (web) return web(req, res, next);
    res
      .status(503)
      .set('retry-after', '2')
      .json({ ok: false, problems: ['starting: the database and workers are not ready yet'] });
  });
  const http = await listen(shell, config.port, opts.host);
  // A caller may hold the start here (tests look at the starting server without racing the database).
  await opts.onListening?.(http.url);
  let app: App;
  let started: App | null = null;
  // A start that fails stops what it started (the queue, the pool, the embedded database and its lock), so the
  // process ends instead of lingering half-started; bounded, as a queue may wait on Redis.
  const abandon = async (e: unknown): Promise<never> => {
    await http.close(0);
    if (started) {
      const closing = started
        .close()
        .catch((err: unknown) => started!.logger.warn({ err }, 'could not close everything after a failed start'));
      await settlesWithin(closing, CLOSE_AFTER_FAILED_START_MS);
    }
    throw e;
  };
  try {
    app = await createApp(config, opts);
    started = app;
    web = await createHttpApp(app, opts.mounts ?? (await defaultMounts()));
    await app.queue.start();
    await schedulePeriodicWork(app);
  } catch (e) {
    return abandon(e);
  }
  // What would otherwise fail only at a surface's first request (Slack: tokens the secret cannot open), said now.
  for (const surface of app.surfaceModules.values()) await surface.checkOnStart?.();
  // Surfaces that reach their platform themselves (Slack's Socket Mode) connect now, with the queue running.
  for (const surface of app.surfaceModules.values()) if (surface.configured) surface.connect?.();
  // The CLI on this machine sends its commands here instead of opening the database itself:
  // it must with PGlite (one process holds the data); with PostgreSQL it is only quicker.
  const stopControl =
    opts.control === false
      ? null
      : await startControlServer(app, http.url).catch((err: unknown) => {
          if (!config.databaseUrl) return abandon(err);
          app.logger.warn({ err }, 'no control socket in DATA_DIR; CLI commands will open the database themselves');
          return null;
        });
  let stopping: Promise<void> | null = null;
  return {
    app,
    http,
    url: http.url,
    stop: () =>
      (stopping ??= (async () => {
        await stopControl?.();
        await Promise.all(app.onDrain.map((fn) => fn()));
        await http.close();
        await app.close();
      })()),
  };
}

/** Stops the server on SIGTERM/SIGINT, then exits. */
export function stopOnSignals(server: Server, logger: Logger) {
  const handler = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    server.stop().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', handler);
  process.once('SIGINT', handler);
}
