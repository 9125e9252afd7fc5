// Owns the one error type of grader/process: a problem in how a command was configured or
// asked for, which is the harness's fault and must stop the run, not be scored against an engine.

export type ProcessErrorCode =
  | 'unknown-placeholder'
  | 'invalid-variable-name'
  | 'reserved-variable'
  | 'invalid-command'
  | 'sandbox-unavailable'
  | 'sandbox-path-missing'
  | 'conflicting-sandbox-paths';

export class ProcessError extends Error {
  readonly code: ProcessErrorCode;

  constructor(code: ProcessErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProcessError';
    this.code = code;
  }
}
