// The one error of everything the grader reads before a trial starts: run configs, adapters files and task folders.
export type GraderConfigErrorCode =
  | 'missing-file'
  | 'invalid-json'
  | 'invalid-config'
  | 'invalid-adapters'
  | 'invalid-task'
  | 'unknown-engine'
  | 'unknown-task'
  | 'unknown-translator'
  | 'invalid-placeholder'
  | 'mismatched-models'
  | 'sandbox-unavailable';

export class GraderConfigError extends Error {
  override name = 'GraderConfigError';
  constructor(
    readonly code: GraderConfigErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
