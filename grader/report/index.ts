// The grader's HTML report of a results folder, and the task provenance it links to. This file only re-exports.

export { ReportError, type ReportErrorCode } from './errors.js';
export {
  PROVENANCE_FILE,
  TASK_PROVENANCE_SCHEMA_ID,
  parseServeUrl,
  provenanceOf,
  readTaskProvenance,
  readTasksProvenance,
  taskProvenanceSchema,
  writeTaskProvenance,
  type TaskProvenance,
  type VerifiedBundle,
} from './provenance.js';
export { renderReport, type ReportOptions } from './render-report.js';
