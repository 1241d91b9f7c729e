import path from 'node:path';
import type { Config } from '../config.ts';
import { DatabaseLockedError, lockHolder } from '../infra/db/lock.ts';
import type { LocalServer } from '../mcp/stdio.ts';
import { controlSocketPath, sendToServer, WHERE_COMMAND } from './control-client.ts';

/**
 * The `serve` process running on this configuration's data directory, as the CLI finds it: the embedded database's
 * lock file says whether one holds it, and its control socket says where it listens.
 */
export function localServer(config: Config): LocalServer {
  return {
    holder: () => (config.databaseUrl ? null : lockHolder(path.join(config.dataDir, 'pglite'))),
    holderOf: (e) => (e instanceof DatabaseLockedError ? e.pid : null),
    async address() {
      const reply = await sendToServer(config, WHERE_COMMAND, {}).catch(() => null);
      const url = reply?.ok ? reply.output?.data.url : null;
      if (typeof url === 'string')
        return { base: url, how: `as its control socket ${controlSocketPath(config.dataDir)} said` };
      return {
        base: `http://127.0.0.1:${config.port}`,
        how: `from PORT=${config.port}, since no control socket answered at ${controlSocketPath(config.dataDir)}`,
      };
    },
  };
}
