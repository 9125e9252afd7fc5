// Owns the one error type of grader/report: what the report was handed besides the results folder (a task's
// provenance.json, the serve URL to link to) that it refuses to render from, named by file and field.

export type ReportErrorCode = 'invalid-provenance' | 'provenance-mismatch' | 'invalid-serve-url';

export class ReportError extends Error {
  readonly code: ReportErrorCode;

  constructor(code: ReportErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ReportError';
    this.code = code;
  }
}
