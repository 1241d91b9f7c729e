import pino from 'pino';
import type { Config } from './config.ts';

/** Log fields that may hold secrets, censored by every process's logger. */
export const LOG_REDACT = ['*.token', '*.password', '*.secret', '*.botToken', 'token'];

/**
 * The logger for processes whose stdout is for something else (CLI results, MCP
 * on stdio): logs go to stderr, warnings only unless LOG_LEVEL asks for more.
 */
export const quietLogger = (config: Config) => pino({ level: process.env.LOG_LEVEL ? config.logLevel : 'warn', redact: LOG_REDACT }, pino.destination(2));

/**
 * A log destination that holds lines until `release()`, then writes them and
 * everything after to stderr: `npm start` shows the sign-in link first, not
 * the start-up warnings logged while it was being made.
 */
export function heldLogStream(write: (line: string) => void = (l) => process.stderr.write(l)) {
  let held: string[] | null = [];
  return {
    write(line: string) { if (held) held.push(line); else write(line); },
    release() {
      const lines = held ?? [];
      held = null;
      for (const line of lines) write(line);
    },
  };
}
