// Owns the single entry point from a report's text to a ParsedReport, and merging the
// several files one run can leave (Surefire writes one per test class).

import { TestReportError } from './errors.js';
import { parseGoTestJson } from './go-test-json.js';
import { parseJestJson } from './jest-json.js';
import { parseJUnitXml } from './junit-xml.js';
import { parseLibtest } from './libtest.js';
import { REPORT_FORMATS, finalizeTests } from './model.js';
import { parseRunnerReport } from './runner-report.js';
import { parseTap } from './tap.js';
import type { ParseOptions, ParsedReport, ReportFormat, TestResult } from './model.js';

export function parseReport(format: ReportFormat, text: string, options: ParseOptions = {}): ParsedReport {
  return { format, tests: finalizeTests(parseTests(format, text, options)) };
}

/**
 * One report from several texts of the same format (e.g. every TEST-*.xml Surefire wrote).
 * The texts are ordered by content first, so the result does not depend on the order a
 * directory listing happened to return them in.
 */
export function mergeReports(format: ReportFormat, texts: readonly string[], options: ParseOptions = {}): ParsedReport {
  const ordered = [...texts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { format, tests: finalizeTests(ordered.flatMap((text) => parseTests(format, text, options))) };
}

function parseTests(format: ReportFormat, text: string, options: ParseOptions): TestResult[] {
  switch (format) {
    case 'junit-xml':
      return parseJUnitXml(text, options);
    case 'go-test-json':
      return parseGoTestJson(text);
    case 'jest-json':
      return parseJestJson(text, options, ' › ');
    case 'vitest-json':
      return parseJestJson(text, options, ' > ');
    case 'libtest':
      return parseLibtest(text, options.stderr);
    case 'tap':
      return parseTap(text, 'tap');
    case 'tape-tap':
      return parseTap(text, 'tape');
    case 'runner-json':
      return parseRunnerReport(text, options);
    default:
      // Formats arrive from task manifests and stored plans too, not only from typed code.
      throw new TestReportError(
        'unknown-format',
        `unknown report format ${JSON.stringify(format)}; expected one of ${REPORT_FORMATS.join(', ')}`,
      );
  }
}
