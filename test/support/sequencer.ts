// The order test files start in. The pool hands each file to the next free
// worker in this order, so the longest files go first and the four workers
// finish together: a long file started last keeps the whole run waiting for it.
// How long a file takes: vitest's own record of the last run here when it has
// one (node_modules/.vite), else the figures below, which a clean checkout (CI)
// needs because it has no record; vitest alone would order such a run by file
// size and start some of the longest files last.
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds each file held its worker (import, hooks and tests; test/support/file-times.ts), for the files taking 5 s
 * or more in a full run on a 2-core machine (143 s, 2026-12-02, session 11); the others count as 0 and follow, larger
 * files first. Only the order
 * matters; refresh it when it changes a lot, e.g. with `--reporter=default --reporter=./test/support/file-times.ts`.
 */
export const KNOWN_SECONDS: Readonly<Record<string, number>> = {
  'test/web/session-end-chromium.test.ts': 25,
  'test/adapters/queue/job-queue.contract.test.ts': 24,
  'test/adapters/teams/delivery.test.ts': 20,
  'test/adapters/db/failover.test.ts': 16,
  'test/mcp/stdio.test.ts': 15,
  'test/adapters/slack/delivery.test.ts': 14,
  'test/adapters/queue/bullmq-shutdown.test.ts': 12,
  'test/adapters/db/shared-surface-migration.test.ts': 10,
  'test/web/e2e/chat.e2e.test.ts': 10,
  'test/web/chat/events.test.ts': 10,
  'test/web/details-chromium.test.ts': 10,
  'test/cli/serve.test.ts': 9,
  'test/web/hostile-input.test.ts': 9,
  'test/cli/cli.test.ts': 9,
  'test/web/health.test.ts': 9,
  'test/web/auth/signin.test.ts': 8,
  'test/adapters/db/pglite-thread.test.ts': 8,
  'test/mcp/live-tools.test.ts': 8,
  'test/adapters/slack/ingest-kill.test.ts': 8,
  'test/web/chat/isolation.test.ts': 8,
  'test/adapters/slack/durable-inbound.test.ts': 8,
  'test/adapters/db/startup-unreachable.test.ts': 7,
  'test/mcp/documents-tools.test.ts': 7,
  'test/adapters/slack/bridge-mirror.test.ts': 7,
  'test/mcp/http.test.ts': 7,
  'test/web/settings-chromium.test.ts': 7,
  'test/web/approvals-chromium.test.ts': 6,
  'test/adapters/slack/live.test.ts': 5,
  'test/adapters/slack/approvals.test.ts': 5,
  'test/adapters/slack/approvals-race.test.ts': 5,
  'test/cli/database-mismatch.test.ts': 5,
  'test/mcp/intake-tools.test.ts': 5,
  'test/adapters/slack/public-channel-audience.test.ts': 5,
  'test/web/chat/chat.test.ts': 5,
};

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const weight = (spec: TestSpecification) => {
      const file = path.relative(root, spec.moduleId);
      const key = `${spec.project.name}:${file}`;
      const last = this.ctx.cache.getFileTestResults(key);
      return { seconds: last ? last.duration / 1000 : KNOWN_SECONDS[file] ?? 0, size: this.ctx.cache.getFileStats(key)?.size ?? 0 };
    };
    const weights = new Map(files.map((f) => [f, weight(f)]));
    return [...files].sort((a, b) => {
      const [wa, wb] = [weights.get(a)!, weights.get(b)!];
      return wb.seconds - wa.seconds || wb.size - wa.size;
    });
  }
}
