// The outside services some tests need: PostgreSQL and Redis, named by a
// variable each, and Chromium. Locally a suite whose service is not named is
// skipped, and the run ends by saying, once, which files were and what turns
// them on (global-setup.ts prints it); in CI (CI=true) nothing is skipped: a
// missing service stops the run with the same sentence.
import { appendFileSync } from 'node:fs';
import { expect, inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where test files note the suites they skip for want of a service (global-setup.ts reports them at the end). */
    skipLog: string;
  }
}

export interface Service {
  /** What it is, as a person says it. */
  name: string;
  /** The variable that turns its suites on. */
  variable: 'TEST_DATABASE_URL' | 'TEST_REDIS_URL' | 'CHROMIUM_PATH';
  /** What becomes of the tests that need it when it is missing locally. */
  without: string;
  /** How to get it on this machine (Debian) and name it, as .ci/run does. */
  how: string;
}

/** Where Debian's Chromium lands, used when CHROMIUM_PATH is unset. */
export const DEFAULT_CHROMIUM = '/usr/bin/chromium';

export const SERVICES = {
  postgres: {
    name: 'PostgreSQL',
    variable: 'TEST_DATABASE_URL',
    without: 'their PostgreSQL suites skipped, or run on PGlite only',
    how:
      'apt-get install -y postgresql && pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start && ' +
      "psql -h 127.0.0.1 -U postgres -c 'create database test', then " +
      'export TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test',
  },
  redis: {
    name: 'Redis',
    variable: 'TEST_REDIS_URL',
    without: 'their BullMQ suites skipped, or run on the embedded queue only',
    how: 'apt-get install -y redis-server && redis-server --daemonize yes, then export TEST_REDIS_URL=redis://127.0.0.1:6379',
  },
  chromium: {
    name: 'Chromium',
    variable: 'CHROMIUM_PATH',
    without: 'never skipped: a Chromium test fails without it',
    how: 'apt-get install -y chromium (it lands at /usr/bin/chromium), or export CHROMIUM_PATH=/path/to/chromium',
  },
} as const satisfies Record<string, Service>;

/** The sentence that says a service is missing and how to get it. */
export const missingSentence = (s: Service, detail = `${s.variable} is not set`) =>
  `${s.name} is needed here but ${detail}. To get it: ${s.how} (.ci/run does all of this).`;

/**
 * The URL of PostgreSQL or Redis for tests, from its variable. Unset, it is undefined and this file's suites that
 * need it are noted as skipped (said at the end of the run); in CI it throws instead.
 */
export function serviceUrl(service: 'postgres' | 'redis'): string | undefined {
  const s = SERVICES[service];
  const url = process.env[s.variable];
  if (url) return url;
  if (process.env.CI === 'true') throw new Error(missingSentence(s));
  noteSkipped(service);
  return undefined;
}

function noteSkipped(service: keyof typeof SERVICES) {
  let file: string | undefined;
  let log: string;
  try {
    file = expect.getState().testPath;
    log = inject('skipLog');
  } catch {
    return; // not in a test file (bench/ borrows these helpers): nobody to tell
  }
  if (file) appendFileSync(log, `${JSON.stringify({ service, file })}\n`);
}
