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
 * Seconds per file as vitest's default reporter gives them (its tests and hooks, without the import), for the files
 * taking 10 s or more in a full run on a slow 2-core machine (382 s, 2026-12-01, session 10); the others count as 0
 * and follow, larger files first. Only the order
 * matters; refresh it when it changes a lot, e.g. with `--reporter=default --reporter=./test/support/file-times.ts`.
 */
export const KNOWN_SECONDS: Readonly<Record<string, number>> = {
  'test/mcp/stdio.test.ts': 99,
  'test/web/health.test.ts': 71,
  'test/web/hostile-input.test.ts': 64,
  'test/web/details-chromium.test.ts': 48,
  'test/web/chat/chat.test.ts': 45,
  'test/adapters/teams/delivery.test.ts': 42,
  'test/adapters/slack/delivery.test.ts': 40,
  'test/mcp/live-tools.test.ts': 39,
  'test/adapters/queue/job-queue.contract.test.ts': 38,
  'test/adapters/db/failover.test.ts': 35,
  'test/adapters/slack/ingest-kill.test.ts': 32,
  'test/web/e2e/chat.e2e.test.ts': 31,
  'test/web/settings-chromium.test.ts': 28,
  'test/web/chat/isolation.test.ts': 26,
  'test/adapters/db/shared-surface-migration.test.ts': 25,
  'test/cli/database-mismatch.test.ts': 25,
  'test/web/approvals-chromium.test.ts': 23,
  'test/web/reactions-chromium.test.ts': 23,
  'test/web/auth/signin.test.ts': 23,
  'test/adapters/db/pglite-thread.test.ts': 19,
  'test/mcp/documents-tools.test.ts': 19,
  'test/adapters/slack/bridge-mirror.test.ts': 18,
  'test/web/session-end-chromium.test.ts': 35,
  'test/adapters/db/orphan-listeners-migration.test.ts': 16,
  'test/cli/serve.test.ts': 15,
  'test/mcp/intake-tools.test.ts': 15,
  'test/web/documents-chromium.test.ts': 15,
  'test/adapters/slack/linking.test.ts': 15,
  'test/adapters/slack/durable-inbound.test.ts': 15,
  'test/web/live-chromium.test.ts': 14,
  'test/web/chat/events.test.ts': 14,
  'test/cli/cli.test.ts': 13,
  'test/adapters/queue/bullmq-shutdown.test.ts': 12,
  'test/adapters/teams/bridge-mirror.test.ts': 12,
  'test/adapters/slack/approvals.test.ts': 11,
  'test/adapters/slack/approvals-race.test.ts': 11,
  'test/web/resync-chromium.test.ts': 10,
  'test/mcp/approvals.test.ts': 10,
  'test/adapters/slack/linking-audience.test.ts': 10,
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
