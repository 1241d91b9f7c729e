import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most files wait on PostgreSQL, Redis, Chromium or HTTP more than they compute: four at once
    // finish the suite in about 250 s on 2 cores instead of about 400 s with one per core.
    maxWorkers: 4,
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/patient-wait.ts'],
    // expect.poll gives up after one second by default; on a loaded 2-core machine a page can take longer.
    expect: { poll: { timeout: 20_000, interval: 50 } },
  },
});
