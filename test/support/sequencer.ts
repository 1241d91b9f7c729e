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
 * Seconds per file, from its start to its end as a worker runs it (import, hooks and tests; the JSON reporter's
 * per-file times leave hooks out), for the files taking 12 s or more in a full run on a slow 2-core machine with other
 * work beside it (475 s, 2026-12-01, session 9); the others count as 0 and follow, larger files first. Only the order
 * matters; refresh it when it changes a lot, e.g. with `--reporter=default --reporter=./test/support/file-times.ts`.
 */
export const KNOWN_SECONDS: Readonly<Record<string, number>> = {
  'test/web/health.test.ts': 95,
  'test/mcp/stdio.test.ts': 75,
  'test/web/hostile-input.test.ts': 72,
  'test/adapters/db/failover.test.ts': 67,
  'test/web/chat/chat.test.ts': 60,
  'test/web/e2e/chat.e2e.test.ts': 57,
  'test/adapters/teams/delivery.test.ts': 55,
  'test/web/details-chromium.test.ts': 50,
  'test/adapters/slack/delivery.test.ts': 46,
  'test/web/auth/signin.test.ts': 43,
  'test/cli/cli.test.ts': 40,
  'test/adapters/queue/job-queue.contract.test.ts': 39,
  'test/web/settings-chromium.test.ts': 38,
  'test/web/reactions-chromium.test.ts': 38,
  'test/web/chat/events.test.ts': 37,
  'test/web/approvals-chromium.test.ts': 37,
  'test/mcp/live-tools.test.ts': 35,
  'test/cli/serve.test.ts': 33,
  'test/web/chat/settings-api.test.ts': 32,
  'test/cli/database-mismatch.test.ts': 32,
  'test/adapters/db/pglite-thread.test.ts': 31,
  'test/adapters/db/shared-surface-migration.test.ts': 26,
  'test/adapters/slack/durable-inbound.test.ts': 23,
  'test/mcp/approvals.test.ts': 23,
  'test/web/live-chromium.test.ts': 23,
  'test/web/session-end-chromium.test.ts': 22,
  'test/web/documents-chromium.test.ts': 22,
  'test/web/chat/isolation.test.ts': 22,
  'test/server.test.ts': 20,
  'test/adapters/queue/bullmq-shutdown.test.ts': 19,
  'test/adapters/slack/linking.test.ts': 17,
  'test/adapters/slack/approvals.test.ts': 17,
  'test/adapters/db/outbox-repo.test.ts': 16,
  'test/adapters/slack/linking-audience.test.ts': 16,
  'test/web/link-chromium.test.ts': 15,
  'test/web/link.test.ts': 14,
  'test/web/resync-chromium.test.ts': 14,
  'test/adapters/db/read-cache.test.ts': 13,
  'test/mcp/intake-tools.test.ts': 13,
  'test/mcp/documents-tools.test.ts': 13,
  'test/adapters/slack/bridge-mirror.test.ts': 12,
  'test/adapters/slack/approvals-race.test.ts': 12,
  'test/web/approvals.test.ts': 12,
  'test/adapters/db/audience-repo.test.ts': 12,
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
