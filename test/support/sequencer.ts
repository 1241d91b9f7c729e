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
 * per-file times leave hooks out), for the files taking 12 s or more in a full run on a quiet but slow 2-core machine (384 s,
 * 2026-12-01, session 8); the others count as 0 and follow, larger files first. Only the order matters; refresh it when
 * it changes a lot, e.g. with `--reporter=default --reporter=./test/support/file-times.ts`.
 */
export const KNOWN_SECONDS: Readonly<Record<string, number>> = {
  'test/mcp/stdio.test.ts': 64,
  'test/adapters/slack/delivery.test.ts': 47,
  'test/adapters/queue/job-queue.contract.test.ts': 44,
  'test/adapters/teams/delivery.test.ts': 41,
  'test/web/health.test.ts': 40,
  'test/web/hostile-input.test.ts': 39,
  'test/web/details-chromium.test.ts': 38,
  'test/adapters/db/failover.test.ts': 38,
  'test/web/auth/signin.test.ts': 33,
  'test/web/e2e/chat.e2e.test.ts': 31,
  'test/web/chat/chat.test.ts': 26,
  'test/web/reactions-chromium.test.ts': 25,
  'test/cli/database-mismatch.test.ts': 24,
  'test/mcp/intake-tools.test.ts': 22,
  'test/web/approvals-chromium.test.ts': 21,
  'test/mcp/documents-tools.test.ts': 20,
  'test/mcp/live-tools.test.ts': 20,
  'test/adapters/teams/talking.test.ts': 19,
  'test/adapters/db/pglite-thread.test.ts': 19,
  'test/web/live-chromium.test.ts': 18,
  'test/web/settings-chromium.test.ts': 18,
  'test/cli/serve.test.ts': 17,
  'test/adapters/db/inbound-repo.test.ts': 17,
  'test/adapters/db/audience-repo.test.ts': 17,
  'test/web/chat/isolation.test.ts': 16,
  'test/web/link-chromium.test.ts': 16,
  'test/web/documents-chromium.test.ts': 16,
  'test/adapters/slack/linking.test.ts': 15,
  'test/web/resync-chromium.test.ts': 14,
  'test/adapters/slack/durable-inbound.test.ts': 14,
  'test/mcp/messaging-tools.test.ts': 14,
  'test/web/approvals.test.ts': 14,
  'test/adapters/slack/approvals-race.test.ts': 14,
  'test/mcp/http.test.ts': 14,
  'test/adapters/db/shared-surface-migration.test.ts': 13,
  'test/adapters/slack/approvals.test.ts': 13,
  'test/web/chat/events.test.ts': 13,
  'test/adapters/teams/approvals.test.ts': 13,
  'test/adapters/slack/live.test.ts': 13,
  'test/adapters/queue/bullmq-shutdown.test.ts': 12,
  'test/mcp/documents-concurrency.test.ts': 12,
  'test/web/documents.test.ts': 12,
  'test/web/auth/csrf.test.ts': 12,
  'test/cli/cli.test.ts': 12,
  'test/adapters/teams/live.test.ts': 12,
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
