// The document abp's own reporters write for jasmine and lab (fixtures/runner-json: their real output, README there),
// and every way a planted or broken one is refused rather than read.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TestReportError, parseReport } from '../../src/test-reports/index.js';
import type { ParsedReport } from '../../src/test-reports/index.js';
import { RUNNER_REPORT_FORMAT } from '../../src/test-reports/runner-reporters.js';
import { errorCode } from './error-code.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/runner-json');
const fixture = (name: string) => readFileSync(path.join(fixtures, name), 'utf8');
const statuses = (report: ParsedReport) => Object.fromEntries(report.tests.map((test) => [test.id, test.status]));
const read = (value: unknown, rootDir?: string) =>
  parseReport(
    'runner-json',
    typeof value === 'string' ? value : JSON.stringify(value),
    rootDir === undefined ? {} : { rootDir },
  );

describe('runner-json from the real runners', () => {
  it('jasmine 5.13.0: file, suites and spec joined by ` > `; pending is a skip, a failed afterAll an error of its own', () => {
    const report = read(fixture('jasmine-5.13.0.json'));
    expect(statuses(report)).toEqual({
      'spec/a.spec.js > math > [afterAll]': 'error',
      'spec/a.spec.js > math > adds': 'pass',
      'spec/a.spec.js > math > nested > fails': 'fail',
      'spec/a.spec.js > math > nested > pending no body': 'skip',
      'spec/a.spec.js > math > nested > skipped': 'skip',
      'spec/a.spec.js > top level': 'pass',
      'spec/b.spec.js > math > adds': 'pass',
      'spec/b.spec.js > math > ünïcode ✓ 测试 > not a separator': 'pass',
    });
    expect(report.tests.find((test) => test.id.endsWith('fails'))?.message).toContain('Expected 1 to be 2.');
  });

  it('lab 26.0.1: the title lab prints, no file; the same title in two files is numbered, todo a skip', () => {
    const report = read(fixture('lab-26.0.1.json'));
    expect(statuses(report)).toEqual({
      'math adds': 'pass',
      'math adds #2': 'pass',
      'math nested ünï fails <x>': 'fail',
      'math nested ünï fails <x> #2': 'pass',
      'math nested ünï skipped': 'skip',
      'math nested ünï skipped #2': 'skip',
      'math nested ünï todo': 'skip',
      'math nested ünï todo #2': 'skip',
      'top level': 'pass',
      'top level #2': 'pass',
    });
  });
});

describe('runner-json: what is read and what is refused', () => {
  const document = (tests: unknown) => ({ format: RUNNER_REPORT_FORMAT, runner: 'jasmine', tests });

  it('makes absolute file names relative to the checkout and rounds durations', () => {
    const report = read(
      document([{ id: '/work/checkout/spec/x.spec.js > adds', status: 'pass', durationMs: 1.23456789 }]),
      '/work/checkout',
    );
    expect(report.tests).toEqual([{ id: 'spec/x.spec.js > adds', status: 'pass', durationMs: 1.235 }]);
  });

  it.each([
    ['not JSON', '{"format": "abp-runner-report/1", "tests": ['],
    ['another format', JSON.stringify({ format: 'abp-runner-report/2', runner: 'jasmine', tests: [] })],
    ['no tests list', JSON.stringify({ format: RUNNER_REPORT_FORMAT, runner: 'jasmine' })],
    ['an unknown status', JSON.stringify(document([{ id: 'a', status: 'passed', durationMs: 1 }]))],
    ['an empty id', JSON.stringify(document([{ id: '', status: 'pass', durationMs: 1 }]))],
    ['a negative duration', JSON.stringify(document([{ id: 'a', status: 'pass', durationMs: -1 }]))],
    ['a report cut short', JSON.stringify(document([{ id: 'a', status: 'pass', durationMs: 1 }])).slice(0, 60)],
  ])('refuses %s as a malformed report', (_, text) => {
    expect(errorCode(TestReportError, () => read(text))).toBe('malformed-report');
  });

  it('names the offending field', () => {
    expect(() =>
      read(
        document([
          { id: 'a', status: 'pass', durationMs: 1 },
          { id: 'b', status: 'ok', durationMs: 1 },
        ]),
      ),
    ).toThrow(/tests\.1\.status/);
  });
});
