import pino from 'pino';
import type { Config } from '../config.ts';

/** Log fields that may hold secrets or what people wrote, censored by every process's logger. */
const LOG_REDACT = [
  'token',
  '*.token',
  '*.password',
  '*.secret',
  '*.botToken',
  'body',
  '*.body',
  'text',
  '*.text',
  '*.headers.authorization',
  '*.headers.cookie',
];

// A live sign-in or link URL is as good as a password until it is used or expires; agent and Slack tokens likewise.
const SECRET_IN_TEXT = /(\/link\/)[^\s"'?#&/]+|([?&]token=)[^\s"'&#]+|\bsb_[A-Za-z0-9_-]{8,}|\bxox[a-z]-[A-Za-z0-9-]+/g;

/** `s` with sign-in/link nonces and tokens replaced, wherever they appear in a log line. */
export function scrubSecrets(s: string): string {
  return s.replace(SECRET_IN_TEXT, (_m, link?: string, query?: string) => `${link ?? query ?? ''}[redacted]`);
}

function scrubbed(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubSecrets(value);
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) {
    // Keep it an Error so pino still serialises it as one.
    const copy = Object.assign(Object.create(Object.getPrototypeOf(value)) as Error, value);
    copy.message = scrubSecrets(value.message);
    if (value.stack) copy.stack = scrubSecrets(value.stack);
    return copy;
  }
  if (Array.isArray(value)) return value.map((v) => scrubbed(v, depth + 1));
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrubbed(v, depth + 1)]));
}

/**
 * What every logger of Switchboard is built with: the redacted fields, and a
 * hook that scrubs nonces and tokens out of every message and field, at every
 * level, including what SDKs hand to our logger.
 */
export const LOG_SAFETY: Pick<pino.LoggerOptions, 'redact' | 'hooks'> = {
  redact: LOG_REDACT,
  hooks: {
    logMethod(args, method) {
      return method.apply(this, args.map((a) => scrubbed(a)) as Parameters<typeof method>);
    },
  },
};

/**
 * The logger for processes whose stdout is for something else (CLI results, MCP
 * on stdio): logs go to stderr, warnings only unless LOG_LEVEL asks for more.
 */
export const quietLogger = (config: Config) =>
  pino({ level: process.env.LOG_LEVEL ? config.logLevel : 'warn', ...LOG_SAFETY }, pino.destination(2));

/**
 * A log destination that holds lines until `release()`, then writes them and
 * everything after to stderr: `npm start` shows the sign-in link first, not
 * the start-up warnings logged while it was being made.
 */
export function heldLogStream(write: (line: string) => void = (l) => process.stderr.write(l)) {
  let held: string[] | null = [];
  return {
    write(line: string) {
      if (held) held.push(line);
      else write(line);
    },
    release() {
      const lines = held ?? [];
      held = null;
      for (const line of lines) write(line);
    },
  };
}
