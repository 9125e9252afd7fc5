// Owns the one error type of the freeze core: an input or a setup that keeps a freeze from being
// attempted at all. A fix that was tried and found wanting is a rejected outcome, not an error.

export type FreezeErrorCode =
  | 'invalid-input'
  | 'invalid-options'
  | 'not-a-repository'
  | 'missing-commit'
  | 'empty-fix'
  | 'unreadable-patch'
  | 'unsupported-runner'
  | 'sandbox-unavailable';

export class FreezeError extends Error {
  readonly code: FreezeErrorCode;

  constructor(code: FreezeErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'FreezeError';
    this.code = code;
  }
}
