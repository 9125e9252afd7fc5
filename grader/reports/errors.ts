// Owns the one error type the report parsers throw, so the grader can record why a
// report could not be read (and treat the run as unverified) without parsing messages.

export type ReportErrorCode = 'unknown-format' | 'malformed-report';

export class ReportError extends Error {
  readonly code: ReportErrorCode;

  constructor(code: ReportErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ReportError';
    this.code = code;
  }
}
