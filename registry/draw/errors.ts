// The one error type of the draw folder: inputs a seeded selection or a draw record cannot be built from.
// An audit that finds a difference does not throw; it reports the difference (see audit.ts).

export type DrawErrorCode = 'invalid-seed' | 'invalid-count' | 'unsorted-pool' | 'invalid-record';

export class DrawError extends Error {
  readonly code: DrawErrorCode;

  constructor(code: DrawErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DrawError';
    this.code = code;
  }
}
