import { existsSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { Config } from '../config.ts';
import type { Output } from './commands.ts';

// The CLI's side of the control socket (control.ts has the server's). Kept
// apart and light, so a command a running server answers loads no validation
// library, logger or database code in the CLI process.

/** The unix socket a running server listens on in DATA_DIR. */
export const controlSocketPath = (dataDir: string) => path.join(dataDir, 'control.sock');

/** The control request that asks a running server where it listens on this machine (mcp-stdio relays there). */
export const WHERE_COMMAND = '__where';

export interface CommandReply {
  ok: boolean;
  output?: Output;
  error?: { code: string; message: string };
}

/** What the database identity of an unset DATABASE_URL is: the embedded database in DATA_DIR. */
export const EMBEDDED = 'embedded';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1']);

/**
 * The database a DATABASE_URL names, as postgres://user@host:port/name without
 * its password (EMBEDDED when unset): the CLI and the server compare these, so
 * two spellings of one database (localhost or 127.0.0.1, port 5432 or none) match.
 */
export function databaseIdentity(databaseUrl: string | undefined): string {
  if (!databaseUrl) return EMBEDDED;
  try {
    // The same places node-postgres reads them from: query parameters win over the address.
    const u = new URL(databaseUrl);
    const q = u.searchParams;
    const user = q.get('user') || decodeURIComponent(u.username);
    const host =
      q.get('host') ||
      decodeURIComponent(u.hostname)
        .replace(/^\[(.+)\]$/, '$1')
        .toLowerCase() ||
      'localhost';
    const name = decodeURIComponent(u.pathname.slice(1)) || user;
    return `postgres://${user ? `${user}@` : ''}${LOOPBACK.has(host) ? 'localhost' : host}:${q.get('port') || u.port || '5432'}/${name}`;
  } catch {
    // Unparsable (a password with a `/`, say): all between `://` and the last `@` goes but the user, and the query
    // (where a password may be too), so the refusal that shows this never shows a password.
    return databaseUrl
      .replace(
        /^((?:[^:/@]*:\/\/)?)([^:/@]*)[\s\S]*@/,
        (_, scheme: string, user: string) => `${scheme}${user ? `${user}@` : ''}`,
      )
      .replace(/[?#][\s\S]*$/, '');
  }
}

/**
 * Sends a command to the server on DATA_DIR's control socket, saying which
 * database this side's environment names (the server refuses to run it on
 * another, see control.ts); null when no server is listening there.
 */
export function sendToServer(
  target: Pick<Config, 'dataDir' | 'databaseUrl'>,
  name: string,
  args: Record<string, unknown>,
): Promise<CommandReply | null> {
  const socketPath = controlSocketPath(target.dataDir);
  if (!existsSync(socketPath)) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { socketPath, path: '/run', method: 'POST', headers: { 'content-type': 'application/json' } },
      async (res) => {
        let body = '';
        for await (const chunk of res) body += chunk;
        try {
          resolve(JSON.parse(body) as CommandReply);
        } catch (e) {
          reject(e);
        }
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) => {
      // A socket left behind by a server that died: nobody is listening.
      if (e.code === 'ECONNREFUSED' || e.code === 'ENOENT') resolve(null);
      else reject(e);
    });
    req.end(JSON.stringify({ name, args, database: databaseIdentity(target.databaseUrl) }));
  });
}
