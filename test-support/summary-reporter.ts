// Ends a test run with one plain line that CI logs can be read by: "tests: N passed, N failed, N skipped; files: N
// passed, N failed". A file that failed outside its tests (in an import or a hook) counts as a failed file, and as a
// failed test when none of its tests says so, so the line never reads "0 failed" over a broken file.
import type { Reporter, TestModule } from 'vitest/node';

export class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    const files = { passed: 0, failed: 0 };
    for (const module of testModules) {
      let failedTests = 0;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed += 1;
        else if (state === 'failed') failedTests += 1;
        else counts.skipped += 1;
      }
      const fileFailed = module.state() === 'failed' || failedTests > 0 || module.errors().length > 0;
      counts.failed += fileFailed ? Math.max(failedTests, 1) : failedTests;
      if (fileFailed) files.failed += 1;
      else files.passed += 1;
    }
    process.stdout.write(
      `\ntests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped; files: ${files.passed} passed, ${files.failed} failed\n`,
    );
  }
}
