import { describe, expect, it } from 'vitest';
import { REPORT_FORMATS, TestReportError, mergeReports, parseReport } from '../../src/test-reports/index.js';
import type { ReportFormat } from '../../src/test-reports/index.js';
import { errorCode } from './error-code.js';

describe('parseReport', () => {
  it('lists the eight formats', () => {
    expect(REPORT_FORMATS).toEqual([
      'junit-xml',
      'go-test-json',
      'jest-json',
      'vitest-json',
      'libtest',
      'tap',
      'tape-tap',
      'runner-json',
    ]);
  });

  it('joins a jest title path with › and a vitest one with >, as each runner prints them', () => {
    const json = JSON.stringify({
      testResults: [
        {
          name: '/w/test/a.test.ts',
          assertionResults: [{ ancestorTitles: ['math'], title: 'adds', status: 'passed' }],
        },
      ],
    });
    expect(parseReport('jest-json', json, { rootDir: '/w' }).tests.map((test) => test.id)).toEqual([
      'test/a.test.ts › math › adds',
    ]);
    expect(parseReport('vitest-json', json, { rootDir: '/w' }).tests.map((test) => test.id)).toEqual([
      'test/a.test.ts > math > adds',
    ]);
  });

  it('refuses a format it does not know, e.g. from a stored plan', () => {
    expect(errorCode(TestReportError, () => parseReport('subunit' as ReportFormat, 'ok 1'))).toBe('unknown-format');
    expect(errorCode(TestReportError, () => mergeReports('subunit' as ReportFormat, ['ok 1']))).toBe('unknown-format');
  });

  it('sorts ids by UTF-16 code units, not by locale', () => {
    const xml = `<testsuite name="s">${['é', 'b', 'Z', 'a', '_'].map((name) => `<testcase name="${name}"/>`).join('')}</testsuite>`;
    expect(parseReport('junit-xml', xml).tests.map((test) => test.id)).toEqual(['Z', '_', 'a', 'b', 'é']);
  });

  it('numbers repeats in input order and skips a number an existing id already uses', () => {
    const xml = `<testsuite name="s"><testcase name="t"/><testcase name="t #2"/><testcase name="t"><failure/></testcase></testsuite>`;
    expect(parseReport('junit-xml', xml).tests.map((test) => [test.id, test.status])).toEqual([
      ['t', 'pass'],
      ['t #2', 'pass'],
      ['t #3', 'fail'],
    ]);
  });

  it('numbers a title repeated 100,000 times without trying every number again for each', () => {
    const count = 100_000;
    const tap = `TAP version 13\n${Array.from({ length: count }, (_, n) => `ok ${n + 1} - same`).join('\n')}\n1..${count}\n`;
    const ids = parseReport('tap', tap).tests.map((test) => test.id);
    expect(new Set(ids).size).toBe(count);
    expect(ids).toContain(`same #${count}`);
  });

  it('bounds a long failure message', () => {
    const xml = `<testsuite name="s"><testcase name="t"><failure message="${'x'.repeat(10_000)}"/></testcase></testsuite>`;
    const message = parseReport('junit-xml', xml).tests[0]?.message ?? '';
    expect(message.length).toBeLessThan(4100);
    expect(message.endsWith('…')).toBe(true);
  });

  it('a merge of no texts is an empty report', () => {
    expect(mergeReports('junit-xml', [])).toEqual({ format: 'junit-xml', tests: [] });
  });
});
