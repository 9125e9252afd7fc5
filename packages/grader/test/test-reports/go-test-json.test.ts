import { describe, expect, it } from 'vitest';
import { TestReportError, parseReport } from '../../src/test-reports/index.js';
import { errorCode } from './error-code.js';

const events = (...lines: object[]) => lines.map((line) => JSON.stringify(line)).join('\n');
const outcomes = (text: string) => parseReport('go-test-json', text).tests.map((test) => [test.id, test.status]);

describe('go-test-json', () => {
  const pkg = 'example.com/m';

  it('reads pass, fail and skip per test and subtest, with Elapsed as ms and the test output as message', () => {
    const text = events(
      { Action: 'start', Package: pkg },
      { Action: 'run', Package: pkg, Test: 'TestPass' },
      { Action: 'run', Package: pkg, Test: 'TestPass/sub_case' },
      { Action: 'pass', Package: pkg, Test: 'TestPass/sub_case', Elapsed: 0 },
      { Action: 'pass', Package: pkg, Test: 'TestPass', Elapsed: 0.005 },
      { Action: 'run', Package: pkg, Test: 'TestFail' },
      { Action: 'output', Package: pkg, Test: 'TestFail', Output: '=== RUN   TestFail\n' },
      { Action: 'output', Package: pkg, Test: 'TestFail', Output: '    m_test.go:4: boom <x>\n' },
      { Action: 'output', Package: pkg, Test: 'TestFail', Output: '--- FAIL: TestFail (0.00s)\n' },
      { Action: 'fail', Package: pkg, Test: 'TestFail', Elapsed: 0.01 },
      { Action: 'run', Package: pkg, Test: 'TestSkip' },
      { Action: 'output', Package: pkg, Test: 'TestSkip', Output: '    m_test.go:5: not now\n' },
      { Action: 'skip', Package: pkg, Test: 'TestSkip', Elapsed: 0 },
      { Action: 'output', Package: pkg, Output: 'FAIL\texample.com/m\t0.004s\n' },
      { Action: 'fail', Package: pkg, Elapsed: 0.005 },
    );
    expect(parseReport('go-test-json', text).tests).toEqual([
      { id: 'example.com/m::TestFail', status: 'fail', durationMs: 10, message: 'm_test.go:4: boom <x>' },
      { id: 'example.com/m::TestPass', status: 'pass', durationMs: 5 },
      { id: 'example.com/m::TestPass/sub_case', status: 'pass', durationMs: 0 },
      { id: 'example.com/m::TestSkip', status: 'skip', durationMs: 0, message: 'm_test.go:5: not now' },
    ]);
  });

  it('a build failure (Go ≥ 1.24 build events) is an error result carrying the compiler output, not "no tests"', () => {
    const build = 'example.com/m/broken [example.com/m/broken.test]';
    const text = events(
      { ImportPath: build, Action: 'build-output', Output: '# example.com/m/broken [example.com/m/broken.test]\n' },
      { ImportPath: build, Action: 'build-output', Output: 'broken/b_test.go:3:28: undefined: undefined\n' },
      { ImportPath: build, Action: 'build-fail' },
      { Action: 'start', Package: 'example.com/m/broken' },
      { Action: 'output', Package: 'example.com/m/broken', Output: 'FAIL\texample.com/m/broken [build failed]\n' },
      { Action: 'fail', Package: 'example.com/m/broken', Elapsed: 0, FailedBuild: build },
    );
    const [only, ...rest] = parseReport('go-test-json', text).tests;
    expect(rest).toEqual([]);
    expect(only).toMatchObject({ id: 'example.com/m/broken [build failed]', status: 'error', durationMs: null });
    expect(only?.message).toContain('undefined: undefined');
  });

  it('a build failure in the older shape (output line only) is an error result too', () => {
    const text = events(
      { Action: 'output', Package: 'example.com/m/broken', Output: 'FAIL\texample.com/m/broken [build failed]\n' },
      { Action: 'fail', Package: 'example.com/m/broken', Elapsed: 0 },
    );
    expect(outcomes(text)).toEqual([['example.com/m/broken [build failed]', 'error']]);
  });

  it('a package that fails with every test passed (TestMain, init) gets a package error', () => {
    const text = events(
      { Action: 'run', Package: pkg, Test: 'TestA' },
      { Action: 'pass', Package: pkg, Test: 'TestA', Elapsed: 0 },
      { Action: 'output', Package: pkg, Output: 'teardown failed\n' },
      { Action: 'fail', Package: pkg, Elapsed: 0.01 },
    );
    expect(outcomes(text)).toEqual([
      ['example.com/m [package failed]', 'error'],
      ['example.com/m::TestA', 'pass'],
    ]);
  });

  it('a test that started but never finished (the binary died) is an error; no extra package error', () => {
    const text = events(
      { Action: 'run', Package: pkg, Test: 'TestCrash' },
      { Action: 'output', Package: pkg, Test: 'TestCrash', Output: 'fatal error: concurrent map writes\n' },
      { Action: 'fail', Package: pkg, Elapsed: 0.01 },
    );
    const tests = parseReport('go-test-json', text).tests;
    expect(tests.map((test) => [test.id, test.status])).toEqual([['example.com/m::TestCrash', 'error']]);
    expect(tests[0]?.message).toContain('concurrent map writes');
  });

  it('a package without test files adds no result, and blank input is an empty report', () => {
    const text = events(
      { Action: 'start', Package: 'example.com/m/cmd' },
      { Action: 'output', Package: 'example.com/m/cmd', Output: '?   \texample.com/m/cmd\t[no test files]\n' },
      { Action: 'skip', Package: 'example.com/m/cmd', Elapsed: 0 },
    );
    expect(outcomes(text)).toEqual([]);
    expect(outcomes('\n')).toEqual([]);
  });

  it.each([
    ['plain go test output', '=== RUN   TestA\n--- PASS: TestA (0.00s)\nok  \texample.com/m\t0.01s'],
    ['a truncated event', '{"Action":"run","Package":"p","Test":"TestA"'],
    ['JSON that is not an event', '{"Package":"p"}'],
    ['a JSON array', '[1,2]'],
  ])('rejects %s as malformed-report', (_label, text) => {
    expect(errorCode(TestReportError, () => parseReport('go-test-json', text))).toBe('malformed-report');
  });
});
