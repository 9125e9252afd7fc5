// Owns reading Jest `--json` and Vitest `--reporter=json` output (the same shape) into the
// common result model, each test named by its file and title path joined as its runner prints them, including test files that failed before any test could run. Tolerant of the shapes the versions
// in use have written: a title or an ancestor title as an array of parts (older jest), `testFilePath` for the file.

import { TestReportError } from './errors.js';
import { relativeToRoot, roundMs, testResult } from './model.js';
import type { ParseOptions, TestResult, TestStatus } from './model.js';

const STATUSES: Readonly<Record<string, TestStatus>> = {
  passed: 'pass',
  failed: 'fail',
  pending: 'skip',
  skipped: 'skip',
  todo: 'skip',
  disabled: 'skip',
};

/** A title as one string: older jest writes some as arrays of parts (joined with a space, as jest prints them). */
function titleText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value) && value.length > 0 && value.every((part) => ['string', 'number'].includes(typeof part)))
    return value.map(String).join(' ');
  return null;
}

/** `separator` joins the file and titles: jest prints ` › `, vitest ` > `. */
export function parseJestJson(text: string, options: ParseOptions = {}, separator = ' › '): TestResult[] {
  let report: unknown;
  try {
    report = JSON.parse(text);
  } catch (error) {
    throw new TestReportError(
      'malformed-report',
      'jest-json: the report is not JSON; run jest with --json --outputFile or vitest with --reporter=json --outputFile',
      {
        cause: error,
      },
    );
  }
  const files = isRecord(report) ? report.testResults : undefined;
  if (!Array.isArray(files)) {
    throw new TestReportError('malformed-report', 'jest-json: the report has no "testResults" array');
  }
  return files.flatMap((file: unknown, index) => readFile(file, index, options, separator));
}

function readFile(file: unknown, index: number, options: ParseOptions, separator: string): TestResult[] {
  const name = isRecord(file) ? (file.name ?? file.testFilePath) : undefined;
  if (!isRecord(file) || typeof name !== 'string' || !Array.isArray(file.assertionResults)) {
    throw new TestReportError(
      'malformed-report',
      `jest-json: testResults[${index}] needs a string "name" and an "assertionResults" array`,
    );
  }
  const fileName = relativeToRoot(name, options.rootDir);
  const results = file.assertionResults.map((assertion: unknown, assertionIndex) => {
    const where = `testResults[${index}].assertionResults[${assertionIndex}]`;
    const title = isRecord(assertion) ? titleText(assertion.title) : null;
    if (!isRecord(assertion) || title === null || typeof assertion.status !== 'string') {
      throw new TestReportError('malformed-report', `jest-json: ${where} needs a string "title" and "status"`);
    }
    const status = STATUSES[assertion.status];
    if (status === undefined) {
      throw new TestReportError(
        'malformed-report',
        `jest-json: ${where} has status "${assertion.status}"; expected one of ${Object.keys(STATUSES).join(', ')}`,
      );
    }
    const ancestors = Array.isArray(assertion.ancestorTitles)
      ? assertion.ancestorTitles.map((ancestor) => titleText(ancestor) ?? String(ancestor))
      : [];
    const durationMs = typeof assertion.duration === 'number' ? roundMs(assertion.duration) : null;
    const failureMessages = Array.isArray(assertion.failureMessages)
      ? assertion.failureMessages.map(String).join('\n')
      : undefined;
    return testResult([fileName, ...ancestors, title].join(separator), status, durationMs, failureMessages);
  });
  // A file that failed with no failed test (import error, a throwing afterAll) failed outside
  // its tests; it becomes an `error` result so the run cannot look clean.
  const fileFailed = file.status === 'failed' && !results.some((result) => result.status === 'fail');
  if (fileFailed) {
    const message = typeof file.message === 'string' ? file.message : undefined;
    results.push(testResult(`${fileName} [file failed]`, 'error', null, message));
  }
  return results;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
