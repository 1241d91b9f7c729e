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
 * per-file times leave hooks out), for the files taking 12 s or more in a full run at load 20-25 (451 s,
 * 2026-12-01); the others count as 0 and follow, larger files first. Only the order matters; refresh it when
 * it changes a lot, e.g. with `--reporter=default --reporter=./test/support/file-times.ts`.
 */
export const KNOWN_SECONDS: Readonly<Record<string, number>> = {
  'test/mcp/stdio.test.ts': 106,
  'test/web/hostile-input.test.ts': 90,
  'test/adapters/slack/delivery.test.ts': 69,
  'test/adapters/teams/delivery.test.ts': 61,
  'test/adapters/db/failover.test.ts': 59,
  'test/web/details-chromium.test.ts': 57,
  'test/web/chat/isolation.test.ts': 46,
  'test/web/chat/chat.test.ts': 42,
  'test/web/health.test.ts': 41,
  'test/mcp/documents-tools.test.ts': 40,
  'test/web/auth/signin.test.ts': 40,
  'test/adapters/slack/durable-inbound.test.ts': 40,
  'test/web/approvals-chromium.test.ts': 35,
  'test/adapters/slack/linking.test.ts': 31,
  'test/adapters/queue/job-queue.contract.test.ts': 31,
  'test/web/settings-chromium.test.ts': 29,
  'test/web/e2e/chat.e2e.test.ts': 29,
  'test/web/reactions-chromium.test.ts': 28,
  'test/adapters/slack/approvals.test.ts': 27,
  'test/adapters/db/shared-surface-migration.test.ts': 25,
  'test/adapters/teams/talking.test.ts': 24,
  'test/web/link.test.ts': 23,
  'test/adapters/slack/approvals-race.test.ts': 23,
  'test/web/documents-chromium.test.ts': 23,
  'test/domain/approvals/approval-service.test.ts': 22,
  'test/adapters/teams/approvals.test.ts': 22,
  'test/mcp/messaging-tools.test.ts': 21,
  'test/web/auth/csrf.test.ts': 20,
  'test/web/approvals.test.ts': 20,
  'test/cli/serve.test.ts': 19,
  'test/web/live-chromium.test.ts': 18,
  'test/mcp/cross-process.test.ts': 18,
  'test/mcp/documents-concurrency.test.ts': 18,
  'test/adapters/slack/talking.test.ts': 17,
  'test/web/chat/reactions.test.ts': 17,
  'test/adapters/db/read-cache.test.ts': 16,
  'test/mcp/hostile-input.test.ts': 16,
  'test/mcp/live-tools.test.ts': 16,
  'test/mcp/documents-reading.test.ts': 15,
  'test/adapters/db/inbound-repo.test.ts': 15,
  'test/adapters/db/slack-repos.test.ts': 15,
  'test/domain/organizations/plan-limits-burst.test.ts': 15,
  'test/web/resync-chromium.test.ts': 15,
  'test/adapters/slack/linking-audience.test.ts': 15,
  'test/adapters/slack/live.test.ts': 15,
  'test/demo/demo.test.ts': 14,
  'test/web/chat/settings-api.test.ts': 14,
  'test/web/documents.test.ts': 14,
  'test/mcp/tool-schemas.test.ts': 14,
  'test/web/chat/events.test.ts': 13,
  'test/domain/messaging/database-behaviour.test.ts': 13,
  'test/web/link-chromium.test.ts': 12,
  'test/cli/cli.test.ts': 12,
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
