// Owns the one error type of grader/results: a results folder that cannot be read as an `abp run` output,
// named by file and field so the reader knows what to fix or rerun.

export type ResultsErrorCode = 'not-a-run-folder' | 'missing-file' | 'invalid-file' | 'incomplete-run';

export class ResultsError extends Error {
  readonly code: ResultsErrorCode;

  constructor(code: ResultsErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ResultsError';
    this.code = code;
  }
}
