import { existsSync, unlinkSync } from 'node:fs';
import http from 'node:http';
import type { App } from '../app.ts';
import { isSwitchboardError } from '../domain/errors.ts';
import { commands } from './commands.ts';
import { controlSocketPath, WHERE_COMMAND, type CommandReply } from './control-client.ts';
import { jobCommands } from './job-commands.ts';
import { listeningCommands } from './listening-commands.ts';

/**
 * The control socket: a running server listens on a unix socket in DATA_DIR
 * and runs the CLI's commands. With PGlite only one process may open the data,
 * so it is the only way; with PostgreSQL it spares the CLI opening a pool and
 * checking migrations. File permissions (0600) keep it to the server's own user.
 */
export { controlSocketPath, sendToServer, WHERE_COMMAND, type CommandReply } from './control-client.ts';

export async function runCommand(app: App, name: string, args: Record<string, unknown>): Promise<CommandReply> {
  const fn = commands[name] ?? jobCommands[name] ?? listeningCommands[name];
  if (!fn) return { ok: false, error: { code: 'INVALID_INPUT', message: `Unknown command "${name}".` } };
  try {
    return { ok: true, output: await fn(app, args) };
  } catch (e) {
    if (isSwitchboardError(e)) return { ok: false, error: { code: e.code, message: e.message } };
    app.logger.error({ err: e, command: name }, 'command failed');
    return { ok: false, error: { code: 'INTERNAL', message: `The command failed: ${(e as Error).message}` } };
  }
}

export async function startControlServer(app: App, localUrl?: string): Promise<() => Promise<void>> {
  const file = controlSocketPath(app.config.dataDir);
  if (existsSync(file)) unlinkSync(file);
  const server = http.createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    let reply: CommandReply;
    try {
      const { name, args } = JSON.parse(body) as { name: string; args: Record<string, unknown> };
      reply = name === WHERE_COMMAND
        ? { ok: true, output: { data: { url: localUrl ?? null }, text: localUrl ?? 'unknown' } }
        : await runCommand(app, name, args);
    } catch {
      reply = { ok: false, error: { code: 'INVALID_INPUT', message: 'The control request was not valid JSON.' } };
    }
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(reply));
  });
  const oldMask = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(file, resolve); });
  } finally {
    process.umask(oldMask);
  }
  return () => new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
    if (existsSync(file)) unlinkSync(file);
  });
}
