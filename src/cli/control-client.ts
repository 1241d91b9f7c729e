import { existsSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
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

/** Sends a command to the server on the control socket; null when no server is listening there. */
export function sendToServer(dataDir: string, name: string, args: Record<string, unknown>): Promise<CommandReply | null> {
  const socketPath = controlSocketPath(dataDir);
  if (!existsSync(socketPath)) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const req = http.request({ socketPath, path: '/run', method: 'POST', headers: { 'content-type': 'application/json' } }, async (res) => {
      let body = '';
      for await (const chunk of res) body += chunk;
      try { resolve(JSON.parse(body) as CommandReply); } catch (e) { reject(e); }
    });
    req.on('error', (e: NodeJS.ErrnoException) => {
      // A socket left behind by a server that died: nobody is listening.
      if (e.code === 'ECONNREFUSED' || e.code === 'ENOENT') resolve(null); else reject(e);
    });
    req.end(JSON.stringify({ name, args }));
  });
}
