import { describe, expect, it } from 'vitest';
import { TestReportError, parseReport } from '../../src/test-reports/index.js';
import { errorCode } from './error-code.js';

// `cargo test --no-fail-fast` stdout (Rust 1.95): the unit-test binary, an integration-test
// binary and the doc tests, each its own "running N tests" block.
const cargoStdout = `
running 5 tests
test tests::passes ... ok
test tests::skipped ... ignored, not now
test tests::skipped_plain ... ignored
test tests::panics - should panic ... ok
test tests::fails ... FAILED

failures:

---- tests::fails stdout ----

thread 'tests::fails' (9904) panicked at src/lib.rs:8:26:
assertion \`left == right\` failed: a < b & c
  left: 2
 right: 3
note: run with \`RUST_BACKTRACE=1\` environment variable to display a backtrace


failures:
    tests::fails

test result: FAILED. 2 passed; 1 failed; 2 ignored; 0 measured; 0 filtered out; finished in 0.22s


running 2 tests
test integration_passes ... ok
test bench_add ... bench:          12 ns/iter (+/- 1)

test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s


running 1 test
test src/lib.rs - add (line 1) ... ok

test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.30s

`;

describe('libtest', () => {
  it('reads every binary block: ok, FAILED, ignored (with reason), bench, should-panic and doc tests', () => {
    expect(parseReport('libtest', cargoStdout).tests).toEqual([
      { id: 'bench_add', status: 'pass', durationMs: null },
      { id: 'integration_passes', status: 'pass', durationMs: null },
      { id: 'src/lib.rs - add (line 1)', status: 'pass', durationMs: null },
      {
        id: 'tests::fails',
        status: 'fail',
        durationMs: null,
        message:
          "thread 'tests::fails' (9904) panicked at src/lib.rs:8:26:\nassertion `left == right` failed: a < b & c\n  left: 2\n right: 3\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
      },
      { id: 'tests::panics', status: 'pass', durationMs: null },
      { id: 'tests::passes', status: 'pass', durationMs: null },
      { id: 'tests::skipped', status: 'skip', durationMs: null, message: 'not now' },
      { id: 'tests::skipped_plain', status: 'skip', durationMs: null },
    ]);
  });

  it('numbers the same test name appearing in two binaries', () => {
    const text =
      'running 1 test\ntest tests::a ... ok\n\ntest result: ok.\n\nrunning 1 test\ntest tests::a ... FAILED\n\ntest result: FAILED.\n';
    expect(parseReport('libtest', text).tests.map((test) => [test.id, test.status])).toEqual([
      ['tests::a', 'pass'],
      ['tests::a #2', 'fail'],
    ]);
  });

  it("names each test by the target cargo announced on stderr before the binary's block", () => {
    const stdout =
      'running 1 test\ntest tests::a ... ok\n\ntest result: ok.\n\nrunning 1 test\ntest tests::a ... FAILED\n\ntest result: FAILED.\n\nrunning 1 test\ntest src/lib.rs - f (line 1) ... ok\n\ntest result: ok.\n';
    const stderr = [
      '   Compiling ct v0.1.0 (/tmp/ct)',
      '     Running unittests src/lib.rs (target/debug/deps/ct-c4066ebb79ee0019)',
      '     Running tests/cli.rs (target/debug/deps/cli-32ea5584f2b36abd)',
      'error: test failed, to rerun pass `--test cli`',
      '   Doc-tests ct',
    ].join('\n');
    expect(parseReport('libtest', stdout, { stderr }).tests.map((test) => [test.id, test.status])).toEqual([
      ['doc-tests/ct::src/lib.rs - f (line 1)', 'pass'],
      ['src/lib.rs::tests::a', 'pass'],
      ['tests/cli.rs::tests::a', 'fail'],
    ]);
    // A header short (cargo -q, or a binary off libtest's harness) cannot be paired: refused, not guessed.
    const short = stderr.replace('   Doc-tests ct', '');
    expect(errorCode(TestReportError, () => parseReport('libtest', stdout, { stderr: short }))).toBe(
      'malformed-report',
    );
  });

  it('empty stdout (the build failed before any binary ran) is a report with no tests', () => {
    expect(parseReport('libtest', '').tests).toEqual([]);
  });

  it('a binary that died mid-run keeps the results it printed', () => {
    const text = 'running 3 tests\ntest a ... ok\ntest b ... ok\n';
    expect(parseReport('libtest', text).tests.map((test) => test.id)).toEqual(['a', 'b']);
  });

  it('rejects terse output (cargo test -q), where a finished block lists fewer results than it announced', () => {
    const terse =
      'running 4 tests\n.ii 3/4\ntests::fails --- FAILED\n\ntest result: FAILED. 1 passed; 1 failed; 2 ignored; 0 measured; 0 filtered out; finished in 0.00s\n';
    expect(errorCode(TestReportError, () => parseReport('libtest', terse))).toBe('malformed-report');
  });
});
