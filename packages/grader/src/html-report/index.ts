// The grader's HTML report of a results folder. This file only re-exports.

export { renderReport, type ReportOptions } from './render-report.js';
