// In CI the PostgreSQL and Redis suites must run, never skip: fail early when they cannot.
export default function setup() {
  if (process.env.CI === 'true') {
    for (const v of ['TEST_DATABASE_URL', 'TEST_REDIS_URL']) {
      if (!process.env[v]) throw new Error(`${v} must be set in CI so the PostgreSQL and Redis suites run; .ci/run exports it.`);
    }
  }
}
