import type { Command } from 'commander';
import type { Config } from '../config.ts';

type Io = { out: (s: string) => void; err: (s: string) => void };

/** Long-running and maintenance commands: serve, worker, migrate. */
export function registerServiceCommands(program: Command, io: Io, setCode: (c: number) => void) {
  const withConfig =
    (fn: (config: Config, ...a: any[]) => Promise<void>) =>
    async (...a: unknown[]) => {
      // Loaded here, not at the top: `--help` or a command a server answers needs none of it.
      const { ConfigError, loadConfig } = await import('../config.ts');
      try {
        await fn(loadConfig(), ...a);
      } catch (e) {
        if (e instanceof ConfigError) {
          io.err(e.message);
          setCode(2);
          return;
        }
        throw e;
      }
    };

  program
    .command('serve')
    .description('run the HTTP server (Slack, Teams, MCP, web chat) and the workers')
    .option('--demo', 'seed a demo organization, workspace and agent on first run')
    .action(
      withConfig(async (config, o: { demo?: boolean }) => {
        const { startServer, stopOnSignals } = await import('../server.ts');
        // The demo keeps the terminal to its one line unless LOG_LEVEL asks for more,
        // and holds what it logs while starting until that line is out.
        const demoConfig: Config = o.demo && !process.env.LOG_LEVEL ? { ...config, logLevel: 'warn' } : config;
        const [{ default: pino }, { heldLogStream, LOG_SAFETY }] = await Promise.all([
          import('pino'),
          import('../infra/logger.ts'),
        ]);
        const held = o.demo ? heldLogStream() : null;
        const logger = held ? pino({ level: demoConfig.logLevel, ...LOG_SAFETY }, held) : undefined;
        let server;
        try {
          server = await startServer(demoConfig, { logger });
          stopOnSignals(server, server.app.logger);
          if (o.demo) {
            // One line for a newcomer: the link that signs them in (the demo agent runs in this process).
            const { startDemo } = await import('../demo/index.ts');
            const demo = await startDemo(server);
            io.out(`Switchboard demo is running. Open this link to sign in: ${demo.signinUrl}`);
          }
        } finally {
          held?.release();
        }
        if (!o.demo) {
          io.out(`Switchboard is listening on ${config.publicUrl} (health: ${config.publicUrl}/healthz)`);
        }
      }),
    );

  program
    .command('worker')
    .description('deliver outbox jobs only (no HTTP); run several next to the servers')
    .action(
      withConfig(async (config) => {
        if (!config.databaseUrl) {
          io.err(
            'A separate worker needs a shared database: set DATABASE_URL (PGlite is embedded in `serve`, which already runs the worker).',
          );
          setCode(2);
          return;
        }
        const [{ createApp }, { schedulePeriodicWork }] = await Promise.all([
          import('../app.ts'),
          import('../app-periodic.ts'),
        ]);
        // createApp builds every configured surface with its job handlers.
        const app = await createApp(config);
        await app.queue.start();
        await schedulePeriodicWork(app);
        const stop = () => app.close().then(() => process.exit(0));
        process.once('SIGTERM', stop);
        process.once('SIGINT', stop);
        io.out('Switchboard worker started.');
      }),
    );

  program
    .command('mcp-stdio')
    .description('serve MCP on stdin/stdout for a local agent (token from SWITCHBOARD_TOKEN)')
    .requiredOption('--workspace <workspace>', 'workspace slug or id')
    .action(
      withConfig(async (config, o: { workspace: string }) => {
        const [{ runMcpStdio }, { localServer }, { quietLogger }] = await Promise.all([
          import('../mcp/stdio.ts'),
          import('./local-server.ts'),
          import('../infra/logger.ts'),
        ]);
        setCode(
          await runMcpStdio(config, {
            workspace: o.workspace,
            openApp: async () => (await import('../app.ts')).createApp(config, { logger: quietLogger(config) }),
            server: localServer(config),
            token: process.env.SWITCHBOARD_TOKEN,
            dataDirSet: Boolean(process.env.DATA_DIR),
            err: io.err,
          }),
        );
      }),
    );

  program
    .command('migrate')
    .description('apply database migrations and exit')
    .action(
      withConfig(async (config) => {
        const { controlSocketPath, sendToServer, WHERE_COMMAND } = await import('./control-client.ts');
        // Asked like every command, so a server on this DATA_DIR using another database refuses it the same way.
        const server = await sendToServer(config, WHERE_COMMAND, {});
        if (server && !server.ok) {
          io.err(server.error?.message ?? 'The server on this data directory refused the command.');
          setCode(2);
          return;
        }
        if (server && !config.databaseUrl) {
          io.err(
            `A server is running on this data directory (${controlSocketPath(config.dataDir)}); it applied the migrations at start-up.`,
          );
          setCode(1);
          return;
        }
        const { createApp } = await import('../app.ts');
        const { quietLogger } = await import('../infra/logger.ts');
        const app = await createApp(config, { logger: quietLogger(config) });
        await app.close();
        io.out('Migrations applied.');
      }),
    );
}
