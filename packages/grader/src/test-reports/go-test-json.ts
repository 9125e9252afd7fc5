// Owns reading `go test -json` (test2json) event streams into the common result model, each test named
// `<import path>::<Test>[/<subtest>…]` (go prints the package and the test apart; '/' is in both),
// including packages that failed outside any test, which must never read as "no tests".

import { TestReportError } from './errors.js';
import { secondsToMs, testResult } from './model.js';
import type { TestResult, TestStatus } from './model.js';

interface GoEvent {
  readonly Action: string;
  readonly Package?: string;
  readonly Test?: string;
  readonly Elapsed?: number;
  readonly Output?: string;
  /** Go ≥ 1.24: build events carry ImportPath, and a package's fail names the build that failed. */
  readonly ImportPath?: string;
  readonly FailedBuild?: string;
}

interface TestRecord {
  status: TestStatus | undefined;
  elapsedSeconds: number | undefined;
  readonly output: string[];
}

interface PackageRecord {
  readonly tests: Map<string, TestRecord>;
  readonly output: string[];
  failed: boolean;
  failedBuild: string | undefined;
}

const TERMINAL_ACTIONS: Readonly<Record<string, TestStatus>> = { pass: 'pass', fail: 'fail', skip: 'skip' };

export function parseGoTestJson(text: string): TestResult[] {
  const packages = new Map<string, PackageRecord>();
  const buildOutput = new Map<string, string[]>();
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    const event = parseEvent(line, index + 1);
    if (event.ImportPath !== undefined && event.Output !== undefined) {
      appendTo(buildOutput, event.ImportPath, event.Output);
    }
    if (event.Package === undefined) return;
    const pkg = packageRecord(packages, event.Package);
    if (event.Test === undefined) {
      if (event.Action === 'output' && event.Output !== undefined) pkg.output.push(event.Output);
      if (event.Action === 'fail') {
        pkg.failed = true;
        pkg.failedBuild = event.FailedBuild;
      }
      return;
    }
    const test = pkg.tests.get(event.Test) ?? { status: undefined, elapsedSeconds: undefined, output: [] };
    pkg.tests.set(event.Test, test);
    if (event.Action === 'output' && event.Output !== undefined) test.output.push(event.Output);
    const status = TERMINAL_ACTIONS[event.Action];
    if (status !== undefined) {
      test.status = status;
      test.elapsedSeconds = event.Elapsed;
    }
  });

  const results: TestResult[] = [];
  for (const [packageName, pkg] of packages) {
    for (const [testName, test] of pkg.tests) {
      const durationMs = test.elapsedSeconds === undefined ? null : secondsToMs(test.elapsedSeconds);
      const output = testOutput(test.output);
      // A test that started but never finished: the test binary died under it (panic, os.Exit, timeout).
      results.push(
        test.status === undefined
          ? testResult(
              `${packageName}::${testName}`,
              'error',
              durationMs,
              `no result: the test binary exited while this test ran\n${output}`,
            )
          : testResult(
              `${packageName}::${testName}`,
              test.status,
              durationMs,
              test.status === 'pass' ? undefined : output,
            ),
      );
    }
    const packageFailure = describePackageFailure(packageName, pkg, buildOutput);
    if (packageFailure !== undefined) results.push(packageFailure);
  }
  return results;
}

/**
 * A failed package with no failed test failed outside the tests: a build error, TestMain,
 * init, or a crash between tests. It becomes an `error` result so the run cannot pass as
 * "zero tests, nothing failed".
 */
function describePackageFailure(
  packageName: string,
  pkg: PackageRecord,
  buildOutput: Map<string, string[]>,
): TestResult | undefined {
  if (!pkg.failed) return undefined;
  const anyTestFailed = [...pkg.tests.values()].some((test) => test.status === 'fail' || test.status === undefined);
  if (anyTestFailed) return undefined;
  const packageOutput = pkg.output.join('');
  const buildFailed = pkg.failedBuild !== undefined || packageOutput.includes('[build failed]');
  const buildLines = pkg.failedBuild === undefined ? [] : (buildOutput.get(pkg.failedBuild) ?? []);
  const detail = buildLines.length > 0 ? buildLines.join('') : packageOutput;
  return testResult(`${packageName} [${buildFailed ? 'build failed' : 'package failed'}]`, 'error', null, detail);
}

function parseEvent(line: string, lineNumber: number): GoEvent {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    throw new TestReportError(
      'malformed-report',
      `go-test-json: line ${lineNumber} is not JSON (${JSON.stringify(line.slice(0, 80))}); run go test with -json and read its stdout only`,
      { cause: error },
    );
  }
  if (typeof value !== 'object' || value === null || typeof (value as { Action?: unknown }).Action !== 'string') {
    throw new TestReportError(
      'malformed-report',
      `go-test-json: line ${lineNumber} is not a test2json event (no string "Action")`,
    );
  }
  return value as GoEvent;
}

function packageRecord(packages: Map<string, PackageRecord>, name: string): PackageRecord {
  let record = packages.get(name);
  if (record === undefined) {
    record = { tests: new Map(), output: [], failed: false, failedBuild: undefined };
    packages.set(name, record);
  }
  return record;
}

function appendTo(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key) ?? [];
  list.push(value);
  map.set(key, list);
}

/** The test's own output without test2json's framing lines (=== RUN, --- FAIL, ...). */
function testOutput(lines: readonly string[]): string {
  return lines.filter((line) => !/^(=== (RUN|PAUSE|CONT|NAME)|--- (PASS|FAIL|SKIP):)/.test(line.trimStart())).join('');
}
