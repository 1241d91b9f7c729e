// A reporter for measuring the suite: how long each file held its worker, from
// the moment the worker took it to its end (import, hooks and tests), longest
// first, in the shape of the sequencer's table (sequencer.ts). The JSON
// reporter's per-file times run from the first test's start to the last test's
// end and leave out beforeAll/afterAll and the import, which for some files
// (Chromium, servers started once) are most of their time.
//   npx vitest run --reporter=default --reporter=./test/support/file-times.ts
import path from 'node:path';
import type { Reporter, TestModule, Vitest } from 'vitest/node';

export default class FileTimes implements Reporter {
  private root = '';
  private readonly started = new Map<string, number>();
  private readonly seconds = new Map<string, number>();

  onInit(vitest: Vitest) {
    this.root = vitest.config.root;
  }
  onTestModuleStart(m: TestModule) {
    this.started.set(m.moduleId, Date.now());
  }
  onTestModuleEnd(m: TestModule) {
    const from = this.started.get(m.moduleId) ?? Date.now();
    this.seconds.set(path.relative(this.root, m.moduleId), (Date.now() - from) / 1000);
  }

  onTestRunEnd() {
    const rows = [...this.seconds].sort((a, b) => b[1] - a[1]);
    const total = rows.reduce((sum, [, s]) => sum + s, 0);
    console.log(`\nFiles by time held (sum ${total.toFixed(0)} s over ${rows.length} files):`);
    for (const [file, s] of rows) console.log(`  '${file}': ${Math.round(s)},`);
  }
}
