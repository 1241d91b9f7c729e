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
 * Seconds per file in a full run (`npx vitest run --reporter=json`, per-file end - start) for the files
 * taking about 4 s or more; the others count as 0 and follow, larger files first. Refresh when they change a lot.
 */
export const KNOWN_SECONDS: Readonly<Record<string, number>> = {
  'test/adapters/teams/delivery.test.ts': 45,
  'test/support-tests/teams-standin.test.ts': 40,
  'test/mcp/stdio.test.ts': 36,
  'test/adapters/slack/delivery.test.ts': 34,
  'test/adapters/db/failover.test.ts': 29,
  'test/web/hostile-input.test.ts': 27,
  'test/adapters/queue/job-queue.contract.test.ts': 18,
  'test/adapters/slack/approvals.test.ts': 15,
  'test/adapters/slack/live.test.ts': 15,
  'test/web/details-chromium.test.ts': 14,
  'test/web/approvals.test.ts': 13,
  'test/mcp/live-tools.test.ts': 12,
  'test/cli/serve.test.ts': 12,
  'test/web/health.test.ts': 11,
  'test/web/settings-chromium.test.ts': 11,
  'test/domain/messaging/database-behaviour.test.ts': 9,
  'test/web/auth/signin.test.ts': 9,
  'test/adapters/slack/talking.test.ts': 8,
  'test/cli/cli.test.ts': 8,
  'test/mcp/documents-tools.test.ts': 7,
  'test/adapters/db/startup-unreachable.test.ts': 7,
  'test/adapters/slack/durable-inbound.test.ts': 7,
  'test/web/chat/chat.test.ts': 6,
  'test/web/e2e/chat.e2e.test.ts': 6,
  'test/domain/messaging/messaging-service.test.ts': 6,
  'test/web/chat/isolation.test.ts': 5,
  'test/web/chat/events.test.ts': 5,
  'test/adapters/teams/talking.test.ts': 5,
  'test/mcp/http.test.ts': 5,
  'test/adapters/slack/approvals-race.test.ts': 4,
  'test/mcp/messaging-tools.test.ts': 4,
  'test/web/approvals-chromium.test.ts': 4,
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
