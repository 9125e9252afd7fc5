import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TestReportError, parseReport } from '../../src/test-reports/index.js';
import { errorCode } from './error-code.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/reports');

// The shape Jest 29/30 writes with --json (trimmed to the fields the parser reads, plus a few it ignores).
const jest = {
  numTotalTests: 6,
  success: false,
  testResults: [
    {
      name: '/work/checkout/src/__tests__/math.test.js',
      status: 'failed',
      message: '',
      assertionResults: [
        {
          ancestorTitles: ['math', 'add'],
          title: 'adds',
          fullName: 'math add adds',
          status: 'passed',
          duration: 3,
          failureMessages: [],
        },
        {
          ancestorTitles: ['math'],
          title: 'fails',
          status: 'failed',
          duration: 1.25,
          failureMessages: ['Error: expect(received).toBe(expected)\n\nExpected: 3\nReceived: 2'],
        },
        { ancestorTitles: ['math'], title: 'skipped', status: 'pending', duration: null, failureMessages: [] },
        { ancestorTitles: [], title: 'later', status: 'todo', failureMessages: [] },
        { ancestorTitles: [], title: 'off', status: 'disabled', failureMessages: [] },
      ],
    },
    {
      name: '/work/checkout/src/__tests__/broken.test.js',
      status: 'failed',
      message: "Test suite failed to run\n\nCannot find module './nope' from 'src/__tests__/broken.test.js'",
      assertionResults: [],
    },
    {
      name: '/elsewhere/other.test.js',
      status: 'passed',
      message: '',
      assertionResults: [{ ancestorTitles: [], title: 'ok', status: 'passed', duration: 0.5, failureMessages: [] }],
    },
  ],
};

describe('jest-json', () => {
  it('names tests file › ancestors › title (paths relative to rootDir) and maps Jest statuses', () => {
    const report = parseReport('jest-json', JSON.stringify(jest), { rootDir: '/work/checkout/' });
    expect(report.tests.map((test) => [test.id, test.status, test.durationMs])).toEqual([
      ['/elsewhere/other.test.js › ok', 'pass', 0.5],
      ['src/__tests__/broken.test.js [file failed]', 'error', null],
      ['src/__tests__/math.test.js › later', 'skip', null],
      ['src/__tests__/math.test.js › math › add › adds', 'pass', 3],
      ['src/__tests__/math.test.js › math › fails', 'fail', 1.25],
      ['src/__tests__/math.test.js › math › skipped', 'skip', null],
      ['src/__tests__/math.test.js › off', 'skip', null],
    ]);
    const byId = new Map(report.tests.map((test) => [test.id, test]));
    expect(byId.get('src/__tests__/math.test.js › math › fails')?.message).toContain('Expected: 3');
    expect(byId.get('src/__tests__/broken.test.js [file failed]')?.message).toContain("Cannot find module './nope'");
  });

  it('keeps absolute paths when no rootDir is given', () => {
    const ids = parseReport('jest-json', JSON.stringify(jest)).tests.map((test) => test.id);
    expect(ids).toContain('/work/checkout/src/__tests__/math.test.js › math › add › adds');
  });

  it('reads a real Vitest --reporter=json report, including a file that failed to import', async () => {
    const text = await readFile(path.join(fixtures, 'vitest/vitest.json'), 'utf8');
    const report = parseReport('jest-json', text, { rootDir: '/work/checkout' });
    expect(report.tests.map((test) => [test.id, test.status])).toEqual([
      ['test/a.test.ts › math & <stuff> › adds', 'pass'],
      ['test/a.test.ts › math & <stuff> › fails', 'fail'],
      ['test/a.test.ts › math & <stuff> › inner › deep', 'pass'],
      ['test/a.test.ts › math & <stuff> › later', 'skip'],
      ['test/a.test.ts › math & <stuff> › skipped', 'skip'],
      ['test/a.test.ts › top level', 'pass'],
      ['test/broken.test.ts [file failed]', 'error'],
    ]);
  });

  it('a failed file whose tests all passed (a throwing afterAll) still yields an error', () => {
    const text = JSON.stringify({
      testResults: [
        {
          name: 'a.test.js',
          status: 'failed',
          message: 'afterAll threw',
          assertionResults: [{ title: 't', status: 'passed', ancestorTitles: [] }],
        },
      ],
    });
    expect(parseReport('jest-json', text).tests.map((test) => [test.id, test.status])).toEqual([
      ['a.test.js [file failed]', 'error'],
      ['a.test.js › t', 'pass'],
    ]);
  });

  it('reads the shapes older jest wrote: titles and ancestors as arrays of parts, testFilePath for the file', () => {
    const text = JSON.stringify({
      testResults: [
        {
          testFilePath: 'old.test.js',
          status: 'passed',
          assertionResults: [
            { title: ['adds', 2, 'and', 3], status: 'passed', ancestorTitles: [['math', 'ops']] },
            { title: 'keeps a plain title', status: 'passed', ancestorTitles: [] },
          ],
        },
      ],
    });
    expect(parseReport('jest-json', text).tests.map((test) => [test.id, test.status])).toEqual([
      ['old.test.js › keeps a plain title', 'pass'],
      ['old.test.js › math ops › adds 2 and 3', 'pass'],
    ]);
  });

  it.each([
    ['text that is not JSON', 'PASS src/math.test.js'],
    ['JSON without testResults', '{"numTotalTests":0}'],
    ['a file without assertionResults', '{"testResults":[{"name":"a.test.js","status":"passed"}]}'],
    ['an assertion without a title', '{"testResults":[{"name":"a.test.js","assertionResults":[{"status":"passed"}]}]}'],
    ['an unknown status', '{"testResults":[{"name":"a.test.js","assertionResults":[{"title":"t","status":"flaky"}]}]}'],
  ])('rejects %s as malformed-report', (_label, text) => {
    expect(errorCode(TestReportError, () => parseReport('jest-json', text))).toBe('malformed-report');
  });
});
