import { existsSync, unlinkSync } from 'node:fs';
import http from 'node:http';
import type { App } from '../app.ts';
import { isSwitchboardError } from '../core/errors.ts';
import { commands } from './commands.ts';
import { controlSocketPath, databaseIdentity, EMBEDDED, WHERE_COMMAND, type CommandReply } from './control-client.ts';
import { jobCommands } from './job-commands.ts';
import { listeningCommands } from './listening-commands.ts';
import { surfaceCommands } from './surface-commands.ts';

/**
 * The control socket: a running server listens on a unix socket in DATA_DIR
 * and runs the CLI's commands. With PGlite only one process may open the data,
 * so it is the only way; with PostgreSQL it spares the CLI opening a pool and
 * checking migrations. File permissions (0600) keep it to the server's own user.
 */
export { sendToServer, type CommandReply } from './control-client.ts';

export async function runCommand(app: App, name: string, args: Record<string, unknown>): Promise<CommandReply> {
  const fn = commands[name] ?? jobCommands[name] ?? listeningCommands[name] ?? surfaceCommands[name];
  if (!fn) return { ok: false, error: { code: 'INVALID_INPUT', message: `Unknown command "${name}".` } };
  try {
    return { ok: true, output: await fn(app, args) };
  } catch (e) {
    if (isSwitchboardError(e)) return { ok: false, error: { code: e.code, message: e.message } };
    app.logger.error({ err: e, command: name }, 'command failed');
    return { ok: false, error: { code: 'INTERNAL', message: `The command failed: ${(e as Error).message}` } };
  }
}

/**
 * Why a command whose environment names the database `theirs` is not run by
 * this server, or null when this server uses that database: the CLI must never
 * act on another database than its own environment names, whichever command.
 */
function databaseMismatch(app: App, theirs: unknown): string | null {
  const ours = databaseIdentity(app.config.databaseUrl);
  if (theirs === ours) return null;
  const server = ours === EMBEDDED ? 'its embedded database' : ours;
  const asked =
    theirs === EMBEDDED
      ? 'the embedded database in DATA_DIR (DATABASE_URL is not set)'
      : typeof theirs === 'string'
        ? `${theirs} (your DATABASE_URL)`
        : 'an unnamed database';
  const toServer = ours === EMBEDDED ? 'unset DATABASE_URL' : `set DATABASE_URL to ${ours} (with its password)`;
  return (
    `Nothing was done: the Switchboard server running with DATA_DIR ${app.config.dataDir} uses ${server}, not ${asked}; ` +
    `to work on the server's database, ${toServer}, or to work on the other one, set DATA_DIR to another directory or stop that server.`
  );
}

export async function startControlServer(app: App, localUrl?: string): Promise<() => Promise<void>> {
  const file = controlSocketPath(app.config.dataDir);
  if (existsSync(file)) unlinkSync(file);
  const server = http.createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    let reply: CommandReply;
    try {
      const { name, args, database } = JSON.parse(body) as {
        name: string;
        args: Record<string, unknown>;
        database: unknown;
      };
      const mismatch = databaseMismatch(app, database);
      reply = mismatch
        ? { ok: false, error: { code: 'INVALID_INPUT', message: mismatch } }
        : name === WHERE_COMMAND
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
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(file, resolve);
    });
  } finally {
    process.umask(oldMask);
  }
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
      if (existsSync(file)) unlinkSync(file);
    });
}
