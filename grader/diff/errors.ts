// Owns the one error type of grader/diff: a patch (or the file contents behind it) that
// cannot be read as git's diff output. Callers branch on `code`, never on the message.

export type PatchErrorCode =
  | 'unexpected-line'
  | 'bad-file-header'
  | 'bad-quoted-path'
  | 'bad-hunk-header'
  | 'hunk-length-mismatch'
  | 'bad-binary-patch'
  | 'unsupported-copy'
  | 'missing-content';

export class PatchError extends Error {
  readonly code: PatchErrorCode;

  constructor(code: PatchErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PatchError';
    this.code = code;
  }
}
