// The grader's test-report reading: one result model and a parser per runner format.
// Each concept lives in its own module; this file only re-exports.

export { TestReportError, type TestReportErrorCode } from './errors.js';
export {
  REPORT_FORMATS,
  type ParseOptions,
  type ParsedReport,
  type ReportFormat,
  type TestResult,
  type TestStatus,
} from './model.js';
export { mergeReports, parseReport } from './parse-report.js';
