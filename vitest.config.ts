import { defineConfig } from 'vitest/config';
import LongestFirst from './test/support/sequencer.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most files wait on PostgreSQL, Redis, Chromium or HTTP more than they compute: four at once
    // finish the suite in about 250 s on 2 cores instead of about 400 s with one per core.
    maxWorkers: 4,
    // The suite is CPU-bound on 2 cores, and most of that was loading the same SDKs (Bolt, botbuilder, the MCP SDK)
    // again for every file: a worker keeps its modules between files (whole suite 220 s instead of 333 s, measured
    // with npx vitest run in a clean clone). Test files must therefore leave no process-wide state behind.
    isolate: false,
    // Longest files first, so that the workers finish together (test/support/sequencer.ts).
    sequence: { sequencer: LongestFirst },
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/patient-wait.ts'],
    // expect.poll gives up after one second by default; on a loaded 2-core machine a page can take longer.
    expect: { poll: { timeout: 20_000, interval: 50 } },
  },
});
