// The grader's HTML report of a results folder. This file only re-exports.

export { renderReport } from './render-report.js';
