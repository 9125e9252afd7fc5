// The one error of running a matrix: locks, journals and resumes, preflight and strict comparison.
export type RunErrorCode =
  | 'locked'
  | 'journal-exists'
  | 'journal-missing'
  | 'journal-invalid'
  | 'fingerprint-mismatch'
  | 'duplicate-trial'
  | 'strict-comparison'
  | 'sandbox-unavailable';

export class RunError extends Error {
  override name = 'RunError';
  constructor(
    readonly code: RunErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
