// The one error type of the traces folder. Messages name translators, indices and fields, never event contents, which
// may hold what the redactor has not yet seen.

export type TraceErrorCode = 'unknown-translator' | 'invalid-translator-context' | 'invalid-event';

export class TraceError extends Error {
  readonly code: TraceErrorCode;

  constructor(code: TraceErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TraceError';
    this.code = code;
  }
}
