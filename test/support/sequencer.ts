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
 * or more in a full run on a 2-core machine (143 s, 2026-12-02); the others count as 0 and follow, larger
 * files first. Only the order
 * matters; refresh it when it changes a lot, e.g. with `--reporter=default --reporter=./test/support/file-times.ts`.
 */
export const KNOWN_SECONDS: Readonly<Record<string, number>> = {
  'test/surfaces/web/session-end-chromium.test.ts': 25,
  'test/infra/queue/job-queue.contract.test.ts': 24,
  'test/surfaces/teams/delivery.test.ts': 20,
  'test/infra/db/failover.test.ts': 16,
  'test/mcp/stdio.test.ts': 15,
  'test/surfaces/slack/delivery.test.ts': 14,
  'test/infra/queue/bullmq-shutdown.test.ts': 12,
  'test/infra/db/shared-surface-migration.test.ts': 10,
  'test/surfaces/web/e2e/chat.e2e.test.ts': 10,
  'test/surfaces/web/events.test.ts': 10,
  'test/surfaces/web/details-chromium.test.ts': 10,
  'test/cli/serve.test.ts': 9,
  'test/http/hostile-input.test.ts': 9,
  'test/cli/cli.test.ts': 9,
  'test/http/health.test.ts': 9,
  'test/http/auth/signin.test.ts': 8,
  'test/infra/db/pglite-thread.test.ts': 8,
  'test/mcp/live-tools.test.ts': 8,
  'test/surfaces/slack/ingest-kill.test.ts': 8,
  'test/surfaces/web/isolation.test.ts': 8,
  'test/surfaces/slack/durable-inbound.test.ts': 8,
  'test/infra/db/startup-unreachable.test.ts': 7,
  'test/mcp/documents-tools.test.ts': 7,
  'test/surfaces/slack/bridge-mirror.test.ts': 7,
  'test/mcp/http.test.ts': 7,
  'test/surfaces/web/settings-chromium.test.ts': 7,
  'test/surfaces/web/approvals-chromium.test.ts': 6,
  'test/surfaces/slack/live.test.ts': 5,
  'test/surfaces/slack/approvals.test.ts': 5,
  'test/surfaces/slack/approvals-race.test.ts': 5,
  'test/cli/database-mismatch.test.ts': 5,
  'test/mcp/intake-tools.test.ts': 5,
  'test/surfaces/slack/public-channel-audience.test.ts': 5,
  'test/surfaces/web/chat.test.ts': 5,
};

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const weight = (spec: TestSpecification) => {
      const file = path.relative(root, spec.moduleId);
      const key = `${spec.project.name}:${file}`;
      const last = this.ctx.cache.getFileTestResults(key);
      return {
        seconds: last ? last.duration / 1000 : (KNOWN_SECONDS[file] ?? 0),
        size: this.ctx.cache.getFileStats(key)?.size ?? 0,
      };
    };
    const weights = new Map(files.map((f) => [f, weight(f)]));
    return [...files].sort((a, b) => {
      const [wa, wb] = [weights.get(a)!, weights.get(b)!];
      return wb.seconds - wa.seconds || wb.size - wa.size;
    });
  }
}
