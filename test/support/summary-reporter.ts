// Ends a test run with one plain line, "tests: N passed, N failed, N skipped", that CI logs can be read by.
import type { Reporter, TestModule } from 'vitest/node';

export class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed += 1;
        else if (state === 'failed') counts.failed += 1;
        else counts.skipped += 1;
      }
      // A file that failed to load has no tests but must not pass as an empty success.
      if (module.state() === 'failed' && module.children.size === 0) counts.failed += 1;
    }
    process.stdout.write(`\ntests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
  }
}
